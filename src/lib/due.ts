/**
 * Issue 48: the one rule of "is anything due on this day" and "at which amount", pure and
 * shared by Today (server and offline card), history, streaks, stock and reminders. The
 * database's copy of the rule, `stacktrack_due_on(schedule, day)` (migration "schedules"),
 * is checked against this one row by row in tests/unit/due-rules.test.ts.
 *
 * Days are calendar dates in the user's zone (`YYYY-MM-DD`); arithmetic is on dates, never on
 * 24-hour steps of an instant, so a clock-change day is a day like any other.
 */
import { addDays, daysBetween, isoWeekday } from "./dates";

/** A schedule as the rule reads it (src/lib/schedule.ts's Schedule, without importing it back). */
export interface Schedule {
  times: readonly string[];
  days: readonly number[];
  startsOn?: string;
  endsOn?: string | null;
  every?: { days: number };
  cycle?: { on: number; off: number };
  amounts?: Partial<Record<string, number>>;
}

/** Whether `schedule` (null: as needed, never "due") has doses on `date`. */
export function isDueOn(schedule: Schedule | null | undefined, date: string): boolean {
  if (!schedule || !Array.isArray(schedule.days) || !schedule.days.includes(isoWeekday(date))) return false;
  const { startsOn, endsOn, every, cycle } = schedule;
  if (startsOn && date < startsOn) return false;
  if (endsOn && date > endsOn) return false;
  if (!startsOn) return true; // every and cycle always carry their start
  const n = daysBetween(startsOn, date);
  if (every) return n % every.days === 0;
  if (cycle) return n % (cycle.on + cycle.off) < cycle.on;
  return true;
}

/** The amount of a dose at `time`: the time's own, else the supplement's (null: none). */
export function amountAt(
  schedule: Schedule | null | undefined,
  time: string,
  doseAmount: number | null,
): number | null {
  const own = schedule?.amounts?.[time];
  return typeof own === "number" ? own : doseAmount;
}

/** The version in force on `date`: the last whose `validFrom` is on or before it (versions in any order). */
export function versionOn<T extends { validFrom: string }>(versions: readonly T[], date: string): T | undefined {
  let found: T | undefined;
  for (const v of versions) if (v.validFrom <= date && (!found || v.validFrom > found.validFrom)) found = v;
  return found;
}

/** How far to look for the next due day: one full cycle of the longest pattern, and a bit. */
const NEXT_DUE_SEARCH_DAYS = 800;

/** The first day on or after `from` with something due; null when none comes (ended, or none in reach). */
export function nextDueOn(schedule: Schedule | null | undefined, from: string): string | null {
  if (!schedule) return null;
  let day = schedule.startsOn && schedule.startsOn > from ? schedule.startsOn : from;
  for (let i = 0; i < NEXT_DUE_SEARCH_DAYS; i++, day = addDays(day, 1)) {
    if (schedule.endsOn && day > schedule.endsOn) return null;
    if (isDueOn(schedule, day)) return day;
  }
  return null;
}

export type ScheduleState = "active" | "off" | "upcoming" | "ended";

/** `status` of a supplement's answer: where its schedule stands on the user's `today`. */
export interface ScheduleStatus {
  state: ScheduleState;
  dayOfCycle?: number;
  cycleLength?: number;
  nextDueOn?: string;
}

/** Where `schedule` stands on `today` (null for as needed). */
export function scheduleStatus(schedule: Schedule | null | undefined, today: string): ScheduleStatus | null {
  if (!schedule) return null;
  const next = nextDueOn(schedule, today);
  const withNext = (status: ScheduleStatus): ScheduleStatus => (next ? { ...status, nextDueOn: next } : status);
  if (schedule.startsOn && today < schedule.startsOn) return withNext({ state: "upcoming" });
  if (schedule.endsOn && today > schedule.endsOn) return { state: "ended" };
  if (schedule.cycle && schedule.startsOn) {
    const { on, off } = schedule.cycle;
    const day = (daysBetween(schedule.startsOn, today) % (on + off)) + 1;
    if (day <= on) return withNext({ state: "active", dayOfCycle: day, cycleLength: on });
    return withNext({ state: "off" });
  }
  return withNext({ state: isDueOn(schedule, today) ? "active" : "off" });
}
