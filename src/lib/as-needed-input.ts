/**
 * As needed, counted (issue 48): the bounds of an as-needed supplement's limits and of a day's
 * count, and their messages, for the forms and the API (validation.ts, api/tracking). No imports:
 * the dialog's chunk takes nothing of Today's with it. The rules Today applies: as-needed.ts.
 */

export interface AsNeededLimits {
  /** At most this many a day (1–24); null: no limit. */
  maxPerDay: number | null;
  /** At least this many hours between two (0.5–48, in steps of 0.5); null: no limit. */
  minHoursBetween: number | null;
}

export const MAX_PER_DAY_MAX = 24;
export const MIN_HOURS_MIN = 0.5;
export const MIN_HOURS_MAX = 48;
/** The most one day's count of an as-needed supplement may be. */
export const AS_NEEDED_COUNT_MAX = 24;

export const AS_NEEDED_MESSAGES = {
  shape: "Limits must be an object with maxPerDay and minHoursBetween (or null)",
  maxPerDay: `Limit per day must be a whole number from 1 to ${MAX_PER_DAY_MAX}`,
  minHoursBetween: `Hours between doses must be from ${MIN_HOURS_MIN} to ${MIN_HOURS_MAX}, in steps of 0.5`,
  scheduled: "Limits are only for supplements taken as needed",
  count: `Count must be a whole number from 0 to ${AS_NEEDED_COUNT_MAX}`,
  body: 'Send a count (0 to 24) or a status ("taken" or null)',
  confirm: "Take another anyway?",
} as const;

/** Limits with neither set are none (stored null). */
export const limitsOrNull = (limits: AsNeededLimits | null | undefined): AsNeededLimits | null =>
  limits && (limits.maxPerDay !== null || limits.minHoursBetween !== null) ? limits : null;
