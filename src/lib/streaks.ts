/**
 * History's numbers from its days (docs/tracking.md): pure, shared by the API and the
 * History card.
 * - A day is kept when it has a taken dose and nothing missed; a missed dose breaks a
 *   streak; any other day (nothing due, all skipped) is neutral. Today is kept only once
 *   every due dose is taken or skipped (with one taken); until then it is neutral.
 * - Adherence = Σ taken ÷ Σ (taken + missed + skipped) over ended days (a skip is not a take,
 *   issue 51); null when that is 0.
 */
import type { HistoryDay } from "./schedule";

export type DayKind = "kept" | "broken" | "neutral";

export function dayKind(day: HistoryDay, today: string): DayKind {
  if (day.date === today) {
    return day.due > 0 && day.taken + day.skipped >= day.due && day.taken > 0 ? "kept" : "neutral";
  }
  if (day.missed > 0) return "broken";
  return day.taken > 0 ? "kept" : "neutral";
}

/** Kept days back from today (the days are oldest first and end today). */
export function currentStreak(days: readonly HistoryDay[], today: string): number {
  let streak = 0;
  for (let i = days.length - 1; i >= 0; i--) {
    const kind = dayKind(days[i] as HistoryDay, today);
    if (kind === "broken") break;
    if (kind === "kept") streak++;
  }
  return streak;
}

export function longestStreak(days: readonly HistoryDay[], today: string): number {
  let longest = 0;
  let run = 0;
  for (const day of days) {
    const kind = dayKind(day, today);
    if (kind === "broken") run = 0;
    else if (kind === "kept") longest = Math.max(longest, ++run);
  }
  return longest;
}

/** Σ taken ÷ Σ (taken + missed + skipped) over the ended days among `days`; null when nothing counts. */
export function adherence(days: readonly HistoryDay[], today: string): number | null {
  let taken = 0;
  let counted = 0;
  for (const day of days) {
    if (day.date >= today) continue;
    taken += day.taken;
    counted += day.taken + day.missed + day.skipped;
  }
  return counted === 0 ? null : taken / counted;
}
