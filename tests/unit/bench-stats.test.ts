/** bench/stats.ts: the order statistics behind BENCHMARKS.md's medians and issue 14's interval. */
import { describe, expect, test } from "bun:test";
import { median, medianInterval, quantile } from "../../bench/stats";

const ranks = (n: number) => Array.from({ length: n }, (_, i) => n - i); // n … 1, unsorted on purpose

describe("quantile and median", () => {
  test.each([
    [[3, 1, 2], 0.5, 2],
    [[4, 1, 3, 2], 0.5, 2.5],
    [[1, 2, 3, 4, 5], 0.25, 2],
    [[1, 2], 0.75, 1.75],
    [[7], 0.9, 7],
  ])("%p at %p is %p", (values, q, want) => {
    expect(quantile(values, q)).toBe(want);
  });

  test("values that are not finite are left out; none at all is NaN", () => {
    expect(median([Number.NaN, 5, Number.POSITIVE_INFINITY, 1])).toBe(3);
    expect(median([Number.NaN])).toBeNaN();
  });
});

describe("medianInterval (95%, order statistics)", () => {
  // The ranks of the binomial(n, 1/2) tables: the k-th smallest and the k-th largest.
  test.each([
    [6, 1, 6],
    [10, 2, 9],
    [20, 6, 15],
    [40, 14, 27],
  ])("n = %p: from the %p-th smallest to the %p-th", (n, low, high) => {
    expect(medianInterval(ranks(n))).toEqual({ low, high });
  });

  test("fewer than 6 values give no 95% interval; a lower level gives one", () => {
    expect(medianInterval(ranks(5))).toBeUndefined();
    expect(medianInterval(ranks(5), 0.9)).toEqual({ low: 1, high: 5 });
  });
});
