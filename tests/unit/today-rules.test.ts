/**
 * Today's pure rules (issue 51, src/lib/today-rules.ts) as tables: the retry backoff of waiting
 * ticks, the user's next midnight, the `Offline · as of` label, the progress and done texts
 * with skips, and a day with this device's changes laid over it.
 */
import { describe, expect, test } from "bun:test";
import type { TodayJson } from "../../src/lib/schedule";
import {
  allDoneText,
  msToNextMidnight,
  offlineLabel,
  progressText,
  RETRY_MAX_MS,
  retryDelay,
  withStatuses,
} from "../../src/lib/today-rules";

describe("retryDelay: 2 s, then doubling, never more than 30 s", () => {
  const cases: [number, number][] = [
    [0, 2_000],
    [1, 4_000],
    [2, 8_000],
    [3, 16_000],
    [4, 30_000],
    [5, 30_000],
    [50, 30_000],
    [-1, 2_000],
  ];
  test.each(cases)("attempt %d waits %d ms", (attempt, ms) => expect(retryDelay(attempt)).toBe(ms));
  test("a waiting tick is tried at least every 35 s", () => {
    for (let n = 0; n < 100; n++) expect(retryDelay(n)).toBeLessThanOrEqual(RETRY_MAX_MS);
    expect(RETRY_MAX_MS).toBeLessThanOrEqual(35_000);
  });
});

describe("msToNextMidnight: one second past the next midnight on the user's wall clock", () => {
  const cases: [string, string, string, number][] = [
    ["UTC, a minute before", "UTC", "2026-11-28T23:59:00.000Z", 61_000],
    ["UTC, at midnight exactly", "UTC", "2026-11-29T00:00:00.000Z", 86_401_000],
    ["UTC, half a second before", "UTC", "2026-11-28T23:59:59.500Z", 1_500],
    ["Auckland (UTC+13), 23:30 there", "Pacific/Auckland", "2026-11-28T10:30:00.000Z", 1_801_000],
    ["Honolulu (UTC−10), 23:00 there", "Pacific/Honolulu", "2026-11-29T09:00:00.000Z", 3_601_000],
    ["Kathmandu (UTC+5:45), 23:50 there", "Asia/Kathmandu", "2026-11-28T18:05:00.000Z", 601_000],
  ];
  test.each(cases)("%s", (_what, zone, at, ms) => expect(msToNextMidnight(zone, Date.parse(at))).toBe(ms));
});

describe("offlineLabel: the time the copy was confirmed, in the user's zone, 24-hour", () => {
  const cases: [string, number | null, string][] = [
    ["UTC", Date.parse("2026-11-28T08:14:59Z"), "Offline · as of 08:14"],
    ["Europe/Berlin", Date.parse("2026-11-28T13:05:00Z"), "Offline · as of 14:05"],
    ["America/New_York", Date.parse("2026-11-28T04:30:00Z"), "Offline · as of 23:30"],
    ["UTC", Date.parse("2026-11-28T00:00:00Z"), "Offline · as of 00:00"],
    ["UTC", null, "Offline"],
  ];
  test.each(cases)("%s %p → %s", (zone, at, text) => expect(offlineLabel(zone, at)).toBe(text));
});

describe("the progress and done texts tell skips apart", () => {
  const progress: [number, number, number, string][] = [
    [0, 5, 0, "0 of 5 taken"],
    [4, 5, 1, "4 of 5 taken · 1 skipped"],
    [3, 5, 2, "3 of 5 taken · 2 skipped"],
    [5, 5, 0, "5 of 5 taken"],
  ];
  test.each(progress)("%d taken of %d, %d skipped", (taken, due, skipped, text) =>
    expect(progressText(taken, due, skipped)).toBe(text),
  );
  const done: [boolean, number, string][] = [
    [true, 0, "All done for today"],
    [true, 1, "All done for today (1 skipped)"],
    [true, 2, "All done for today (2 skipped)"],
    [false, 0, "All done for that day"],
    [false, 1, "All done for that day (1 skipped)"],
  ];
  test.each(done)("today %p, %d skipped", (isToday, skipped, text) => expect(allDoneText(isToday, skipped)).toBe(text));
});

describe("withStatuses: this device's changes over a day's answer", () => {
  const dose = (supplementId: number, time: "morning" | "evening", status: "taken" | "skipped" | null) => ({
    supplementId,
    name: `S${supplementId}`,
    quantityType: "Capsule(s)",
    doseAmount: 1,
    time,
    status,
    at: null,
  });
  const day: TodayJson = {
    date: "2026-11-28",
    timeZone: "UTC",
    doses: [dose(1, "morning", null), dose(1, "evening", "taken"), dose(2, "morning", null)],
    asNeeded: [{ supplementId: 3, name: "S3", quantityType: "Drop(s)", doseAmount: 2, status: null, at: null }],
    summary: { due: 3, taken: 1, skipped: 0 },
  };
  const statuses = (d: TodayJson) => [...d.doses.map((x) => x.status), ...d.asNeeded.map((x) => x.status)];
  const cases: [string, Parameters<typeof withStatuses>[1], ("taken" | "skipped" | null)[]][] = [
    ["nothing changed", [], [null, "taken", null, null]],
    ["a tick", [{ supplementId: 1, time: "morning", status: "taken" }], ["taken", "taken", null, null]],
    ["an un-tick", [{ supplementId: 1, time: "evening", status: null }], [null, null, null, null]],
    ["a skip", [{ supplementId: 2, time: "morning", status: "skipped" }], [null, "taken", "skipped", null]],
    [
      "the later of two changes to a dose",
      [
        { supplementId: 1, time: "morning", status: "taken" },
        { supplementId: 1, time: "morning", status: null },
      ],
      [null, "taken", null, null],
    ],
    ["as needed", [{ supplementId: 3, time: "as-needed", status: "taken" }], [null, "taken", null, "taken"]],
    ["a dose not on the day", [{ supplementId: 9, time: "morning", status: "taken" }], [null, "taken", null, null]],
  ];
  test.each(cases)("%s", (_what, changes, expected) => {
    const after = withStatuses(day, changes);
    expect(statuses(after)).toEqual(expected);
    expect(statuses(day)).toEqual([null, "taken", null, null]);
  });

  // Issue 48: an as-needed change carries the day's count.
  const counts: [string, Parameters<typeof withStatuses>[1], number, "taken" | null][] = [
    ["+1 from none", [{ supplementId: 3, time: "as-needed", status: "taken", count: 1 }], 1, "taken"],
    [
      "two +1s: the later count",
      [
        { supplementId: 3, time: "as-needed", status: "taken", count: 1 },
        { supplementId: 3, time: "as-needed", status: "taken", count: 2 },
      ],
      2,
      "taken",
    ],
    ["−1 to none", [{ supplementId: 3, time: "as-needed", status: null, count: 0 }], 0, null],
    ["an old tick without a count: one", [{ supplementId: 3, time: "as-needed", status: "taken" }], 1, "taken"],
  ];
  test.each(counts)("as needed, counted: %s", (_what, changes, count, status) => {
    const [item] = withStatuses(day, changes).asNeeded;
    expect([item?.count, item?.status]).toEqual([count, status]);
  });
});
