/**
 * The schedule part of the Add/Edit Supplement dialog (issue 19): 'Amount per dose', 'When',
 * 'Days' and the 'As needed' switch (which hides When and Days).
 */
import { useId } from "react";
import Field from "../../components/Field";
import type { AsNeededLimits } from "../../lib/as-needed";
import { doseNoun } from "../../lib/dose";
import {
  ALL_DAYS,
  DEFAULT_SCHEDULE,
  DOSE_TIMES,
  type DoseTime,
  type Schedule,
  TIME_LABELS,
  WEEKDAY_LABELS,
  WEEKDAY_SHORT_LABELS,
} from "../../lib/schedule";
import ScheduleMoreOptions, { type MoreValue, morePayload, moreValueOf } from "./ScheduleMoreOptions";

export interface ScheduleValue {
  asNeeded: boolean;
  times: DoseTime[];
  days: number[];
  /** As typed; '' for none. */
  doseAmount: string;
  /** Issue 48: start, end, repeat and amounts per time ('More options'). */
  more: MoreValue;
  /** Issue 48: an as-needed supplement's limits as typed; '' for none. */
  maxPerDay: string;
  minHoursBetween: string;
}

export function scheduleValueOf(
  source?: { schedule?: Schedule | null; doseAmount?: number | null; asNeeded?: AsNeededLimits | null } | null,
): ScheduleValue {
  const schedule = source?.schedule === undefined ? DEFAULT_SCHEDULE : source.schedule;
  return {
    asNeeded: schedule === null,
    times: schedule ? [...schedule.times] : [...DEFAULT_SCHEDULE.times],
    days: schedule ? [...schedule.days] : [...DEFAULT_SCHEDULE.days],
    doseAmount: source?.doseAmount == null ? "" : String(source.doseAmount),
    more: moreValueOf(schedule),
    maxPerDay: source?.asNeeded?.maxPerDay == null ? "" : String(source.asNeeded.maxPerDay),
    minHoursBetween: source?.asNeeded?.minHoursBetween == null ? "" : String(source.asNeeded.minHoursBetween),
  };
}

/** A typed number, null when empty (NaN is left for the rule to refuse). */
const typedNumber = (typed: string) => (typed.trim() === "" ? null : Number(typed.trim()));

/**
 * The body fields: `schedule`, `doseAmount` (a number, or null when empty; NaN is left for the
 * rule to refuse) and, as needed, `asNeeded` (a schedule set clears the limits on the server).
 */
export function schedulePayload(value: ScheduleValue): {
  schedule: Schedule | null;
  doseAmount: number | null;
  asNeeded?: { maxPerDay: number | null; minHoursBetween: number | null };
} {
  const amount = value.doseAmount.trim();
  const limits = value.asNeeded
    ? { asNeeded: { maxPerDay: typedNumber(value.maxPerDay), minHoursBetween: typedNumber(value.minHoursBetween) } }
    : {};
  return {
    ...limits,
    schedule: value.asNeeded
      ? null
      : {
          times: value.times,
          // Every N days and cycles count all seven days.
          days: value.more.repeat === "days" ? value.days : [...ALL_DAYS],
          ...morePayload(value.more, value.times),
        },
    doseAmount: amount === "" ? null : Number(amount),
  };
}

interface Props {
  value: ScheduleValue;
  onChange: (next: ScheduleValue) => void;
  quantityType: string;
  /** Messages by field: `doseAmount`, `schedule.times`, `schedule.days`, `schedule`, `asNeeded.maxPerDay`… */
  errors: Record<string, string | undefined>;
}

export default function ScheduleFields({ value, onChange, quantityType, errors }: Props) {
  const id = useId();
  const everyDay = value.days.length === 7;
  const timesError = errors["schedule.times"] ?? errors.schedule;
  const daysError = errors["schedule.days"];

  const toggleTime = (time: DoseTime) => {
    const has = value.times.includes(time);
    let times: DoseTime[];
    if (time === "anytime") times = has ? [] : ["anytime"];
    else {
      const others = value.times.filter((t) => t !== "anytime" && t !== time);
      times = has ? others : [...others, time];
    }
    onChange({ ...value, times: DOSE_TIMES.filter((t) => times.includes(t)) });
  };
  const toggleDay = (day: number) => {
    const days = value.days.includes(day) ? value.days.filter((d) => d !== day) : [...value.days, day];
    onChange({ ...value, days: days.sort((a, b) => a - b) });
  };

  return (
    <div className="space-y-4">
      <Field
        id={`${id}-amount`}
        label="Amount per dose"
        type="number"
        inputMode="decimal"
        min="0.01"
        max="1000"
        step="0.01"
        className="max-w-32"
        placeholder="e.g., 2"
        value={value.doseAmount}
        onChange={(e) => onChange({ ...value, doseAmount: e.target.value })}
        describedBy={`${id}-amount-unit`}
        error={errors.doseAmount}
        suffix={
          <span id={`${id}-amount-unit`} className="min-w-0 text-sm text-slate-700">
            {doseNoun(Number.parseFloat(value.doseAmount) || null, quantityType)}
          </span>
        }
      />
      <div className="flex items-center justify-between gap-3">
        <span id={`${id}-as-needed`} className="text-sm font-medium text-slate-800">
          As needed
        </span>
        <button
          type="button"
          role="switch"
          aria-checked={value.asNeeded}
          aria-labelledby={`${id}-as-needed`}
          onClick={() => onChange({ ...value, asNeeded: !value.asNeeded })}
          className={`relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition-colors ${value.asNeeded ? "bg-brand-700" : "bg-slate-400"}`}
        >
          <span
            aria-hidden="true"
            className={`inline-block size-5 rounded-full bg-white shadow transition-transform ${value.asNeeded ? "translate-x-5" : "translate-x-0.5"}`}
          />
        </button>
      </div>
      {value.asNeeded && (
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            id={`${id}-max-per-day`}
            label="Limit per day"
            hint="At most this many a day; empty for no limit"
            type="number"
            inputMode="numeric"
            min="1"
            max="24"
            step="1"
            className="max-w-32"
            value={value.maxPerDay}
            onChange={(e) => onChange({ ...value, maxPerDay: e.target.value })}
            error={errors["asNeeded.maxPerDay"] ?? errors.asNeeded}
          />
          <Field
            id={`${id}-min-hours`}
            label="Hours between doses"
            hint="At least this long apart; empty for no limit"
            type="number"
            inputMode="decimal"
            min="0.5"
            max="48"
            step="0.5"
            className="max-w-32"
            value={value.minHoursBetween}
            onChange={(e) => onChange({ ...value, minHoursBetween: e.target.value })}
            error={errors["asNeeded.minHoursBetween"]}
          />
        </div>
      )}
      {!value.asNeeded && (
        <>
          <fieldset aria-describedby={timesError ? `${id}-times-error` : undefined}>
            <legend className="field-label">When</legend>
            <div className="flex flex-wrap gap-x-4 gap-y-2">
              {DOSE_TIMES.map((time) => (
                <label key={time} className="inline-flex min-h-8 items-center gap-2 text-sm text-slate-800">
                  <input
                    type="checkbox"
                    className="size-4 accent-brand-700"
                    checked={value.times.includes(time)}
                    onChange={() => toggleTime(time)}
                  />
                  {TIME_LABELS[time]}
                </label>
              ))}
            </div>
            {timesError && (
              <p id={`${id}-times-error`} className="field-error">
                {timesError}
              </p>
            )}
          </fieldset>
          {value.more.repeat === "days" && (
            <fieldset aria-describedby={daysError ? `${id}-days-error` : undefined}>
              <legend className="field-label">Days</legend>
              <label className="inline-flex min-h-8 items-center gap-2 text-sm text-slate-800">
                <input
                  type="checkbox"
                  className="size-4 accent-brand-700"
                  checked={everyDay}
                  onChange={() => onChange({ ...value, days: everyDay ? [] : [...ALL_DAYS] })}
                />
                Every day
              </label>
              {!everyDay && (
                <div className="mt-2 flex flex-wrap gap-1.5">
                  {ALL_DAYS.map((day) => (
                    <button
                      key={day}
                      type="button"
                      aria-pressed={value.days.includes(day)}
                      onClick={() => toggleDay(day)}
                      className={`min-h-9 min-w-11 rounded-lg border px-2 text-sm font-semibold ${value.days.includes(day) ? "border-brand-700 bg-brand-700 text-white" : "border-slate-300 bg-white text-slate-800 hover:bg-slate-100"}`}
                    >
                      <span aria-hidden="true">{WEEKDAY_SHORT_LABELS[day - 1]}</span>
                      <span className="sr-only">{WEEKDAY_LABELS[day - 1]}</span>
                    </button>
                  ))}
                </div>
              )}
              {daysError && (
                <p id={`${id}-days-error`} className="field-error">
                  {daysError}
                </p>
              )}
            </fieldset>
          )}
          <ScheduleMoreOptions
            value={value.more}
            times={value.times}
            onChange={(more) => onChange({ ...value, more })}
            errors={errors}
          />
        </>
      )}
    </div>
  );
}
