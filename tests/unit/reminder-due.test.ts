/** Due instants of reminders in the user's zone (issue 39): zones far apart and 2026's clock changes. */
import { describe, expect, test } from "bun:test";
import { dueInstant, dueSlots } from "../../api/reminders/due";

describe("dueInstant", () => {
  test.each([
    // zone, local date, time, UTC instant
    ["Europe/Berlin", "2026-01-15", "08:00", "2026-01-15T07:00:00.000Z"], // CET
    ["Europe/Berlin", "2026-07-15", "08:00", "2026-07-15T06:00:00.000Z"], // CEST
    ["America/New_York", "2026-01-15", "08:00", "2026-01-15T13:00:00.000Z"],
    ["America/New_York", "2026-07-15", "08:00", "2026-07-15T12:00:00.000Z"],
    ["Asia/Kolkata", "2026-05-01", "08:00", "2026-05-01T02:30:00.000Z"], // +05:30
    ["Pacific/Kiritimati", "2026-05-01", "08:00", "2026-04-30T18:00:00.000Z"], // +14
    ["Pacific/Kiritimati", "2026-05-01", "00:00", "2026-04-30T10:00:00.000Z"],
    ["Pacific/Pago_Pago", "2026-05-01", "22:00", "2026-05-02T09:00:00.000Z"], // -11
    ["UTC", "2026-05-01", "13:00", "2026-05-01T13:00:00.000Z"],
    // Berlin springs forward 29 March 2026, 02:00 CET -> 03:00 CEST (01:00 UTC)
    ["Europe/Berlin", "2026-03-29", "01:59", "2026-03-29T00:59:00.000Z"],
    ["Europe/Berlin", "2026-03-29", "02:00", "2026-03-29T01:00:00.000Z"], // gap: first minute after
    ["Europe/Berlin", "2026-03-29", "02:30", "2026-03-29T01:00:00.000Z"], // gap: first minute after
    ["Europe/Berlin", "2026-03-29", "03:00", "2026-03-29T01:00:00.000Z"],
    ["Europe/Berlin", "2026-03-29", "08:00", "2026-03-29T06:00:00.000Z"],
    ["Europe/Berlin", "2026-03-28", "08:00", "2026-03-28T07:00:00.000Z"],
    // Berlin falls back 25 October 2026, 03:00 CEST -> 02:00 CET: 02:30 happens twice, the first counts
    ["Europe/Berlin", "2026-10-25", "02:30", "2026-10-25T00:30:00.000Z"],
    ["Europe/Berlin", "2026-10-25", "08:00", "2026-10-25T07:00:00.000Z"],
    ["Europe/Berlin", "2026-10-24", "08:00", "2026-10-24T06:00:00.000Z"],
    // New York springs forward 8 March 2026 at 02:00 EST (07:00 UTC)
    ["America/New_York", "2026-03-08", "02:15", "2026-03-08T07:00:00.000Z"],
    ["America/New_York", "2026-03-08", "08:00", "2026-03-08T12:00:00.000Z"],
    ["America/New_York", "2026-03-07", "08:00", "2026-03-07T13:00:00.000Z"],
    // New York falls back 1 November 2026 at 02:00 EDT: 01:30 happens twice
    ["America/New_York", "2026-11-01", "01:30", "2026-11-01T05:30:00.000Z"],
    ["America/New_York", "2026-11-01", "08:00", "2026-11-01T13:00:00.000Z"],
  ])("%s %s %s is %s", (zone, date, time, expected) => {
    expect(dueInstant(date, time, zone).toISOString()).toBe(expected);
  });
});

describe("dueSlots", () => {
  const pairs = [
    { zone: "Europe/Berlin", time: "08:00" },
    { zone: "Pacific/Kiritimati", time: "08:00" },
    { zone: "Pacific/Pago_Pago", time: "22:00" },
  ];
  const HOUR = 3_600_000;

  test.each([
    // at, lookback hours, due (zone date)
    ["2026-01-15T06:59:59Z", 1, []],
    ["2026-01-15T07:00:00Z", 1, ["Europe/Berlin 2026-01-15"]],
    ["2026-01-15T07:30:00Z", 1, ["Europe/Berlin 2026-01-15"]],
    ["2026-01-15T08:00:01Z", 1, []],
    // Kiritimati's 08:00 of 16 January is 18:00 UTC of the 15th; Pago Pago's 22:00 of the 14th is 09:00 UTC of the 15th
    ["2026-01-15T18:00:00Z", 1, ["Pacific/Kiritimati 2026-01-16"]],
    ["2026-01-15T09:10:00Z", 1, ["Pacific/Pago_Pago 2026-01-14"]],
  ] as [string, number, string[]][])("at %s (lookback %d h): %j", (at, hours, expected) => {
    const due = dueSlots(pairs, new Date(at), hours * HOUR).map((s) => `${s.zone} ${s.date}`);
    expect(due.sort()).toEqual(expected.sort());
  });

  test("the spring-forward gap's time is due once, at the first minute after it", () => {
    const gap = [{ zone: "Europe/Berlin", time: "02:30" }];
    expect(dueSlots(gap, new Date("2026-03-29T00:59:00Z"), HOUR)).toEqual([]);
    expect(dueSlots(gap, new Date("2026-03-29T01:00:00Z"), HOUR).map((s) => s.date)).toEqual(["2026-03-29"]);
  });
});
