/**
 * A supplement's ingredient lines (issue 47): units and their conversion on entry, the stored
 * and answered shapes, the picker's search and the prefill from
 * a supplement's name. Pure and import-light (no zod: its schema is in validation.ts), shared
 * by the API and the dialog. Words for a dose's strength are in strength.ts, the totals in totals.ts.
 */
import { NUTRIENTS, NUTRIENTS_BY_ID, type Nutrient } from "./nutrients";
import { tidy } from "./strength";

export const SERVING_SIZE_MAX = 100;
export const INGREDIENTS_MAX = 40;
export const INGREDIENT_AMOUNT_MAX = 1_000_000;
export const INGREDIENT_NAME_MAX = 60;
/** Units of a line outside the table (`5 g creatine`). */
export const CUSTOM_UNITS = ["mg", "mcg", "g", "ml", "IU"] as const;

export const INGREDIENT_MESSAGES = {
  servingSize: `Serving size must be a number above 0 and at most ${SERVING_SIZE_MAX}, with at most two decimals`,
  lines: `Add at most ${INGREDIENTS_MAX} ingredients`,
  line: "Each ingredient needs a nutrient or a name, an amount and a unit",
  nutrient: "Unknown nutrient",
  both: "Choose a nutrient or type a name, not both",
  name: `Ingredient name must be 1 to ${INGREDIENT_NAME_MAX} characters`,
  duplicate: "This ingredient is listed twice",
  amount: `Amount must be a number above 0 and at most ${INGREDIENT_AMOUNT_MAX.toLocaleString("en-US")}, with at most three decimals`,
  unit: (units: readonly string[]) => `Unit must be one of ${units.join(", ")}`,
} as const;

/** A line as stored (jsonb): the amount in the nutrient's unit, and what the user typed. */
export interface StoredIngredient {
  nutrient?: string;
  name?: string;
  amount: number;
  unit: string;
  entered: { amount: number; unit: string };
}

/** A line as the API answers it. `nutrient` is null for a line outside the table. */
export interface IngredientJson {
  nutrient: string | null;
  name: string;
  amount: number;
  unit: string;
  entered: { amount: number; unit: string };
}

/** `µg` (micro sign or Greek mu) and `ug` are mcg; `iu` is IU. */
export function normalizeUnit(unit: string): string {
  const u = unit.trim();
  if (u === "µg" || u === "μg" || u === "ug") return "mcg";
  if (u.toLowerCase() === "iu") return "IU";
  return u;
}

const MASS_IN_MCG: Record<string, number> = { mcg: 1, mg: 1000, g: 1_000_000 };
/** IU in the nutrient's unit: vitamin D 1 mcg = 40 IU; A (retinol) 1 IU = 0.3 mcg RAE; E (d-alpha) 1 IU = 0.67 mg. */
const IU: Record<string, number> = { "vitamin-d": 0.025, "vitamin-a": 0.3, "vitamin-e": 0.67 };

/** The mass base (mcg or mg) of a unit such as `mcg RAE`; null for ml and IU. */
const baseOf = (unit: string): "mcg" | "mg" | null => (unit.startsWith("mcg") ? "mcg" : unit === "mg" ? "mg" : null);

/** `amount` of `unit` in `nutrient`'s unit; null when the nutrient does not accept the unit. */
export function toNutrientUnit(nutrient: Nutrient, amount: number, unit: string): number | null {
  const u = normalizeUnit(unit);
  if (!nutrient.units.includes(u)) return null;
  if (u === "IU") {
    const factor = IU[nutrient.id];
    return factor === undefined ? null : tidy(amount * factor);
  }
  const target = baseOf(nutrient.unit);
  const from = u.startsWith("mcg") ? "mcg" : u;
  const fromMcg = MASS_IN_MCG[from];
  if (!target || fromMcg === undefined) return null;
  return tidy((amount * fromMcg) / (MASS_IN_MCG[target] as number));
}

/** The same mass in another mass unit (custom lines totalled by name); null when not both masses. */
export function convertMass(amount: number, from: string, to: string): number | null {
  const a = MASS_IN_MCG[from];
  const b = MASS_IN_MCG[to];
  return a === undefined || b === undefined ? null : tidy((amount * a) / b);
}

/** A stored line as the API answers it (the table's current name for a nutrient). */
export function ingredientJson(line: StoredIngredient): IngredientJson {
  const nutrient = line.nutrient ? NUTRIENTS_BY_ID.get(line.nutrient) : undefined;
  return {
    nutrient: line.nutrient ?? null,
    name: nutrient?.name ?? line.name ?? line.nutrient ?? "",
    amount: line.amount,
    unit: line.unit,
    entered: line.entered,
  };
}

const lower = (text: string) => text.toLowerCase();

/** The picker's search: name, id or alias containing the query, names starting with it first. */
export function searchNutrients(query: string): Nutrient[] {
  const q = lower(query.trim());
  if (!q) return [...NUTRIENTS];
  const hits = NUTRIENTS.filter((n) => [n.name, n.id, ...n.aliases].some((word) => lower(word).includes(q)));
  const starts = (n: Nutrient) => [n.name, ...n.aliases].some((word) => lower(word).startsWith(q));
  return [...hits.filter(starts), ...hits.filter((n) => !starts(n))];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const AMOUNT_IN_NAME = /(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(mcg|µg|μg|ug|mg|g|iu)\b/i;

/**
 * The first line a new supplement's name suggests: the nutrient named earliest in it, with the
 * amount and unit it carries when the nutrient accepts that unit (`Vitamin D3 2000 IU` →
 * vitamin D, 2000 IU; `Magnesium glycinate` → magnesium, no amount). Null when none is named.
 */
export function suggestFromName(name: string): { nutrient: Nutrient; amount: number | null; unit: string } | null {
  const text = lower(name);
  let best: { nutrient: Nutrient; at: number } | null = null;
  for (const nutrient of NUTRIENTS) {
    for (const word of [nutrient.name, nutrient.id, ...nutrient.aliases]) {
      const match = new RegExp(`(^|[^a-z0-9])${escapeRegExp(lower(word))}($|[^a-z0-9])`).exec(text);
      if (match && (!best || match.index < best.at)) best = { nutrient, at: match.index };
    }
  }
  if (!best) return null;
  const { nutrient } = best;
  const amount = AMOUNT_IN_NAME.exec(name);
  const unit = amount ? normalizeUnit(amount[2] as string) : "";
  if (amount && toNutrientUnit(nutrient, 1, unit) !== null) {
    return { nutrient, amount: Number((amount[1] as string).replaceAll(",", "")), unit };
  }
  return { nutrient, amount: null, unit: nutrient.units[0] as string };
}
