/**
 * When a reminder is due: a slot's clock time on a local date in the user's zone, as an
 * instant. Pure functions over Intl's tz data; the planner asks them with `now()` from
 * api/clock.ts. A time the clocks skip (spring forward) is due at the first minute after the
 * gap; a time that happens twice (fall back) is due at its first occurrence (the outbox key
 * makes it once).
 */
import { addDays, dateIn, wallClockIn } from "../../src/lib/dates";

const MINUTE = 60_000;
/** The wall clock in `zone` at instant `ms`, written as if it were UTC (ms since the epoch). */
export function wallClock(ms: number, zone: string): number {
  const w = wallClockIn(zone, ms);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
}

/** The wall-clock instant of `date` ("YYYY-MM-DD") at `time` ("HH:MM"), as if UTC. */
function wallOf(date: string, time: string): number {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const [h, min] = time.split(":").map(Number) as [number, number];
  return Date.UTC(y, m - 1, d, h, min);
}

/**
 * The instant a slot at `time` on local `date` in `zone` is due: the first instant at which
 * the zone's wall clock shows `date` `time` or later.
 */
export function dueInstant(date: string, time: string, zone: string): Date {
  const wall = wallOf(date, time);
  // Every offset in force within a day of it (tzdb offsets lie within ±26 h).
  const offsets = new Set([-36, 0, 36].map((h) => wallClock(wall + h * 3_600_000, zone) - (wall + h * 3_600_000)));
  const candidates = [...offsets].map((offset) => wall - offset).sort((a, b) => a - b);
  const exact = candidates.find((t) => wallClock(t, zone) === wall);
  if (exact !== undefined) return new Date(exact);
  // In a gap: the first whole minute whose wall clock is at or past `wall`.
  let lo = candidates[0] as number; // its wall clock is before the gap
  let hi = candidates[candidates.length - 1] as number; // after it
  while (hi - lo > MINUTE) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE;
    if (wallClock(mid, zone) >= wall) hi = mid;
    else lo = mid;
  }
  return new Date(hi);
}

export interface DueSlot {
  zone: string;
  time: string;
  date: string;
  dueAt: Date;
}

/**
 * Every (zone, time) occurrence on the zone's yesterday and today that is due at `at` and at
 * most `lookbackMs` old: what the planner may insert (older ones were planned or missed).
 */
export function dueSlots(pairs: { zone: string; time: string }[], at: Date, lookbackMs: number): DueSlot[] {
  const out: DueSlot[] = [];
  const atMs = at.getTime();
  for (const { zone, time } of pairs) {
    const today = dateIn(zone, at);
    for (const date of [addDays(today, -1), today]) {
      const dueAt = dueInstant(date, time, zone);
      const age = atMs - dueAt.getTime();
      if (age >= 0 && age <= lookbackMs) out.push({ zone, time, date, dueAt });
    }
  }
  return out;
}
