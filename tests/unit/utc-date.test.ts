/** utcDate (src/lib/insights.ts): the UTC day of an instant, kept from one call to the next (counting asks per view). */
import { describe, expect, test } from "bun:test";
import { utcDate } from "../../src/lib/insights";

// In this order, so that each call either reuses the day worked out before it or has to leave it.
const INSTANTS = [
  "2026-11-27T12:00:00.000Z",
  "2026-11-27T00:00:00.000Z", // the day's first millisecond
  "2026-11-27T23:59:59.999Z", // its last
  "2026-11-28T00:00:00.000Z", // the next day
  "2026-11-27T23:59:59.999Z", // the clock set back (tests, or a corrected clock)
  "2024-02-29T12:00:00.000Z",
  "2024-03-01T00:00:00.000Z",
  "1970-01-01T00:00:00.000Z",
  "1969-12-31T23:59:59.999Z", // before the epoch
  "1969-12-31T00:00:00.000Z",
  "2026-11-28T05:00:00.000Z",
];

describe("utcDate", () => {
  test.each(INSTANTS.map((iso, i) => [i, iso]))("#%d %s, as a Date and as milliseconds", (_, iso) => {
    const ms = Date.parse(iso);
    expect(utcDate(new Date(ms))).toBe(iso.slice(0, 10));
    expect(utcDate(ms)).toBe(iso.slice(0, 10));
    expect(utcDate(ms + 1)).toBe(new Date(ms + 1).toISOString().slice(0, 10));
    expect(utcDate(ms - 1)).toBe(new Date(ms - 1).toISOString().slice(0, 10));
  });
});
