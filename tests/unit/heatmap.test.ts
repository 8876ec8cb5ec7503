/**
 * src/lib/heatmap.ts: a History day's colour level from taken ÷ (taken + missed + skipped), as a
 * table; a day done with skips has its own level (issue 51); every level has words.
 */
import { expect, test } from "bun:test";
import { allDoneSkipped, HEATMAP_LABELS, HEATMAP_LEVELS, heatmapLevel } from "../../src/lib/heatmap";

test.each([
  [{ due: 0, taken: 0, missed: 0, skipped: 0 }, "none"],
  [{ due: 2, taken: 0, missed: 0, skipped: 2 }, "skipped"], // all skipped: done, with skips
  [{ due: 2, taken: 0, missed: 0, skipped: 0 }, "pending"], // added that day: nothing counts
  [{ due: 2, taken: 0, missed: 2, skipped: 0 }, "zero"],
  [{ due: 5, taken: 1, missed: 4, skipped: 0 }, "low"],
  [{ due: 3, taken: 1, missed: 2, skipped: 0 }, "low"],
  [{ due: 2, taken: 1, missed: 1, skipped: 0 }, "high"],
  [{ due: 5, taken: 4, missed: 1, skipped: 0 }, "high"],
  [{ due: 2, taken: 2, missed: 0, skipped: 0 }, "all"],
  [{ due: 3, taken: 1, missed: 0, skipped: 2 }, "skipped"], // the others skipped: done, not All taken
  [{ due: 5, taken: 4, missed: 0, skipped: 1 }, "skipped"],
  [{ due: 5, taken: 3, missed: 1, skipped: 1 }, "high"], // a miss: by ratio, the skip not taken (3 of 5)
  [{ due: 5, taken: 2, missed: 1, skipped: 2 }, "low"], // 2 of 5
])("an ended day %o is %s", (day, level) => {
  expect(heatmapLevel(day)).toBe(level as (typeof HEATMAP_LEVELS)[number]);
});

// Today: open doses are not missed yet, but they are not taken either.
test.each([
  [{ due: 0, taken: 0, missed: 0, skipped: 0 }, "none"],
  [{ due: 5, taken: 0, missed: 0, skipped: 0 }, "pending"], // nothing logged yet
  [{ due: 5, taken: 0, missed: 0, skipped: 5 }, "skipped"], // every dose skipped: done
  [{ due: 5, taken: 0, missed: 0, skipped: 2 }, "pending"], // skips, the rest open
  [{ due: 5, taken: 1, missed: 0, skipped: 0 }, "low"],
  [{ due: 5, taken: 3, missed: 0, skipped: 0 }, "high"], // 3 of 5 is not All taken
  [{ due: 5, taken: 4, missed: 0, skipped: 0 }, "high"],
  [{ due: 5, taken: 3, missed: 0, skipped: 2 }, "skipped"], // the rest skipped: not All taken
  [{ due: 5, taken: 4, missed: 0, skipped: 1 }, "skipped"],
  [{ due: 5, taken: 2, missed: 0, skipped: 2 }, "low"], // one open: 2 of 5 taken
  [{ due: 5, taken: 5, missed: 0, skipped: 0 }, "all"],
])("today %o is %s", (day, level) => {
  expect(heatmapLevel(day, true)).toBe(level as (typeof HEATMAP_LEVELS)[number]);
});

test("every level, and the today marker, has its own words", () => {
  const labels = [...HEATMAP_LEVELS, "today" as const].map((level) => HEATMAP_LABELS[level]);
  expect(labels.every((label) => label.length > 0)).toBe(true);
  expect(new Set(labels).size).toBe(labels.length);
});

test("a done day's words count its skips", () => {
  expect(allDoneSkipped(1)).toBe("All done, 1 skipped");
  expect(allDoneSkipped(2)).toBe("All done, 2 skipped");
});
