/**
 * As needed, counted (issue 48): an as-needed supplement's limits (at most N a day, at least H
 * hours apart), a day's count, and what Today says of them. Pure rules shared by the API
 * (api/tracking) and the card; the zod schema is in validation.ts. See docs/tracking.md.
 */
import type { AsNeededLimits } from "./as-needed-input";
import { clockTime, msToNextMidnight } from "./today-rules";

export type { AsNeededLimits } from "./as-needed-input";

/** `That is more than your limit of 3 a day` */
export const overLimitWarning = (maxPerDay: number) => `That is more than your limit of ${maxPerDay} a day`;
/** `Your next dose was due after 14:30` (the user's zone, 24-hour) */
export const tooSoonWarning = (time: string) => `Your next dose was due after ${time}`;

const HOUR_MS = 3_600_000;

/** What the log says of a day's as-needed supplement: the times of its last two doses still counted. */
export interface AsNeededLog {
  count: number;
  /** The latest tick that raised the count to where it is (ISO); null at 0. */
  lastTakenAt: string | null;
  /** The dose before that one (the day before's last when today has at most one); null if none. */
  previousTakenAt: string | null;
}

export interface AsNeededState {
  count: number;
  lastTakenAt: string | null;
  /** With limits: when the next dose is within them (ISO), null when it is now. */
  nextAllowedAt?: string | null;
  /** The day's last dose broke a limit: over the day's limit, or too soon after the one before. */
  warning?: string;
}

/**
 * A day's state at `now` (ms) in `zone`: the count, the last dose, and with limits when the
 * next one is allowed (the day's limit reached: the next midnight; else the last dose plus the
 * hours between, if still ahead) and the warning the last dose earned.
 */
export function asNeededState(
  log: AsNeededLog,
  limits: AsNeededLimits | null,
  now: number,
  zone: string,
): AsNeededState {
  const base = { count: log.count, lastTakenAt: log.lastTakenAt };
  if (!limits) return base;
  const { maxPerDay, minHoursBetween } = limits;
  const last = log.lastTakenAt === null ? null : Date.parse(log.lastTakenAt);
  const gapMs = minHoursBetween === null ? 0 : minHoursBetween * HOUR_MS;
  // The latest dose counted, the day before's when none today (a limit runs across midnight).
  const latest = last ?? (log.previousTakenAt === null ? null : Date.parse(log.previousTakenAt));
  let next: number | null = null;
  if (maxPerDay !== null && log.count >= maxPerDay) next = now + msToNextMidnight(zone, now) - 1000;
  if (latest !== null && gapMs > 0 && latest + gapMs > now) next = Math.max(next ?? 0, latest + gapMs);
  const state: AsNeededState = { ...base, nextAllowedAt: next === null ? null : new Date(next).toISOString() };
  if (maxPerDay !== null && log.count > maxPerDay) state.warning = overLimitWarning(maxPerDay);
  else if (last !== null && gapMs > 0 && log.previousTakenAt !== null) {
    const allowed = Date.parse(log.previousTakenAt) + gapMs;
    if (last < allowed) state.warning = tooSoonWarning(clockTime(zone, allowed));
  }
  return state;
}

/**
 * Today's line under the row: `2 of 3 today · next after 14:30` (with a daily limit), `2 today`
 * (without); `next after` only when the next dose is allowed later the same day. Empty at 0
 * without a daily limit.
 */
export function countLine(state: AsNeededState, limits: AsNeededLimits | null, zone: string, now: number): string {
  const max = limits?.maxPerDay ?? null;
  const counted = max === null ? (state.count > 0 ? `${state.count} today` : "") : `${state.count} of ${max} today`;
  const next = state.nextAllowedAt ? Date.parse(state.nextAllowedAt) : null;
  const sameDay = next !== null && next - now < msToNextMidnight(zone, now) - 1000;
  if (!sameDay || next === null) return counted;
  const after = `next after ${clockTime(zone, next)}`;
  return counted ? `${counted} · ${after}` : after;
}

/** Whether one more at `now` breaks a limit (the card asks first). */
export const oneMoreBreaksLimit = (state: AsNeededState, now: number): boolean =>
  typeof state.nextAllowedAt === "string" && Date.parse(state.nextAllowedAt) > now;
