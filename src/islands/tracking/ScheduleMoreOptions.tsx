/**
 * Issue 48: the schedule's 'More options' in the Add/Edit Supplement dialog: `Starts`, `Ends`
 * (a date or `No end`), `Repeat` (`On the days I choose` / `Every N days` / `Cycle: N days on,
 * M days off`) and `Different amount at each time`. Its value round-trips every field an
 * existing schedule has, so an edit never drops a cycle it did not touch.
 */
import { useStore } from "@nanostores/react";
import { useId } from "react";
import Field from "../../components/Field";
import { todayIn } from "../../lib/dates";
import { type DoseTime, type Schedule, TIME_LABELS } from "../../lib/schedule";
import { $user } from "../../stores/user";

export type Repeat = "days" | "every" | "cycle";
export interface MoreValue {
  /** '' for the default (the day it is saved; an existing start is kept). */
  startsOn: string;
  /** '' for `No end`. */
  endsOn: string;
  repeat: Repeat;
  every: string;
  cycleOn: string;
  cycleOff: string;
  perTime: boolean;
  amounts: Partial<Record<DoseTime, string>>;
}

export function moreValueOf(schedule: Schedule | null | undefined): MoreValue {
  return {
    startsOn: schedule?.startsOn ?? "",
    endsOn: schedule?.endsOn ?? "",
    repeat: schedule?.every ? "every" : schedule?.cycle ? "cycle" : "days",
    every: String(schedule?.every?.days ?? 2),
    cycleOn: String(schedule?.cycle?.on ?? 5),
    cycleOff: String(schedule?.cycle?.off ?? 2),
    perTime: Boolean(schedule?.amounts && Object.keys(schedule.amounts).length > 0),
    amounts: Object.fromEntries(Object.entries(schedule?.amounts ?? {}).map(([t, a]) => [t, String(a)])),
  };
}

/** The schedule's optional fields from the form (numbers as typed: the rules refuse a bad one by name). */
export function morePayload(more: MoreValue, times: DoseTime[]): Partial<Schedule> {
  const out: Partial<Schedule> = {};
  if (more.startsOn) out.startsOn = more.startsOn;
  if (more.endsOn) out.endsOn = more.endsOn;
  if (more.repeat === "every") out.every = { days: Number(more.every) };
  if (more.repeat === "cycle") out.cycle = { on: Number(more.cycleOn), off: Number(more.cycleOff) };
  if (more.perTime) {
    const amounts: Partial<Record<DoseTime, number>> = {};
    for (const time of times) if (more.amounts[time]?.trim()) amounts[time] = Number(more.amounts[time]);
    if (Object.keys(amounts).length > 0) out.amounts = amounts;
  }
  return out;
}

interface Props {
  value: MoreValue;
  times: DoseTime[];
  onChange: (next: MoreValue) => void;
  errors: Record<string, string | undefined>;
}

export default function ScheduleMoreOptions({ value, times, onChange, errors }: Props) {
  const id = useId();
  const user = useStore($user);
  const set = (patch: Partial<MoreValue>) => onChange({ ...value, ...patch });
  const open = value.repeat !== "days" || value.perTime || value.endsOn !== "" || value.startsOn !== "";
  const repeatError = errors["schedule.every.days"] ?? errors["schedule.every"] ?? errors["schedule.cycle"];
  const cycleError = errors["schedule.cycle.on"] ?? errors["schedule.cycle.off"];
  return (
    <details open={open} className="rounded-lg border border-slate-200 p-3">
      <summary className="cursor-pointer text-sm font-medium text-slate-800">More options</summary>
      <div className="mt-3 space-y-4">
        <Field
          id={`${id}-starts`}
          label="Starts"
          type="date"
          value={value.startsOn}
          onChange={(e) => set({ startsOn: e.target.value })}
          error={errors["schedule.startsOn"]}
        />
        <fieldset>
          <legend className="field-label">Ends</legend>
          <label className="inline-flex min-h-8 items-center gap-2 text-sm text-slate-800">
            <input
              type="checkbox"
              className="size-4 accent-brand-700"
              checked={value.endsOn === ""}
              onChange={(e) => set({ endsOn: e.target.checked ? "" : value.startsOn || todayIn(user?.timeZone) })}
            />
            No end
          </label>
          {value.endsOn !== "" && (
            <Field
              id={`${id}-ends`}
              label={<span className="sr-only">Ends on</span>}
              type="date"
              value={value.endsOn}
              onChange={(e) => set({ endsOn: e.target.value })}
              error={errors["schedule.endsOn"]}
            />
          )}
        </fieldset>
        <Field
          id={`${id}-repeat`}
          label="Repeat"
          select
          value={value.repeat}
          onChange={(e) => set({ repeat: e.target.value as Repeat })}
          error={repeatError ?? cycleError}
        >
          <option value="days">On the days I choose</option>
          <option value="every">Every N days</option>
          <option value="cycle">Cycle: N days on, M days off</option>
        </Field>
        {value.repeat === "every" && (
          <Field
            id={`${id}-every`}
            label="Every how many days"
            type="number"
            inputMode="numeric"
            min="2"
            max="60"
            className="max-w-24"
            value={value.every}
            onChange={(e) => set({ every: e.target.value })}
          />
        )}
        {value.repeat === "cycle" && (
          <div className="flex flex-wrap gap-3">
            <Field
              id={`${id}-on`}
              label="Days on"
              type="number"
              inputMode="numeric"
              min="1"
              max="365"
              className="max-w-24"
              value={value.cycleOn}
              onChange={(e) => set({ cycleOn: e.target.value })}
            />
            <Field
              id={`${id}-off`}
              label="Days off"
              type="number"
              inputMode="numeric"
              min="1"
              max="365"
              className="max-w-24"
              value={value.cycleOff}
              onChange={(e) => set({ cycleOff: e.target.value })}
            />
          </div>
        )}
        <label className="inline-flex min-h-8 items-center gap-2 text-sm text-slate-800">
          <input
            type="checkbox"
            className="size-4 accent-brand-700"
            checked={value.perTime}
            onChange={(e) => set({ perTime: e.target.checked })}
          />
          Different amount at each time
        </label>
        {value.perTime &&
          times.map((time) => (
            <Field
              key={time}
              id={`${id}-amount-${time}`}
              label={`Amount in the ${TIME_LABELS[time].toLowerCase()}`}
              type="number"
              inputMode="decimal"
              min="0.01"
              max="1000"
              step="0.01"
              className="max-w-32"
              value={value.amounts[time] ?? ""}
              onChange={(e) => set({ amounts: { ...value.amounts, [time]: e.target.value } })}
              error={errors[`schedule.amounts.${time}`]}
            />
          ))}
        {value.perTime && errors["schedule.amounts"] && <p className="field-error">{errors["schedule.amounts"]}</p>}
      </div>
    </details>
  );
}
