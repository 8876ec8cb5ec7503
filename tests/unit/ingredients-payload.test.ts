/**
 * The dialog's ingredient lines as sent (issue 47): a line the supplement's name suggested,
 * untouched and without an amount, is not an ingredient (adding `Vitamin D3` with a name and a
 * frequency once stayed in the dialog: `Amount must be a number…` on a line nobody typed).
 */
import { expect, test } from "bun:test";
import { type IngredientsValue, ingredientsPayload } from "../../src/islands/ingredients/IngredientsFields";

const line = (name: string, amount: string, nutrient: string | null = null, unit = "mg") => ({
  key: 1,
  nutrient,
  name,
  amount,
  unit,
});
const value = (auto: boolean, ...lines: ReturnType<typeof line>[]): IngredientsValue => ({
  servingSize: "1",
  lines,
  auto,
});

test.each([
  [
    "the name's suggestion without an amount, untouched: left out",
    value(true, line("Vitamin D", "", "vitamin-d", "mcg")),
    [],
  ],
  [
    "the name's suggestion with its amount (`Vitamin D3 2000 IU`): sent",
    value(true, line("Vitamin D", "2000", "vitamin-d", "IU")),
    [{ nutrient: "vitamin-d", amount: 2000, unit: "IU" }],
  ],
  [
    "a line the user touched, without an amount: sent for the rule to refuse",
    value(false, line("Vitamin D", "", "vitamin-d", "mcg")),
    [{ nutrient: "vitamin-d", amount: Number.NaN, unit: "mcg" }],
  ],
  ["an empty line: left out", value(false, line("", "")), []],
  [
    "a named line of the user's own: sent by name",
    value(false, line("Ashwagandha root", "600")),
    [{ name: "Ashwagandha root", amount: 600, unit: "mg" }],
  ],
])("%s", (_name, input, ingredients) => {
  expect(ingredientsPayload(input).ingredients).toEqual(ingredients);
});
