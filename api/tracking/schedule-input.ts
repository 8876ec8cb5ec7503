/**
 * Issue 48: the rules of a schedule that need the user's today (the body's shape is checked by
 * scheduleSchema in src/lib/validation.ts): startsOn defaults to the day the schedule is set
 * (stored when every N days or a cycle counts from it) and lies at most 366 days from it;
 * endsOn is on or after the start. A 400 names the field.
 */
import { daysBetween } from "../../src/lib/dates";
import type { Schedule } from "../../src/lib/schedule";
import { SCHEDULE_RULE_MESSAGES as RULES, STARTS_ON_REACH_DAYS } from "../../src/lib/schedule-rules";
import { badRequest } from "../lib/http";

export function completeSchedule(schedule: Schedule | null, today: string): Schedule | null {
  if (schedule === null) return null;
  const startsOn = schedule.startsOn ?? today;
  // Chosen days alone need no start: the version from today is that day (and a dose of the
  // days before a supplement was added stays tickable, as before). Every N days and cycles
  // count from it, so it is stored.
  const stored = schedule.startsOn !== undefined || schedule.every !== undefined || schedule.cycle !== undefined;
  if (Math.abs(daysBetween(today, startsOn)) > STARTS_ON_REACH_DAYS) {
    throw badRequest(RULES.startsOn, { "schedule.startsOn": [RULES.startsOn] });
  }
  if (schedule.endsOn && schedule.endsOn < startsOn) {
    throw badRequest(RULES.endsOn, { "schedule.endsOn": [RULES.endsOn] });
  }
  if (!stored) return schedule;
  const { times, days, ...rest } = schedule;
  return { times, days, startsOn, ...rest };
}
