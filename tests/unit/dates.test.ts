/** src/lib/dates.ts: a user's date in a zone, calendar arithmetic and weekdays, as tables. */
import { describe, expect, test } from "bun:test";
import {
  addDays,
  canonicalTimeZone,
  dateIn,
  dateRange,
  daysBetween,
  isCalendarDate,
  isoWeekday,
  shortDayLabel,
  wallClockIn,
} from "../../src/lib/dates";

describe("dateIn", () => {
  test.each([
    [null, "2026-11-23T23:59:59Z", "2026-11-23"],
    ["UTC", "2026-11-24T00:00:00Z", "2026-11-24"],
    ["Pacific/Kiritimati", "2026-11-23T10:30:00Z", "2026-11-24"],
    ["Pacific/Pago_Pago", "2026-11-23T10:30:00Z", "2026-11-22"],
    ["Europe/Berlin", "2026-03-28T22:59:59Z", "2026-03-28"],
    ["Europe/Berlin", "2026-03-28T23:00:00Z", "2026-03-29"],
    ["Europe/Berlin", "2026-03-29T22:00:00Z", "2026-03-30"],
    ["Europe/Berlin", "2026-10-25T22:59:59Z", "2026-10-25"],
    ["Europe/Berlin", "2026-10-25T23:00:00Z", "2026-10-26"],
  ])("%p at %s is %s", (zone, at, date) => {
    expect(dateIn(zone, new Date(at))).toBe(date);
  });
});

describe("dateIn, asked many times a second (it keeps each zone's last answer for its second)", () => {
  /** Local midnights, as instants, in zones whose offsets are not whole hours (or, in 1971 Monrovia, not whole minutes). */
  const midnights: [string, string, string, string][] = [
    ["UTC", "2026-11-24T00:00:00.000Z", "2026-11-23", "2026-11-24"],
    ["Asia/Kathmandu", "2026-11-23T18:15:00.000Z", "2026-11-23", "2026-11-24"], // +05:45
    ["Pacific/Chatham", "2026-11-23T10:15:00.000Z", "2026-11-23", "2026-11-24"], // +13:45 (summer)
    ["America/St_Johns", "2026-11-24T03:30:00.000Z", "2026-11-23", "2026-11-24"], // -03:30
    ["Africa/Monrovia", "1971-06-02T00:44:30.000Z", "1971-06-01", "1971-06-02"], // -00:44:30
    ["Europe/Berlin", "2026-03-28T23:00:00.000Z", "2026-03-28", "2026-03-29"], // a 23-hour day
  ];
  test.each(midnights)("%s: the last millisecond before midnight, midnight, and back", (zone, at, before, after) => {
    const midnight = Date.parse(at);
    // The same instants in turn, several times each, with another zone asked in between.
    for (let round = 0; round < 3; round++) {
      for (const [ms, date] of [
        [midnight - 1000, before],
        [midnight - 1, before],
        [midnight, after],
        [midnight + 999, after],
        [midnight - 1, before],
      ] as const) {
        expect([zone, ms, dateIn(zone, ms)]).toEqual([zone, ms, date]);
        expect([zone, ms, dateIn(zone, new Date(ms))]).toEqual([zone, ms, date]);
        dateIn("Pacific/Kiritimati", ms);
        expect([zone, ms, dateIn(zone, ms)]).toEqual([zone, ms, date]);
      }
    }
  });
});

describe("calendar arithmetic", () => {
  test.each([
    ["2026-03-28", 1, "2026-03-29"],
    ["2026-03-29", 1, "2026-03-30"],
    ["2026-10-25", 1, "2026-10-26"],
    ["2026-12-31", 1, "2027-01-01"],
    ["2028-02-28", 1, "2028-02-29"],
    ["2026-03-01", -1, "2026-02-28"],
    ["2026-11-23", -7, "2026-11-16"],
  ])("%s + %d = %s", (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
    expect(daysBetween(date, expected)).toBe(days);
  });

  test("a range holds each date once, the clock-change days included", () => {
    expect(dateRange("2026-03-27", "2026-03-31")).toEqual([
      "2026-03-27",
      "2026-03-28",
      "2026-03-29",
      "2026-03-30",
      "2026-03-31",
    ]);
  });

  test.each([
    ["2026-11-16", 1, "Mon 16 Nov"],
    ["2026-11-22", 7, "Sun 22 Nov"],
    ["2026-03-29", 7, "Sun 29 Mar"],
    ["2028-02-29", 2, "Tue 29 Feb"],
  ])("%s is ISO weekday %d (%s)", (date, weekday, label) => {
    expect(isoWeekday(date)).toBe(weekday);
    expect(shortDayLabel(date)).toBe(label);
  });
});

describe("what counts as a date and a zone", () => {
  test.each([
    ["2026-11-23", true],
    ["2028-02-29", true],
    ["2026-02-29", false],
    ["2026-02-30", false],
    ["2026-13-01", false],
    ["2026-11-3", false],
    ["2026-11-23T00:00", false],
    [" 2026-11-23", false],
    ["0000-01-01", false],
  ])("%p: %p", (value, ok) => {
    expect(isCalendarDate(value)).toBe(ok);
  });

  test.each([
    ["Europe/Berlin", "Europe/Berlin"],
    ["europe/berlin", "Europe/Berlin"],
    ["UTC", "UTC"],
    ["+01:00", null],
    ["Mars/Phobos", null],
    ["", null],
    ["Europe/Berlin ", null],
    [42, null],
  ])("%p → %p", (value, expected) => {
    expect(canonicalTimeZone(value)).toBe(expected);
  });
});

describe("wallClockIn (the one per-zone formatter dateIn, date-format and reminders read)", () => {
  test.each([
    ["UTC", "2026-11-27T00:00:00Z", [2026, 11, 27, 0, 0, 0]],
    ["Europe/Berlin", "2026-03-29T00:59:59Z", [2026, 3, 29, 1, 59, 59]], // before spring forward
    ["Europe/Berlin", "2026-03-29T01:00:00Z", [2026, 3, 29, 3, 0, 0]], // after it
    ["America/New_York", "2026-11-01T05:30:00Z", [2026, 11, 1, 1, 30, 0]], // the first 01:30
    ["America/New_York", "2026-11-01T06:30:00Z", [2026, 11, 1, 1, 30, 0]], // the second
    ["Asia/Kolkata", "2026-12-31T18:29:59Z", [2026, 12, 31, 23, 59, 59]],
    ["Asia/Kolkata", "2026-12-31T18:30:00Z", [2027, 1, 1, 0, 0, 0]],
    ["Pacific/Chatham", "2026-06-15T11:15:00Z", [2026, 6, 16, 0, 0, 0]], // +12:45 in June
  ] as const)("%s at %s", (zone, iso, [year, month, day, hour, minute, second]) => {
    const expected = { year, month, day, hour, minute, second };
    expect(wallClockIn(zone, new Date(iso))).toEqual(expected);
    expect(wallClockIn(zone, Date.parse(iso))).toEqual(expected);
  });
});
