/** Issue 40's arithmetic and words (src/lib/stock.ts), as tables. */
import { describe, expect, test } from "bun:test";
import { dailyAmount, leftPhrase, runsOutWords, type StockFacts, stockLine, stockOf } from "../../src/lib/stock";

const facts = (over: Partial<StockFacts>): StockFacts => ({
  unitsPerPack: 60,
  count: 30,
  refills: [],
  used: 0,
  recent: 0,
  schedule: { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] },
  doseAmount: 1,
  ...over,
});

describe("dailyAmount", () => {
  test.each([
    ["once a day", facts({}), 1],
    [
      "2 × 2 a day",
      facts({ doseAmount: 2, schedule: { times: ["morning", "evening"], days: [1, 2, 3, 4, 5, 6, 7] } }),
      4,
    ],
    ["weekdays", facts({ schedule: { times: ["anytime"], days: [1, 2, 3, 4, 5] } }), 5 / 7],
    ["no amount: 1 a dose", facts({ doseAmount: null }), 1],
    ["as needed: 30 days' units ÷ 30", facts({ schedule: null, recent: 12 }), 0.4],
    ["as needed, none taken", facts({ schedule: null }), 0],
  ])("%s", (_, f, perDay) => expect(dailyAmount(f)).toBeCloseTo(perDay, 10));
});

describe("stockOf on 2026-11-26, lead 7", () => {
  test.each([
    ["nothing set", facts({ unitsPerPack: null, count: null }), null],
    ["a pack size only", facts({ count: null }), { left: null, unitsPerPack: 60, runsOutOn: null, refillDue: false }],
    ["23 left", facts({ count: 23 }), { left: 23, unitsPerPack: 60, runsOutOn: "2026-12-19", refillDue: false }],
    [
      "refills less used",
      facts({ count: 5, refills: [{ at: "x", units: 60 }], used: 3.5 }),
      { left: 61.5, unitsPerPack: 60, runsOutOn: "2027-01-26", refillDue: false },
    ],
    ["7 days: due", facts({ count: 7 }), { left: 7, unitsPerPack: 60, runsOutOn: "2026-12-03", refillDue: true }],
    ["8 days: not yet", facts({ count: 8 }), { left: 8, unitsPerPack: 60, runsOutOn: "2026-12-04", refillDue: false }],
    ["zero: today", facts({ count: 0 }), { left: 0, unitsPerPack: 60, runsOutOn: "2026-11-26", refillDue: true }],
    [
      "below zero: no date, due",
      facts({ count: 1, used: 2 }),
      { left: -1, unitsPerPack: 60, runsOutOn: null, refillDue: true },
    ],
    [
      "as needed, none taken: no date",
      facts({ schedule: null }),
      { left: 30, unitsPerPack: 60, runsOutOn: null, refillDue: false },
    ],
  ])("%s", (_, f, expected) => expect(stockOf(f, "2026-11-26", 7)).toEqual(expected));

  test("lead time off: never due, even below zero", () => {
    expect(stockOf(facts({ count: 1, used: 2 }), "2026-11-26", 0)?.refillDue).toBe(false);
  });
});

describe("words", () => {
  test.each([
    [23, "Capsule(s)", "23 capsules left"],
    [1, "Capsule(s)", "1 capsule left"],
    [0.5, "Teaspoon(s)", "0.5 teaspoon left"],
    [0, "Soft Gel", "0 soft gels left"],
    [40, "Other", "40 left"],
    [-2, "Tablet(s)", "Recount?"],
  ])("%p %s: %s", (left, type, words) => expect(leftPhrase(left, type)).toBe(words));

  test.each([
    ["2026-12-19", "2026-11-26", "19 December"],
    ["2027-01-06", "2026-11-26", "6 January 2027"],
  ])("%s from %s: %s", (date, today, words) => expect(runsOutWords(date, today)).toBe(words));

  test("the row's line", () => {
    const today = "2026-11-26";
    expect(
      stockLine({ left: 23, unitsPerPack: 60, runsOutOn: "2026-12-19", refillDue: false }, "Capsule(s)", today),
    ).toBe("23 capsules left · runs out around 19 December");
    expect(stockLine({ left: -1, unitsPerPack: null, runsOutOn: null, refillDue: true }, "Other", today)).toBe(
      "Recount?",
    );
    expect(stockLine({ left: 5, unitsPerPack: null, runsOutOn: null, refillDue: false }, "Other", today)).toBe(
      "5 left",
    );
  });
});
