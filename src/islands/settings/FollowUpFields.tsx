/**
 * The Reminders card's follow-ups (issues 39 and 48): how long after the reminder (and after each
 * follow-up) to remind again, and how many times. With the interval Off there are none, so the
 * count waits, disabled, until an interval is chosen.
 */
import Field from "../../components/Field";
import type { FollowUpMinutes, FollowUps, ReminderSettingsJson } from "../../lib/reminders";

const INTERVAL_LABELS: [FollowUpMinutes, string][] = [
  [30, "After 30 min"],
  [60, "After 1 h"],
  [120, "After 2 h"],
  [0, "Off"],
];

const COUNT_LABELS: [FollowUps, string][] = [
  [1, "Once"],
  [2, "Twice"],
  [3, "3 times"],
  [0, "Off"],
];

type Values = Pick<ReminderSettingsJson, "followUpMinutes" | "followUps">;

interface Props {
  id: string;
  values: Values;
  /** A change, saved after a pause (or by `flush`). */
  edit: (patch: Partial<Values>) => void;
  flush: () => void;
}

export default function FollowUpFields({ id, values, edit, flush }: Props) {
  const off = values.followUpMinutes === 0;
  return (
    <div className="grid grid-cols-1 gap-3 min-[480px]:grid-cols-2 min-[480px]:items-end sm:max-w-2xl">
      <div className="min-w-0">
        <Field
          id={`${id}-follow-up`}
          label="Remind me again if I haven't ticked them"
          select
          value={values.followUpMinutes}
          onChange={(e) => edit({ followUpMinutes: Number(e.target.value) as FollowUpMinutes })}
          onBlur={flush}
        >
          {INTERVAL_LABELS.map(([minutes, label]) => (
            <option key={minutes} value={minutes}>
              {label}
            </option>
          ))}
        </Field>
      </div>
      <div className="min-w-0">
        <Field
          id={`${id}-follow-ups`}
          label="Remind me again"
          select
          value={values.followUps}
          disabled={off}
          describedBy={off ? `${id}-follow-ups-off` : undefined}
          onChange={(e) => edit({ followUps: Number(e.target.value) as FollowUps })}
          onBlur={flush}
        >
          {COUNT_LABELS.map(([count, label]) => (
            <option key={count} value={count}>
              {label}
            </option>
          ))}
        </Field>
      </div>
      {off && (
        <p id={`${id}-follow-ups-off`} className="text-sm text-slate-600 min-[480px]:col-span-2">
          No follow-ups while the interval is Off.
        </p>
      )}
    </div>
  );
}
