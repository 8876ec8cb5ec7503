/**
 * dueOn (src/lib/schedule.ts): a day's doses from schedules, shared by GET /api/today and the
 * Today card without a network (issue 40): by time of day, then list order; as-needed apart.
 */
import { describe, expect, test } from "bun:test";
import { dueOn, type Schedule } from "../../src/lib/schedule";

const item = (name: string, schedule: Schedule | null | undefined) => ({ name, schedule });
const LIST = [
  item("B", { times: ["evening", "morning"], days: [1, 3, 5] }),
  item("A", { times: ["anytime"], days: [1, 2, 3, 4, 5, 6, 7] }),
  item("N", null),
  item("Old client", undefined),
  item("Weekend", { times: ["bedtime"], days: [6, 7] }),
];

// A Monday to Sunday week: the rule takes a date (issue 48).
const DATE_OF: Record<number, string> = { 1: "2026-11-23", 2: "2026-11-24", 6: "2026-11-28", 7: "2026-11-29" };

describe("dueOn", () => {
  // [ISO weekday, doses as name@time, as-needed names]
  const cases: [number, string[], string[]][] = [
    [1, ["B@morning", "B@evening", "A@anytime"], ["N"]],
    [2, ["A@anytime"], ["N"]],
    [6, ["Weekend@bedtime", "A@anytime"], ["N"]],
    [7, ["Weekend@bedtime", "A@anytime"], ["N"]],
  ];
  test.each(cases)("weekday %d", (weekday, doses, asNeeded) => {
    const due = dueOn(LIST, DATE_OF[weekday] as string);
    expect(due.doses.map((d) => `${d.item.name}@${d.time}`)).toEqual(doses);
    expect(due.asNeeded.map((i) => i.name)).toEqual(asNeeded);
  });
});
