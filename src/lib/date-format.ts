/**
 * The app's one way to write a date (issue 38), one style per kind, the same in every locale:
 * long `27 November 2026`, short `27 Nov`, weekday `Friday 27 November`, and a moment
 * `27 November 2026, 14:05`. A calendar date (`YYYY-MM-DD`) is written as it is; an instant
 * (a Date or an ISO string) as the date it is in `timeZone` (UTC unless given: server and
 * browser then write the same text, so hydration agrees).
 */
import { wallClockIn } from "./dates";

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

interface Parts {
  year: number;
  month: number; // 1-12
  day: number;
  weekday: number; // 0 = Sunday
  hour: number;
  minute: number;
}

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function partsOf(value: string | Date, timeZone = "UTC"): Parts | null {
  const calendar = typeof value === "string" ? CALENDAR_DATE.exec(value) : null;
  const at = calendar
    ? new Date(Date.UTC(Number(calendar[1]), Number(calendar[2]) - 1, Number(calendar[3])))
    : new Date(value);
  if (Number.isNaN(at.getTime())) return null;
  const { year, month, day, hour, minute } = wallClockIn(calendar ? "UTC" : timeZone, at);
  return {
    year,
    month,
    day,
    weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay(),
    hour,
    minute,
  };
}

const month = (p: Parts) => MONTHS[p.month - 1] as string;

/** `27 November 2026` ('' for an invalid date). */
export function formatLong(value: string | Date, timeZone?: string): string {
  const p = partsOf(value, timeZone);
  return p ? `${p.day} ${month(p)} ${p.year}` : "";
}

/** `27 Nov`. */
export function formatShort(value: string | Date, timeZone?: string): string {
  const p = partsOf(value, timeZone);
  return p ? `${p.day} ${month(p).slice(0, 3)}` : "";
}

/** `Friday 27 November`. */
export function formatWeekday(value: string | Date, timeZone?: string): string {
  const p = partsOf(value, timeZone);
  return p ? `${WEEKDAYS[p.weekday]} ${p.day} ${month(p)}` : "";
}

/** `27 November 2026, 14:05` (24-hour clock). */
export function formatMoment(value: string | Date, timeZone?: string): string {
  const p = partsOf(value, timeZone);
  if (!p) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${p.day} ${month(p)} ${p.year}, ${pad(p.hour)}:${pad(p.minute)}`;
}
