/**
 * Issue 48: the list row's words for where a schedule stands on the user's `today`, exactly one
 * of `Day 3 of 21`, `Off until 12 December`, `Every 2 days · next 4 December`,
 * `Starts 1 January`, `Ended 3 December`; '' when none applies (chosen weekdays, a due day).
 * Dates as stock writes them (with the year when it is not today's).
 */
import type { Schedule, ScheduleStatus } from "./due";
import { runsOutWords } from "./stock";

/** From the answer's `status` (src/lib/due.ts scheduleStatus, computed for the user's `today`). */
export function scheduleStatusLine(
  schedule: Schedule | null | undefined,
  status: ScheduleStatus | null | undefined,
  today: string,
): string {
  if (!status || !schedule) return "";
  const { state, nextDueOn: next } = status;
  const date = (day?: string | null) => runsOutWords(day as string, today);
  if (state === "upcoming") return `Starts ${date(schedule.startsOn)}`;
  if (state === "ended") return `Ended ${date(schedule.endsOn)}`;
  if (status.dayOfCycle) return `Day ${status.dayOfCycle} of ${status.cycleLength}`;
  if (state !== "off" || !next) return "";
  if (schedule.cycle) return `Off until ${date(next)}`;
  return schedule.every ? `Every ${schedule.every.days} days · next ${date(next)}` : "";
}
