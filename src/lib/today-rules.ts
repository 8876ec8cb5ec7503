/**
 * Today's pure rules (issue 51), shared by the card and its offline store and tested as tables
 * in tests/unit/today-rules.test.ts: how long a waiting tick waits before the next try, when
 * the user's next midnight is, how a kept copy's time and the day's progress read, and a day's
 * answer with this device's changes laid over it.
 */
import { wallClockIn } from "./dates";
import { AS_NEEDED, type IntakeStatus, type IntakeTime, type TodayJson } from "./schedule";

/** The first retry of a waiting tick comes after this, each next one after twice as long… */
export const RETRY_FIRST_MS = 2_000;
/** …up to this: a tick waits at most this long once the server is reachable again (plus its request). */
export const RETRY_MAX_MS = 30_000;

/** The wait before retry number `attempt` (0 for the first): 2 s, 4 s, 8 s, 16 s, then every 30 s. */
export function retryDelay(attempt: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, Math.min(attempt, 10)));
}

/**
 * Milliseconds from `now` until one second past the next midnight on the wall clock of `zone`
 * (a clock-change day may make it an hour early or late: the card's periodic check covers that).
 */
export function msToNextMidnight(zone: string, now: number): number {
  const wall = wallClockIn(zone, now);
  const intoDay = (wall.hour * 3600 + wall.minute * 60 + wall.second) * 1000 + (((now % 1000) + 1000) % 1000);
  return 86_400_000 - intoDay + 1000;
}

/** `08:14`: the wall-clock time of `at` in `zone`, 24-hour. */
export function clockTime(zone: string, at: number): string {
  const wall = wallClockIn(zone, at);
  return `${String(wall.hour).padStart(2, "0")}:${String(wall.minute).padStart(2, "0")}`;
}

/** The card's label when it shows a kept copy: `Offline · as of 08:14` (or `Offline` for a planned day). */
export function offlineLabel(zone: string, confirmedAt: number | null): string {
  return confirmedAt === null ? "Offline" : `Offline · as of ${clockTime(zone, confirmedAt)}`;
}

/** `4 of 5 taken`, and `· 1 skipped` when any dose was skipped. */
export function progressText(taken: number, due: number, skipped: number): string {
  return skipped > 0 ? `${taken} of ${due} taken · ${skipped} skipped` : `${taken} of ${due} taken`;
}

/** Every due dose taken or skipped: `All done for today`, with `(1 skipped)` / `(2 skipped)` when any was skipped. */
export function allDoneText(isToday: boolean, skipped: number): string {
  const done = isToday ? "All done for today" : "All done for that day";
  return skipped > 0 ? `${done} (${skipped} skipped)` : done;
}

export interface DoseChange {
  supplementId: number;
  time: IntakeTime;
  status: IntakeStatus | null;
  /** Issue 48: an as-needed dose's new count. */
  count?: number;
}

/** `day` with `changes` laid over its doses (the last change to a dose wins; `summary` is left as it was: the card counts its rows). */
export function withStatuses(day: TodayJson, changes: readonly DoseChange[]): TodayJson {
  const changeOf = (supplementId: number, time: string) =>
    changes.findLast((c) => c.supplementId === supplementId && c.time === time);
  const doses = day.doses.map((d) => {
    const change = changeOf(d.supplementId, d.time);
    return change ? { ...d, status: change.status } : d;
  });
  const asNeeded = day.asNeeded.map((d) => {
    const change = changeOf(d.supplementId, AS_NEEDED);
    if (!change) return d;
    const count = change.count ?? (change.status === "taken" ? Math.max(1, d.count ?? 0) : 0);
    return { ...d, count, status: count > 0 ? ("taken" as const) : null };
  });
  return { ...day, doses, asNeeded };
}
