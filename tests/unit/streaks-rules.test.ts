/**
 * src/lib/streaks.ts as units: what a day counts as, the current and longest streak and
 * adherence, as tables of day patterns (a weekly dose, days with nothing due, skips, a
 * missed dose, today still running). Written to kill the mutants StrykerJS makes of the
 * module (docs/mutation-testing.md); each number here is one a user reads on the History card.
 */
import { describe, expect, test } from "bun:test";
import type { HistoryDay } from "../../src/lib/schedule";
import { adherence, currentStreak, type DayKind, dayKind, longestStreak } from "../../src/lib/streaks";

const TODAY = "2026-06-10";

/**
 * One letter per day, oldest first, the last one being today:
 * K kept (1 due, taken) · k kept twice (2 due, both taken) · M missed (1 due, missed) ·
 * H half (2 due: one taken, one missed) · S skipped (1 due, skipped) · - nothing due ·
 * and for today only: O open (2 due, 1 taken, 1 not yet logged) · Z nothing logged yet (1 due).
 */
const LETTERS: Record<string, Omit<HistoryDay, "date">> = {
  K: { due: 1, taken: 1, skipped: 0, missed: 0 },
  k: { due: 2, taken: 2, skipped: 0, missed: 0 },
  M: { due: 1, taken: 0, skipped: 0, missed: 1 },
  H: { due: 2, taken: 1, skipped: 0, missed: 1 },
  S: { due: 1, taken: 0, skipped: 1, missed: 0 },
  "-": { due: 0, taken: 0, skipped: 0, missed: 0 },
  O: { due: 2, taken: 1, skipped: 0, missed: 0 },
  Z: { due: 1, taken: 0, skipped: 0, missed: 0 },
};

/** The days of `pattern`, ending on TODAY. */
function days(pattern: string): HistoryDay[] {
  const end = Date.parse(`${TODAY}T00:00:00Z`);
  return [...pattern].map((letter, i) => {
    const counts = LETTERS[letter];
    if (!counts) throw new Error(`unknown letter ${letter}`);
    const date = new Date(end - (pattern.length - 1 - i) * 86_400_000).toISOString().slice(0, 10);
    return { date, ...counts };
  });
}

describe("dayKind", () => {
  const day = (date: string, due: number, taken: number, skipped: number, missed: number): HistoryDay => ({
    date,
    due,
    taken,
    skipped,
    missed,
  });
  const PAST = "2026-06-09";
  test.each<[string, HistoryDay, DayKind]>([
    ["an ended day, every dose taken", day(PAST, 2, 2, 0, 0), "kept"],
    ["an ended day, one taken and one skipped", day(PAST, 2, 1, 1, 0), "kept"],
    ["an ended day, one taken and one missed", day(PAST, 2, 1, 0, 1), "broken"],
    ["an ended day, every dose missed", day(PAST, 1, 0, 0, 1), "broken"],
    ["an ended day, every dose skipped", day(PAST, 2, 0, 2, 0), "neutral"],
    ["an ended day with nothing due", day(PAST, 0, 0, 0, 0), "neutral"],
    ["an ended day with only an as-needed dose taken", day(PAST, 0, 1, 0, 0), "kept"],
    ["today, every dose taken", day(TODAY, 2, 2, 0, 0), "kept"],
    ["today, one taken and one skipped", day(TODAY, 2, 1, 1, 0), "kept"],
    ["today, one taken and one still open", day(TODAY, 2, 1, 0, 0), "neutral"],
    ["today, nothing logged yet", day(TODAY, 1, 0, 0, 0), "neutral"],
    ["today, every dose skipped", day(TODAY, 2, 0, 2, 0), "neutral"],
    ["today with nothing due", day(TODAY, 0, 0, 0, 0), "neutral"],
    ["today with nothing due but an as-needed dose taken", day(TODAY, 0, 1, 0, 0), "neutral"],
  ])("%s: %s", (_label, d, kind) => {
    expect(dayKind(d, TODAY)).toBe(kind);
  });
});

describe("streaks and adherence over a pattern of days", () => {
  // [what, pattern (oldest first, ends today), current, longest, adherence]
  test.each<[string, string, number, number, number | null]>([
    ["no days at all", "", 0, 0, null],
    ["a weekly dose kept four weeks, nothing due between", "K------K------K------K", 4, 4, 1],
    ["a weekly dose kept three weeks, today nothing due", "K------K------K------", 3, 3, 1],
    ["a weekly dose, one week missed, then two kept", "K------K------M------K------K", 2, 2, 3 / 4],
    ["a weekly dose kept three weeks, then missed, then once kept", "K------K------K------M------K", 1, 3, 3 / 4],
    // A skip is not a take (issue 51): it lowers adherence, but streaks pass over it.
    ["twice a week (Mon and Thu) kept, with skipped weeks between", "K--K---S--S---K--K---K--K", 6, 6, 5 / 7],
    ["a daily dose kept, today still open", "KKKKO", 4, 4, 1],
    ["a daily dose kept, today not logged yet", "KKKZ", 3, 3, 1],
    ["a daily dose kept, today done", "KKkk", 4, 4, 1],
    ["a missed day breaks the run; the longest stays", "KKKMKK", 2, 3, 4 / 5],
    ["a half-taken day breaks it too", "kkHkZ", 1, 2, 7 / 8],
    ["skips and empty days are neutral for both streaks", "KS-KS-K", 3, 3, 2 / 4],
    ["the later run is the longest", "KMKKKK", 4, 4, 4 / 5],
    ["yesterday missed: no current streak", "KKKKM-", 0, 4, 4 / 5],
    ["only skips and empty days", "SS--S", 0, 0, 0],
    ["only missed days", "MMM-", 0, 0, 0],
    ["today's doses do not count in adherence while the day runs", "MKO", 1, 1, 1 / 2],
    ["today's own open day alone: nothing counted yet", "O", 0, 0, null],
    ["today kept, before it a miss: adherence counts only the miss", "Mk", 1, 1, 0],
  ])("%s (%s)", (_label, pattern, current, longest, rate) => {
    const list = days(pattern);
    expect(currentStreak(list, TODAY)).toBe(current);
    expect(longestStreak(list, TODAY)).toBe(longest);
    expect(adherence(list, TODAY)).toBe(rate);
  });

  test("adherence sums doses, not days: 3 of 4 doses over two days is 0.75", () => {
    expect(adherence(days("kHZ"), TODAY)).toBe(3 / 4);
  });
});
