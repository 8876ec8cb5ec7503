/** Issue 38 §4: one date style per kind (src/lib/date-format.ts), as a table. */
import { describe, expect, test } from "bun:test";
import { formatLong, formatMoment, formatShort, formatWeekday } from "../../src/lib/date-format";

const CASES: [string, string | Date, string | undefined, string, string, string][] = [
  // what, value, zone, long, short, weekday
  ["a calendar date", "2026-11-27", undefined, "27 November 2026", "27 Nov", "Friday 27 November"],
  [
    "a calendar date ignores the zone",
    "2026-11-27",
    "Pacific/Kiritimati",
    "27 November 2026",
    "27 Nov",
    "Friday 27 November",
  ],
  ["September is Sep, not Sept", "2026-09-03", undefined, "3 September 2026", "3 Sep", "Thursday 3 September"],
  ["a leap day", "2028-02-29", undefined, "29 February 2028", "29 Feb", "Tuesday 29 February"],
  [
    "an instant, in UTC by default",
    "2026-11-27T23:30:00Z",
    undefined,
    "27 November 2026",
    "27 Nov",
    "Friday 27 November",
  ],
  [
    "an instant east of UTC is the next day",
    "2026-11-27T23:30:00Z",
    "Asia/Tokyo",
    "28 November 2026",
    "28 Nov",
    "Saturday 28 November",
  ],
  [
    "an instant west of UTC",
    new Date("2026-01-01T03:00:00Z"),
    "America/New_York",
    "31 December 2025",
    "31 Dec",
    "Wednesday 31 December",
  ],
];

describe("date styles", () => {
  test.each(CASES)("%s", (_what, value, zone, long, short, weekday) => {
    expect(formatLong(value, zone)).toBe(long);
    expect(formatShort(value, zone)).toBe(short);
    expect(formatWeekday(value, zone)).toBe(weekday);
  });

  test.each([
    ["2026-11-27T14:05:00Z", undefined, "27 November 2026, 14:05"],
    ["2026-11-27T00:05:00Z", undefined, "27 November 2026, 00:05"],
    ["2026-11-27T14:05:00Z", "Europe/Berlin", "27 November 2026, 15:05"],
  ] as const)("a moment: %s in %s is %s", (value, zone, text) => {
    expect(formatMoment(value, zone)).toBe(text);
  });

  test.each(["", "not a date", "2026-13-45T00:00:00Z"])("%p is written as nothing", (value) => {
    expect(formatLong(value)).toBe("");
    expect(formatShort(value)).toBe("");
  });
});
