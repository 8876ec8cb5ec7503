/**
 * A day's totals per nutrient (issue 47): pure arithmetic over the day Today reads (the doses
 * due that day at the amounts of the schedule versions in force, and what was ticked). Units
 * and conversions are in ingredients.ts, the ULs in nutrients.ts. See docs/ingredients.md.
 */
import { convertMass } from "./ingredients";
import { NUTRIENTS_BY_ID } from "./nutrients";
import { type StrengthLine, servingsOf, tidy } from "./strength";

export interface SourceTotal {
  supplementId: number;
  name: string;
  planned: number;
  taken: number;
}
export interface NutrientTotal {
  /** Null for a line outside the table (totalled by name, case-insensitive). */
  nutrient: string | null;
  name: string;
  unit: string;
  planned: number;
  taken: number;
  ul: number | null;
  percentOfUl: number | null;
  over: boolean;
  sources: SourceTotal[];
}
export interface TotalsJson {
  date: string;
  nutrients: NutrientTotal[];
}

/** What the arithmetic reads of a day: Today's doses and as-needed items. */
interface DayItem {
  supplementId: number;
  name: string;
  doseAmount: number | null;
  servingSize?: number;
  ingredients?: StrengthLine[];
}
export interface DayInput {
  date: string;
  doses: (DayItem & { status: string | null })[];
  asNeeded: (DayItem & { status: string | null; count?: number })[];
}

const round2 = (value: number) => Math.round(value * 100) / 100;

interface Bucket {
  nutrient: string | null;
  name: string;
  unit: string;
  ul: number | null;
  sources: Map<number, SourceTotal>;
}

/** The line's bucket key and its amount in the bucket's unit (custom masses join the first line's unit). */
function place(buckets: Map<string, Bucket>, line: StrengthLine): { bucket: Bucket; amount: number } {
  if (line.nutrient) {
    const nutrient = NUTRIENTS_BY_ID.get(line.nutrient);
    let bucket = buckets.get(line.nutrient);
    if (!bucket) {
      bucket = {
        nutrient: line.nutrient,
        name: nutrient?.name ?? line.nutrient,
        unit: line.unit,
        ul: nutrient?.ul ?? null,
        sources: new Map(),
      };
      buckets.set(line.nutrient, bucket);
    }
    return { bucket, amount: line.amount };
  }
  const name = line.name ?? "";
  const key = `name:${name.toLowerCase()}`;
  const first = buckets.get(key);
  if (first) {
    if (first.unit === line.unit) return { bucket: first, amount: line.amount };
    const converted = convertMass(line.amount, line.unit, first.unit);
    if (converted !== null) return { bucket: first, amount: converted };
  }
  const own = first ? `${key}/${line.unit}` : key;
  let bucket = buckets.get(own);
  if (!bucket) {
    bucket = { nutrient: null, name, unit: line.unit, ul: null, sources: new Map() };
    buckets.set(own, bucket);
  }
  return { bucket, amount: line.amount };
}

function add(buckets: Map<string, Bucket>, item: DayItem, servings: number, field: "planned" | "taken") {
  for (const line of item.ingredients ?? []) {
    const { bucket, amount } = place(buckets, line);
    let source = bucket.sources.get(item.supplementId);
    if (!source) {
      source = { supplementId: item.supplementId, name: item.name, planned: 0, taken: 0 };
      bucket.sources.set(item.supplementId, source);
    }
    source[field] += amount * servings;
  }
}

/**
 * Per nutrient: `planned` from every scheduled dose of the day, `taken` from the doses ticked
 * taken (as-needed ones by their count), each dose's servings (dose over serving size) times
 * the line. Sorted by percent of the UL (none last), then name.
 */
export function dayTotals(day: DayInput): TotalsJson {
  const buckets = new Map<string, Bucket>();
  for (const dose of day.doses) {
    const servings = servingsOf(dose.doseAmount, dose.servingSize ?? 1);
    add(buckets, dose, servings, "planned");
    if (dose.status === "taken") add(buckets, dose, servings, "taken");
  }
  for (const item of day.asNeeded) {
    const count = item.count ?? (item.status === "taken" ? 1 : 0);
    if (count > 0) add(buckets, item, servingsOf(item.doseAmount, item.servingSize ?? 1) * count, "taken");
  }
  const nutrients = [...buckets.values()].map((bucket): NutrientTotal => {
    const sources = [...bucket.sources.values()].map((s) => ({
      ...s,
      planned: round2(tidy(s.planned)),
      taken: round2(tidy(s.taken)),
    }));
    const planned = round2(tidy(sources.reduce((sum, s) => sum + s.planned, 0)));
    const taken = round2(tidy(sources.reduce((sum, s) => sum + s.taken, 0)));
    const { ul } = bucket;
    return {
      nutrient: bucket.nutrient,
      name: bucket.name,
      unit: bucket.unit,
      planned,
      taken,
      ul,
      percentOfUl: ul === null ? null : Math.round((Math.max(planned, taken) / ul) * 100),
      over: ul !== null && (planned > ul || taken > ul),
      sources,
    };
  });
  nutrients.sort((a, b) => (b.percentOfUl ?? -1) - (a.percentOfUl ?? -1) || a.name.localeCompare(b.name, "en"));
  return { date: day.date, nutrients };
}
