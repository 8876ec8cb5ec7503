/**
 * Issue 47: a dose's strength in words (list, Today, reminders), the prefill from a name and the
 * picker's search, as tables.
 */
import { describe, expect, test } from "bun:test";
import { dosePhrase } from "../../src/lib/dose";
import { searchNutrients, suggestFromName } from "../../src/lib/ingredients";
import { withStrength } from "../../src/lib/strength";
import { overLimitLine } from "../../src/lib/totals-words";

const D = { nutrient: "vitamin-d", name: "Vitamin D", amount: 50, unit: "mcg" };
const ZINC = { nutrient: "zinc", name: "Zinc", amount: 11, unit: "mg" };
const C = { nutrient: "vitamin-c", name: "Vitamin C", amount: 90, unit: "mg" };
const CREATINE = { nutrient: null, name: "creatine", amount: 5, unit: "g" };

describe("withStrength", () => {
  // [dose, quantity type, serving size, lines, words]
  const cases: [number | null, string, number, (typeof D | typeof CREATINE)[], string][] = [
    [1, "Soft Gel", 1, [D], "1 soft gel · 50 mcg vitamin D"],
    [2, "Soft Gel", 1, [D], "2 soft gels · 100 mcg vitamin D"],
    [1, "Capsule(s)", 2, [D], "1 capsule · 25 mcg vitamin D"],
    [5, "Other", 5, [CREATINE], "5 g creatine"],
    [null, "Other", 1, [CREATINE], "5 g creatine"],
    [1, "Tablet(s)", 1, [D, ZINC], "1 tablet · 50 mcg vitamin D, 11 mg zinc"],
    [1, "Tablet(s)", 1, [D, ZINC, C], "1 tablet · 50 mcg vitamin D, 11 mg zinc and 1 more"],
    [1, "Tablet(s)", 1, [], "1 tablet"],
    [1, "Tablet(s)", 3, [{ ...D, amount: 10 }], "1 tablet · 3.33 mcg vitamin D"],
  ];
  test.each(cases)("%p %s per %p serving: %s", (dose, type, servingSize, ingredients, words) => {
    expect(withStrength(dosePhrase(dose, type), dose, type, { servingSize, ingredients })).toBe(words);
  });
});

describe("suggestFromName", () => {
  // [name, nutrient, amount, unit]
  const cases: [string, string | null, number | null, string | null][] = [
    ["Vitamin D3 2000 IU", "vitamin-d", 2000, "IU"],
    ["Vitamin D3", "vitamin-d", null, "mcg"],
    ["Magnesium glycinate", "magnesium", null, "mg"],
    ["Zinc", "zinc", null, "mg"],
    ["Zinc 15mg", "zinc", 15, "mg"],
    ["Vitamin C 1,000 mg", "vitamin-c", 1000, "mg"],
    ["Vitamin D3 + K2", "vitamin-d", null, "mcg"],
    ["Zinc 2000 IU", "zinc", null, "mg"],
    ["Ashwagandha", null, null, null],
  ];
  test.each(cases)("%s", (name, nutrient, amount, unit) => {
    const s = suggestFromName(name);
    expect(s ? [s.nutrient.id, s.amount, s.unit] : [null, null, null]).toEqual([nutrient, amount, unit]);
  });
});

test.each([
  ["d3", "vitamin-d"],
  ["cholecalciferol", "vitamin-d"],
  ["Vitamin D", "vitamin-d"],
  ["picolinate", "zinc"],
])("searching %s finds %s first", (query, id) => {
  expect(searchNutrients(query)[0]?.id).toBe(id);
});

test("the warning line, exactly", () => {
  const d = { name: "Vitamin D", unit: "mcg", ul: 100 };
  expect(overLimitLine({ ...d, planned: 150, taken: 0 })).toBe(
    "Vitamin D: 150 mcg a day, above the 100 mcg upper limit for adults",
  );
  expect(overLimitLine({ ...d, planned: 120, taken: 1250.456 })).toBe(
    "Vitamin D: 1,250.46 mcg a day, above the 100 mcg upper limit for adults",
  );
  expect(overLimitLine({ name: "Copper", unit: "mcg", ul: 10000, planned: 12000, taken: 0 })).toBe(
    "Copper: 12,000 mcg a day, above the 10,000 mcg upper limit for adults",
  );
});
