/**
 * Issue 45: stock arithmetic cannot produce an invalid date. At the extremes of every input
 * (counts, pack sizes, refills and their sums, tiny and as-needed doses) stockOf answers a real
 * calendar date within RUN_OUT_MAX_DAYS, or none; and the input rules refuse what would be
 * stored as another number (1e-9 as 0).
 */
import { describe, expect, test } from "bun:test";
import { addDays } from "../../src/lib/dates";
import { PACKS_MAX, REFILLS_MAX, RUN_OUT_MAX_DAYS, STOCK_MAX, type StockFacts, stockOf } from "../../src/lib/stock";
import { stockInputSchema } from "../../src/lib/stock-input";

const TODAY = "2026-11-26";
const DAILY = [1, 2, 3, 4, 5, 6, 7];
const facts = (over: Partial<StockFacts>): StockFacts => ({
  unitsPerPack: 60,
  count: 30,
  refills: [],
  used: 0,
  recent: 0,
  schedule: { times: ["morning"], days: DAILY },
  doseAmount: 1,
  ...over,
});
const weekly = { times: ["morning"], days: [1] } as StockFacts["schedule"];
const allRefills = Array.from({ length: REFILLS_MAX }, () => ({ at: "x", units: STOCK_MAX * PACKS_MAX }));

describe("the run-out date at the extremes", () => {
  const table: [string, StockFacts, string | null][] = [
    [
      "the largest count, a weekly 0.01 dose (was 0NaN-NaN-NaN)",
      facts({ count: STOCK_MAX, doseAmount: 0.01, schedule: weekly }),
      null,
    ],
    ["the largest count, once a day", facts({ count: STOCK_MAX }), null],
    [
      "every refill at its largest",
      facts({ count: STOCK_MAX, refills: allRefills, doseAmount: 0.01, schedule: weekly }),
      null,
    ],
    ["exactly the horizon", facts({ count: RUN_OUT_MAX_DAYS }), addDays(TODAY, RUN_OUT_MAX_DAYS)],
    ["a day past the horizon", facts({ count: RUN_OUT_MAX_DAYS + 1 }), null],
    ["the smallest count, the largest dose", facts({ count: 0.01, doseAmount: 1000 }), TODAY],
    ["as needed, 0.01 in 30 days, 1 left", facts({ schedule: null, recent: 0.01, count: 1 }), addDays(TODAY, 3000)],
    ["as needed, 0.01 in 30 days, the largest count", facts({ schedule: null, recent: 0.01, count: STOCK_MAX }), null],
    ["a dose of 0 (as if none)", facts({ doseAmount: 0 }), null],
    ["a non-number from a bad row", facts({ count: Number.NaN }), null],
    ["an infinite stock from a bad row", facts({ count: Number.POSITIVE_INFINITY }), null],
  ];
  for (const [what, f, runsOutOn] of table) {
    test(what, () => {
      const stock = stockOf(f, TODAY, 14);
      expect(stock?.runsOutOn ?? null).toBe(runsOutOn);
      if (stock?.runsOutOn) expect(stock.runsOutOn).toMatch(/^\d{4}-\d\d-\d\d$/);
      expect(typeof stock?.refillDue).toBe("boolean");
    });
  }
});

describe("stock inputs", () => {
  const table: [Record<string, unknown>, boolean][] = [
    [{ unitsPerPack: 1e-9 }, false],
    [{ unitsPerPack: 0.001 }, false],
    [{ unitsPerPack: 0.009 }, false],
    [{ unitsPerPack: 0.01 }, true],
    [{ unitsPerPack: STOCK_MAX }, true],
    [{ unitsPerPack: STOCK_MAX + 0.01 }, false],
    [{ count: 1e-9 }, false],
    [{ count: 0 }, true],
    [{ count: 0.01 }, true],
    [{ count: 12.34 }, true],
    [{ count: 12.345 }, false],
    [{ count: STOCK_MAX }, true],
    [{ count: 1e300 }, false],
    [{ count: -0.01 }, false],
  ];
  for (const [input, ok] of table) {
    test(`${JSON.stringify(input)}: ${ok ? "taken" : "refused"}`, () => {
      expect(stockInputSchema.safeParse(input).success).toBe(ok);
    });
  }
});
