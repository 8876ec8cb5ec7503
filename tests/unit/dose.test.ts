/** src/lib/dose.ts: every quantity type × 1, 0.5, 2 (and none) as a phrase; a schedule as Frequency text. */
import { expect, test } from "bun:test";
import { QUANTITY_TYPES } from "../../src/lib/constants";
import { doseNoun, dosePhrase, scheduleSentence } from "../../src/lib/dose";
import type { Schedule } from "../../src/lib/schedule";

// [type, 1, 0.5, 2, no amount: the type as the spec names it]
const TABLE: [string, string, string, string, string][] = [
  ["Capsule(s)", "1 capsule", "0.5 capsule", "2 capsules", "Capsule(s)"],
  ["Tablet(s)", "1 tablet", "0.5 tablet", "2 tablets", "Tablet(s)"],
  ["Gummy(ies)", "1 gummy", "0.5 gummy", "2 gummies", "Gummy(ies)"],
  ["Soft Gel", "1 soft gel", "0.5 soft gel", "2 soft gels", "Soft Gel"],
  ["Lozenge", "1 lozenge", "0.5 lozenge", "2 lozenges", "Lozenge"],
  ["Teaspoon(s)", "1 teaspoon", "0.5 teaspoon", "2 teaspoons", "Teaspoon(s)"],
  ["Tablespoon(s)", "1 tablespoon", "0.5 tablespoon", "2 tablespoons", "Tablespoon(s)"],
  ["Drop(s)", "1 drop", "0.5 drop", "2 drops", "Drop(s)"],
  ["Spray", "1 spray", "0.5 spray", "2 sprays", "Spray"],
  ["Other", "1", "0.5", "2", "Other"],
];

test("the table covers every quantity type", () => {
  expect(TABLE.map(([type]) => type)).toEqual([...QUANTITY_TYPES]);
});

test.each(TABLE)("%s: 1 → %p, 0.5 → %p, 2 → %p, none → %p", (type, one, half, two, none) => {
  expect([dosePhrase(1, type), dosePhrase(0.5, type), dosePhrase(2, type), dosePhrase(null, type)]).toEqual([
    one,
    half,
    two,
    none,
  ]);
  expect(dosePhrase(undefined, type)).toBe(none);
  // The dialog's unit beside the amount: the phrase's noun.
  expect([doseNoun(1, type), doseNoun(2, type), doseNoun(null, type)]).toEqual([
    one.replace(/^1 ?/, ""),
    two.replace(/^2 ?/, ""),
    two.replace(/^2 ?/, ""),
  ]);
  // Never the stored spelling with its '(s)', never '5 Other'.
  for (const amount of [1, 0.5, 2, 5, 1.25, 1000]) expect(dosePhrase(amount, type)).not.toMatch(/\(|Other/);
});

test.each([
  [5, "Drop(s)", "5 drops"],
  [1.5, "Teaspoon(s)", "1.5 teaspoons"],
  [0.25, "Tablet(s)", "0.25 tablet"],
  [5, "Other", "5"],
  [1000, "Capsule(s)", "1000 capsules"],
])("%p %s → %p", (amount, type, phrase) => {
  expect(dosePhrase(amount, type)).toBe(phrase);
});

const s = (times: string[], days: number[]) => ({ times, days }) as Schedule;
test.each([
  [null, "As needed"],
  [s(["morning", "evening"], [1, 2, 3, 4, 5]), "Morning and evening, weekdays"],
  [s(["evening", "morning"], [5, 4, 3, 2, 1]), "Morning and evening, weekdays"],
  [s(["anytime"], [1, 2, 3, 4, 5, 6, 7]), "Any time, every day"],
  [s(["bedtime"], [6, 7]), "Bedtime, weekends"],
  [s(["morning", "afternoon", "evening"], [1, 3, 5]), "Morning, afternoon and evening, Mon, Wed and Fri"],
  [s(["afternoon"], [2]), "Afternoon, Tue"],
  [s([], []), ""],
  // Issue 48: an every-N-days or cycle schedule says so (its days are all seven).
  [{ ...s(["morning"], [1, 2, 3, 4, 5, 6, 7]), every: { days: 2 } }, "Morning, every 2 days"],
  [{ ...s(["anytime"], [1, 2, 3, 4, 5, 6, 7]), cycle: { on: 5, off: 2 } }, "Any time, 5 days on, 2 off"],
  [{ ...s(["bedtime"], [1, 2, 3, 4, 5, 6, 7]), cycle: { on: 1, off: 1 } }, "Bedtime, 1 day on, 1 off"],
])("%o → %p", (schedule, sentence) => {
  expect(scheduleSentence(schedule)).toBe(sentence);
});
