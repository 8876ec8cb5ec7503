/**
 * The Ingredients section of the supplement dialog (issue 47): 'Serving size' and lines of
 * ingredient (a searchable picker), amount and unit; 'Add ingredient', 'Remove' per line. A new
 * supplement's name suggests its first line (`Vitamin D3 2000 IU` → Vitamin D, 2000 IU) until
 * the lines are touched. Errors come keyed as the API names them (`ingredients.0.amount`).
 */
import { useEffect, useId } from "react";
import { CUSTOM_UNITS, type IngredientJson, suggestFromName } from "../../lib/ingredients";
import { NUTRIENTS_BY_ID } from "../../lib/nutrients";
import NutrientPicker from "./NutrientPicker";

export interface LineValue {
  key: number;
  nutrient: string | null;
  name: string;
  amount: string;
  unit: string;
}
export interface IngredientsValue {
  servingSize: string;
  lines: LineValue[];
  /** The lines are the name's suggestion (or empty) and may follow the name. */
  auto: boolean;
}

let nextKey = 1;
const blank = (): LineValue => ({ key: nextKey++, nutrient: null, name: "", amount: "", unit: "mg" });

export function ingredientsValueOf(source?: { servingSize?: number; ingredients?: IngredientJson[] } | null) {
  return {
    servingSize: String(source?.servingSize ?? 1),
    lines: (source?.ingredients ?? []).map((l) => ({
      key: nextKey++,
      nutrient: l.nutrient,
      name: l.name,
      amount: String(l.entered.amount),
      unit: l.entered.unit,
    })),
    auto: !source,
  };
}

/**
 * The body fields; empty lines are left out, numbers left for the rule to judge. A line the name
 * suggested without an amount, untouched, is left out too: a suggestion never blocks saving.
 */
export function ingredientsPayload(value: IngredientsValue) {
  const size = value.servingSize.trim();
  return {
    servingSize: size === "" ? 1 : Number(size),
    ingredients: value.lines
      .filter((l) => (l.name.trim() !== "" && !value.auto) || l.amount.trim() !== "")
      .map((l) => ({
        ...(l.nutrient ? { nutrient: l.nutrient } : { name: l.name }),
        amount: l.amount.trim() === "" ? Number.NaN : Number(l.amount),
        unit: l.unit,
      })),
  };
}

const unitsOf = (nutrient: string | null): readonly string[] =>
  (nutrient ? NUTRIENTS_BY_ID.get(nutrient)?.units : undefined) ?? CUSTOM_UNITS;

interface Props {
  value: IngredientsValue;
  onChange: (next: IngredientsValue) => void;
  /** The supplement's name, for a new supplement's suggestion. */
  name: string;
  errors: Record<string, string | undefined>;
}

export default function IngredientsFields({ value, onChange, name, errors }: Props) {
  const id = useId();
  useEffect(() => {
    if (!value.auto) return;
    const s = suggestFromName(name);
    const line = s
      ? {
          key: value.lines[0]?.key ?? nextKey++,
          nutrient: s.nutrient.id,
          name: s.nutrient.name,
          amount: s.amount === null ? "" : String(s.amount),
          unit: s.unit,
        }
      : null;
    const current = value.lines[0];
    const same =
      line &&
      current &&
      line.nutrient === current.nutrient &&
      line.amount === current.amount &&
      line.unit === current.unit;
    if (same || (!line && value.lines.length === 0)) return;
    onChange({ ...value, lines: line ? [line] : [] });
  }, [name, value, onChange]);

  const setLine = (index: number, patch: Partial<LineValue>) =>
    onChange({ ...value, auto: false, lines: value.lines.map((l, i) => (i === index ? { ...l, ...patch } : l)) });
  const error = (key: string) => errors[key];
  const sizeError = error("servingSize");

  return (
    <fieldset className="min-w-0 space-y-3 rounded-xl border border-slate-200 p-3" data-testid="ingredients-fields">
      <legend className="px-1 text-sm font-semibold text-slate-900">Ingredients</legend>
      <div>
        <label htmlFor={`${id}-serving`} className="field-label">
          Serving size
        </label>
        <input
          id={`${id}-serving`}
          className="field-input w-28"
          inputMode="decimal"
          value={value.servingSize}
          aria-invalid={sizeError ? true : undefined}
          aria-describedby={`${id}-serving-hint${sizeError ? ` ${id}-serving-error` : ""}`}
          onChange={(e) => onChange({ ...value, servingSize: e.target.value })}
        />
        <p id={`${id}-serving-hint`} className="field-hint">
          How many the label's amounts are for (e.g., 2 for "per 2 capsules").
        </p>
        {sizeError && (
          <p id={`${id}-serving-error`} className="field-error">
            {sizeError}
          </p>
        )}
      </div>
      {value.lines.length > 0 && (
        <ul className="space-y-3">
          {value.lines.map((line, index) => {
            const n = index + 1;
            const lineErrors = ["nutrient", "name", "amount", "unit"]
              .map((f) => error(`ingredients.${index}.${f}`))
              .concat(error(`ingredients.${index}`))
              .filter(Boolean);
            return (
              <li
                key={line.key}
                className="grid grid-cols-[1fr_auto] gap-2 sm:grid-cols-[1fr_6rem_7rem_auto]"
                data-testid="ingredient-line"
              >
                <div className="min-w-0">
                  <NutrientPicker
                    id={`${id}-name-${line.key}`}
                    label={`Ingredient ${n}`}
                    value={{ nutrient: line.nutrient, name: line.name }}
                    invalid={lineErrors.length > 0}
                    describedBy={lineErrors.length > 0 ? `${id}-error-${line.key}` : undefined}
                    onChange={(picked) => {
                      const units = unitsOf(picked.nutrient);
                      setLine(index, { ...picked, unit: units.includes(line.unit) ? line.unit : (units[0] as string) });
                    }}
                  />
                </div>
                <div className="col-span-2 flex gap-2 sm:col-span-1 sm:contents">
                  <input
                    className="field-input min-w-0 flex-1"
                    aria-label={`Amount ${n}`}
                    inputMode="decimal"
                    value={line.amount}
                    onChange={(e) => setLine(index, { amount: e.target.value })}
                  />
                  <select
                    className="field-input w-28 shrink-0"
                    aria-label={`Unit ${n}`}
                    value={line.unit}
                    onChange={(e) => setLine(index, { unit: e.target.value })}
                  >
                    {unitsOf(line.nutrient).map((u) => (
                      <option key={u} value={u}>
                        {u}
                      </option>
                    ))}
                  </select>
                </div>
                <button
                  type="button"
                  className="btn btn-outline btn-sm self-start sm:order-last"
                  aria-label={`Remove ingredient ${n}`}
                  onClick={() => onChange({ ...value, auto: false, lines: value.lines.filter((_, i) => i !== index) })}
                >
                  Remove
                </button>
                {lineErrors.length > 0 && (
                  <p id={`${id}-error-${line.key}`} className="field-error col-span-2 sm:col-span-4">
                    {lineErrors[0]}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {error("ingredients") && <p className="field-error">{error("ingredients")}</p>}
      <button
        type="button"
        className="btn btn-outline btn-sm"
        onClick={() => onChange({ ...value, auto: false, lines: [...value.lines, blank()] })}
      >
        Add ingredient
      </button>
    </fieldset>
  );
}
