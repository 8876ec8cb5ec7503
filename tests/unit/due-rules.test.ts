/**
 * Issue 48: the one rule of "is it due on this day" (src/lib/due.ts) over the shared table
 * (tests/support/due-table.ts): every pattern × zone × day × local time, the day being the
 * zone's calendar day of the instant (as Today, history and reminders take it); a schedule
 * edited mid-cycle; where a schedule stands (status) and the amount at each time.
 */
import { describe, expect, test } from "bun:test";
import { dueInstant } from "../../api/reminders/due";
import { addDays, dateIn } from "../../src/lib/dates";
import { amountAt, isDueOn, nextDueOn, scheduleStatus, versionOn } from "../../src/lib/due";
import { dueOn, type Schedule } from "../../src/lib/schedule";
import { EDITED, LOCAL_TIMES, PATTERNS, TABLE_DAYS, TABLE_FROM, ZONES } from "../support/due-table";

const DAYS = Array.from({ length: TABLE_DAYS }, (_, i) => addDays(TABLE_FROM, i));
const due = (mask: string, i: number) => mask[i] === "X";

describe("isDueOn: patterns × zones × days × local times", () => {
  const rows = PATTERNS.flatMap((p) => ZONES.map((zone) => [p.name, zone, p.schedule, p.mask] as const));
  test.each(rows)("%s in %s", (_name, zone, schedule, mask) => {
    DAYS.forEach((day, i) => {
      for (const time of LOCAL_TIMES) {
        const instant = dueInstant(day, time, zone);
        const local = dateIn(zone, instant);
        expect(local, `${day} ${time} ${zone}`).toBe(day);
        expect(isDueOn(schedule, local), `${day} ${time} ${zone}`).toBe(due(mask, i));
      }
    });
  });

  test("as needed (null) and a schedule without days are never due", () => {
    for (const day of DAYS) {
      expect(isDueOn(null, day)).toBe(false);
      expect(isDueOn({ times: ["morning"] } as unknown as Schedule, day)).toBe(false);
    }
  });
});

describe("a schedule edited mid-cycle: each day keeps the version in force on it", () => {
  test.each(DAYS.map((day, i) => [day, due(EDITED.mask, i)] as const))("%s due: %p", (day, expected) => {
    expect(isDueOn(versionOn(EDITED.versions, day)?.schedule, day)).toBe(expected);
    // The day's doses as Today lists them, from the same rule.
    const item = { name: "Ashwagandha", schedule: versionOn(EDITED.versions, day)?.schedule };
    expect(dueOn([item], day).doses.length).toBe(expected ? 1 : 0);
  });
  test("versionOn: none before the first, the latest on or before the day, in any order", () => {
    const reversed = [...EDITED.versions].reverse();
    expect(versionOn(reversed, "2026-03-24")).toBeUndefined();
    expect(versionOn(reversed, "2026-03-30")?.validFrom).toBe("2026-03-25");
    expect(versionOn(reversed, "2026-03-31")?.validFrom).toBe("2026-03-31");
  });
});

describe("status: where a schedule stands today", () => {
  const cycle: Schedule = {
    times: ["morning"],
    days: [1, 2, 3, 4, 5, 6, 7],
    startsOn: "2026-11-01",
    cycle: { on: 5, off: 2 },
  };
  const every: Schedule = {
    times: ["morning"],
    days: [1, 2, 3, 4, 5, 6, 7],
    startsOn: "2026-12-01",
    every: { days: 2 },
  };
  const cases: [string, Schedule | null, string, unknown][] = [
    ["as needed", null, "2026-11-01", null],
    ["cycle, day 1", cycle, "2026-11-01", { state: "active", dayOfCycle: 1, cycleLength: 5, nextDueOn: "2026-11-01" }],
    ["cycle, day 5", cycle, "2026-11-05", { state: "active", dayOfCycle: 5, cycleLength: 5, nextDueOn: "2026-11-05" }],
    ["cycle, first off-day", cycle, "2026-11-06", { state: "off", nextDueOn: "2026-11-08" }],
    ["cycle, second off-day", cycle, "2026-11-07", { state: "off", nextDueOn: "2026-11-08" }],
    [
      "cycle, day 1 again",
      cycle,
      "2026-11-08",
      { state: "active", dayOfCycle: 1, cycleLength: 5, nextDueOn: "2026-11-08" },
    ],
    ["every 2, before its start", every, "2026-11-20", { state: "upcoming", nextDueOn: "2026-12-01" }],
    ["every 2, a due day", every, "2026-12-03", { state: "active", nextDueOn: "2026-12-03" }],
    ["every 2, between", every, "2026-12-02", { state: "off", nextDueOn: "2026-12-03" }],
    ["ended", { ...every, endsOn: "2026-12-05" }, "2026-12-06", { state: "ended" }],
    ["last day", { ...every, endsOn: "2026-12-05" }, "2026-12-05", { state: "active", nextDueOn: "2026-12-05" }],
    [
      "weekdays only, a Saturday",
      { times: ["evening"], days: [1, 2, 3, 4, 5] },
      "2026-11-28",
      { state: "off", nextDueOn: "2026-11-30" },
    ],
  ];
  test.each(cases)("%s", (_name, schedule, today, expected) => {
    expect(scheduleStatus(schedule, today)).toEqual(expected as never);
  });
  test("nextDueOn: none after the end", () => {
    expect(nextDueOn({ ...every, endsOn: "2026-12-03" }, "2026-12-04")).toBeNull();
  });
});

describe("amountAt: a time's own amount, else the supplement's", () => {
  const s: Schedule = { times: ["morning", "evening", "bedtime"], days: [1], amounts: { morning: 2, evening: 1 } };
  test.each([
    ["morning", 2],
    ["evening", 1],
    ["bedtime", 0.5],
  ] as const)("%s: %p", (time, amount) => {
    expect(amountAt(s, time, 0.5)).toBe(amount);
  });
  test("no amounts, no doseAmount: null", () => {
    expect(amountAt({ times: ["morning"], days: [1] }, "morning", null)).toBeNull();
  });
});
