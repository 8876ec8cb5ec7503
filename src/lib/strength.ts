/**
 * A dose's strength and the totals' words (issue 47), for the islands: no nutrient table, no
 * zod (the lines carry their names). `1 soft gel · 50 mcg vitamin D`; `5 g creatine` for Other;
 * the over-the-limit line and the card's fixed texts. Arithmetic helpers shared with totals.ts.
 */

/** A line as a dose needs it: the nutrient's id (null outside the table), its name, amount and unit. */
export interface StrengthLine {
  nutrient?: string | null;
  name?: string;
  amount: number;
  unit: string;
}
export interface Strength {
  servingSize: number;
  ingredients: readonly StrengthLine[];
}

/** Rounds away float noise (0.1 + 0.2) without losing an entered 3-decimal amount. */
export const tidy = (value: number): number => Math.round(value * 1e6) / 1e6;

const numberFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
/** en-US grouping, at most 2 decimals: `2,000`, `0.5`. */
export const formatAmount = (value: number): string => numberFormat.format(value);

/** Servings in one dose: the dose over the serving size; a dose without an amount is one serving. */
export const servingsOf = (doseAmount: number | null | undefined, servingSize: number): number =>
  doseAmount == null ? 1 : doseAmount / servingSize;

/** `50 mcg (2,000 IU)` when typed in another unit, else `50 mcg`. */
export function amountWithEntered(line: { amount: number; unit: string; entered: { amount: number; unit: string } }) {
  const main = `${formatAmount(line.amount)} ${line.unit}`;
  return line.entered.unit === line.unit ? main : `${main} (${formatAmount(line.entered.amount)} ${line.entered.unit})`;
}

/** A name inside a sentence: the table's `Vitamin D` as `vitamin D`; a typed name as typed. */
const inSentence = (line: StrengthLine): string => {
  const name = line.name ?? line.nutrient ?? "";
  return line.nutrient ? name.charAt(0).toLowerCase() + name.slice(1) : name;
};

/**
 * A dose's strength: `50 mcg vitamin D`, `50 mcg vitamin D, 11 mg zinc and 3 more`; '' without
 * lines. Amounts per dose (the dose over the serving size, times each line).
 */
export function strengthPhrase(doseAmount: number | null | undefined, strength: Strength | null | undefined): string {
  if (!strength || strength.ingredients.length === 0) return "";
  const servings = servingsOf(doseAmount, strength.servingSize);
  const words = strength.ingredients.map(
    (line) => `${formatAmount(tidy(line.amount * servings))} ${line.unit} ${inSentence(line)}`,
  );
  if (words.length <= 2) return words.join(", ");
  return `${words.slice(0, 2).join(", ")} and ${words.length - 2} more`;
}

/**
 * `phrase` (the dose in words, dose.ts) with its strength: `1 soft gel · 50 mcg vitamin D`; for
 * `Other` with one line the line alone (`5 g creatine`, never a bare `5`).
 */
export function withStrength(
  phrase: string,
  doseAmount: number | null | undefined,
  quantityType: string,
  strength: Partial<Strength> | null | undefined,
): string {
  if (!strength?.ingredients?.length) return phrase;
  const words = strengthPhrase(doseAmount, {
    servingSize: strength.servingSize ?? 1,
    ingredients: strength.ingredients,
  });
  if (quantityType === "Other" && strength.ingredients.length === 1) return words;
  return phrase ? `${phrase} · ${words}` : words;
}
