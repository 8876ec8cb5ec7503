/** Issue 48: the list row's status words, exactly as the issue quotes them (src/lib/schedule-status.ts). */
import { expect, test } from "bun:test";
import { scheduleStatus } from "../../src/lib/due";
import type { Schedule } from "../../src/lib/schedule";
import { scheduleStatusLine } from "../../src/lib/schedule-status";

const ALL = [1, 2, 3, 4, 5, 6, 7];
const base = { times: ["morning"], days: ALL } as Schedule;
const cases: [string, Schedule | null, string, string][] = [
  ["cycle, on", { ...base, startsOn: "2026-11-27", cycle: { on: 21, off: 7 } }, "2026-11-29", "Day 3 of 21"],
  ["cycle, first day", { ...base, startsOn: "2026-11-29", cycle: { on: 5, off: 2 } }, "2026-11-29", "Day 1 of 5"],
  ["cycle, off", { ...base, startsOn: "2026-11-14", cycle: { on: 21, off: 7 } }, "2026-12-06", "Off until 12 December"],
  [
    "every 2, not due",
    { ...base, startsOn: "2026-11-30", every: { days: 2 } },
    "2026-12-03",
    "Every 2 days · next 4 December",
  ],
  ["every 2, due", { ...base, startsOn: "2026-11-30", every: { days: 2 } }, "2026-12-02", ""],
  ["starts next year", { ...base, startsOn: "2027-01-01" }, "2026-12-20", "Starts 1 January 2027"],
  ["starts this year", { ...base, startsOn: "2026-12-24" }, "2026-12-20", "Starts 24 December"],
  ["ended", { ...base, startsOn: "2026-11-01", endsOn: "2026-12-03" }, "2026-12-05", "Ended 3 December"],
  ["chosen weekdays", { times: ["morning"], days: [1, 3] } as Schedule, "2026-12-05", ""],
  ["as needed", null, "2026-12-05", ""],
];
test.each(cases)("%s", (_name, schedule, today, line) => {
  expect(scheduleStatusLine(schedule, scheduleStatus(schedule, today), today)).toBe(line);
});
