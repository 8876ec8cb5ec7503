/**
 * The History heatmap's colour scale (issue 19): a day's colour comes from taken ÷ (taken +
 * missed + skipped), with its own styles for 'nothing due', for days where nothing counts yet
 * (today's pending doses) and for a day done with skips (issue 51). One table for the cells and their legend, so the key
 * always says what the colours mean. User-facing labels; no imports (islands ship this).
 */
import type { HistoryDay } from "./schedule";

export const HEATMAP_LEVELS = ["none", "pending", "zero", "low", "high", "skipped", "all"] as const;
export type HeatmapLevel = (typeof HEATMAP_LEVELS)[number];

/** The legend's words for each level, and for the today marker. */
export const HEATMAP_LABELS: Record<HeatmapLevel | "today", string> = {
  none: "Nothing due",
  pending: "Pending",
  zero: "None taken",
  low: "Under half taken",
  high: "Half or more taken",
  skipped: "All done, some skipped",
  all: "All taken",
  today: "Today",
};

/** What the legend says under the colours: how skips count (issue 51). */
export const HEATMAP_NOTE =
  "Adherence counts a skipped dose as not taken. A streak day has a dose taken and none missed; a day of skips neither adds to a streak nor breaks it.";

/** A done day with skips, in a cell's name: `All done, 1 skipped`, `All done, 2 skipped`. */
export const allDoneSkipped = (skipped: number) => `All done, ${skipped} skipped`;

/**
 * The level of a day: nothing due; done with skips (every dose taken or skipped, at least one
 * skipped, nothing missed: its own colour, never 'All taken'); nothing counted yet; else by
 * taken ÷ the doses that count, a skip counting as not taken (issue 51). Today (issue 38),
 * whose open doses are not missed yet, goes by taken ÷ its doses due: 3 of 5 is not 'All taken'.
 */
export function heatmapLevel(
  day: Pick<HistoryDay, "due" | "taken" | "missed" | "skipped">,
  isToday = false,
): HeatmapLevel {
  if (day.due === 0) return "none";
  const done = isToday ? day.taken + day.skipped >= day.due : day.missed === 0;
  if (done && day.skipped > 0) return "skipped";
  if (isToday && day.taken === 0) return "pending";
  const counted = isToday ? day.due : day.taken + day.missed + day.skipped;
  if (counted === 0) return "pending";
  const ratio = day.taken / counted;
  if (ratio === 0) return "zero";
  if (ratio < 0.5) return "low";
  if (ratio < 1) return "high";
  return "all";
}
