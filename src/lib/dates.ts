/**
 * Calendar dates (`YYYY-MM-DD`) and a user's 'today' in an IANA time zone, with Intl only.
 * Shared by the server (api/tracking) and the islands: one rule for what day it is.
 * Day arithmetic is on calendar dates, never on 24-hour steps of an instant, so a
 * clock-change day is one day like any other.
 */

const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** The browser's IANA zone, or null where Intl cannot tell (the islands only). */
export function browserZone(): string | null {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || null;
  } catch {
    return null;
  }
}

/** Today in the user's zone; before one is stored, the browser's (as Today's card does). */
export const todayIn = (timeZone: string | null | undefined, now: number = Date.now()) =>
  dateIn(timeZone ?? browserZone() ?? "UTC", now);

/** The wall clock of an instant in a zone: month 1-12, hour 0-23. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const wallFormats = new Map<string, Intl.DateTimeFormat>();

/** What a clock on the wall in `timeZone` shows at instant `at` (the one Intl formatter per zone). */
export function wallClockIn(timeZone: string, at: Date | number): WallClock {
  let format = wallFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      calendar: "gregory",
      numberingSystem: "latn",
    });
    if (wallFormats.size >= 500) wallFormats.clear();
    wallFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(at);
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  return {
    year: get("year"),
    month: get("month"),
    day: get("day"),
    hour: get("hour") % 24,
    minute: get("minute"),
    second: get("second"),
  };
}

/** The calendar date of instant `at` in `timeZone` (UTC when null). */
export function dateIn(timeZone: string | null | undefined, at: Date | number): string {
  const wall = wallClockIn(timeZone || "UTC", at);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${String(wall.year).padStart(4, "0")}-${two(wall.month)}-${two(wall.day)}`;
}

/** Whether `value` is a real calendar date written `YYYY-MM-DD` (no 2026-02-30). */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const match = DATE_SHAPE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Days since 1970-01-01 of a calendar date (its own count, not an instant). */
function dayNumber(date: string): number {
  const match = DATE_SHAPE.exec(date);
  if (!match) throw new RangeError(`Not a calendar date: ${date}`);
  const utc = new Date(0);
  utc.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Math.round(utc.getTime() / DAY_MS);
}

function fromDayNumber(day: number): string {
  const date = new Date(day * DAY_MS);
  const year = String(date.getUTCFullYear()).padStart(4, "0");
  const month = String(date.getUTCMonth() + 1).padStart(2, "0");
  const dd = String(date.getUTCDate()).padStart(2, "0");
  return `${year}-${month}-${dd}`;
}

/** The calendar date `days` after `date` (before, when negative). */
export const addDays = (date: string, days: number): string => fromDayNumber(dayNumber(date) + days);

/** How many calendar days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number => dayNumber(to) - dayNumber(from);

/** ISO weekday of a calendar date: 1 = Monday … 7 = Sunday. */
export function isoWeekday(date: string): number {
  const day = new Date(dayNumber(date) * DAY_MS).getUTCDay();
  return day === 0 ? 7 : day;
}

/** Every date from `from` to `to`, both included, oldest first. */
export function dateRange(from: string, to: string): string[] {
  const out: string[] = [];
  for (let day = dayNumber(from), last = dayNumber(to); day <= last; day++) out.push(fromDayNumber(day));
  return out;
}

const WEEKDAY_SHORT = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;
const MONTH_SHORT = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

/** 'Mon 16 Nov' for 2026-11-16 (the heatmap's cell names). */
export function shortDayLabel(date: string): string {
  const [, month, day] = date.split("-").map(Number) as [number, number, number];
  return `${WEEKDAY_SHORT[isoWeekday(date) - 1]} ${day} ${MONTH_SHORT[month - 1]}`;
}

/**
 * An IANA zone name the runtime knows, in its canonical spelling: a legacy alias becomes the
 * zone it links to (`US/Pacific` → `America/Los_Angeles`, `Asia/Calcutta` → `Asia/Kolkata`;
 * issue 45) where the runtime has Temporal, which compares zones by their primary name; null
 * for anything else (offsets like `+01:00`, unknown names, over-long text).
 */
export function canonicalTimeZone(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 64) return null;
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(value)) return null;
  let zone: string;
  try {
    zone = new Intl.DateTimeFormat("en-US", { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  return primaryZone(zone);
}

const primaries = new Map<string, string>();

/** The primary zone of `zone` (itself when it is one, or without Temporal). */
function primaryZone(zone: string): string {
  const known = primaries.get(zone);
  if (known) return known;
  const canonical = Intl.supportedValuesOf("timeZone");
  let primary = zone;
  const temporal = (globalThis as { Temporal?: TemporalLike }).Temporal;
  if (!canonical.includes(zone) && temporal) {
    const here = temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(zone);
    primary = canonical.find((c) => here.equals(here.withTimeZone(c))) ?? zone;
  }
  primaries.set(zone, primary);
  return primary;
}

/** The bit of Temporal primaryZone uses (not in every runtime's types yet). */
interface TemporalLike {
  Instant: {
    fromEpochMilliseconds(ms: number): {
      toZonedDateTimeISO(zone: string): { equals(other: unknown): boolean; withTimeZone(zone: string): unknown };
    };
  };
}
