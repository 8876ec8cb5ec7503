/**
 * The History heatmap's colour scale (issue 19): a day's colour comes from taken ÷ (taken +
 * missed), with its own styles for 'nothing due' and for days where nothing counts yet
 * (today's pending doses, all skipped). One table for the cells and their legend, so the key
 * always says what the colours mean. User-facing labels; no imports (islands ship this).
 */
import type { HistoryDay } from "./schedule";

export const HEATMAP_LEVELS = ["none", "pending", "zero", "low", "high", "all"] as const;
export type HeatmapLevel = (typeof HEATMAP_LEVELS)[number];

/** The legend's words for each level, and for the today marker. */
export const HEATMAP_LABELS: Record<HeatmapLevel | "today", string> = {
  none: "Nothing due",
  pending: "Pending or skipped",
  zero: "None taken",
  low: "Under half taken",
  high: "Half or more taken",
  all: "All taken",
  today: "Today",
};

/**
 * The level of a day: nothing due; nothing counted (pending, skipped); else by taken ÷ (taken +
 * missed). Today (issue 38), whose open doses are not missed yet, goes by taken ÷ its doses due
 * so far that were not skipped: 3 of 5 is not 'All taken'.
 */
export function heatmapLevel(
  day: Pick<HistoryDay, "due" | "taken" | "missed" | "skipped">,
  isToday = false,
): HeatmapLevel {
  if (day.due === 0) return "none";
  if (isToday && day.taken === 0) return "pending";
  const counted = isToday ? day.due - day.skipped : day.taken + day.missed;
  if (counted === 0) return "pending";
  const ratio = day.taken / counted;
  if (ratio === 0) return "zero";
  if (ratio < 0.5) return "low";
  if (ratio < 1) return "high";
  return "all";
}
