/**
 * Stock and refills (issue 40), shared by the API and the islands: the wire shape, the rules
 * of a change, and the pure arithmetic of what is left and when it runs out. What is left is
 * derived from the intake log at read time, never kept as a counter (docs/stock.md). No zod
 * here: the dashboard's rows and Today import this file, and the input schemas
 * (./stock-input.ts) load with the Stock dialog.
 */
import { addDays } from "./dates";
import { doseNoun } from "./dose";
import { amountAt } from "./due";
import type { Schedule } from "./schedule";

/** A refill since the last count: when (ISO) and how many units it added. */
export interface StockRefill {
  at: string;
  units: number;
}

/** `stock` of a GET /api/supplements row; null when neither a count nor a pack size was set. */
export interface StockJson {
  /** The last count + refills since − doses taken since; null before a first count. Negative: 'Recount?'. */
  left: number | null;
  unitsPerPack: number | null;
  /** The user's date it runs out around; null without a count, with nothing taken, below zero, or over 10 years away. */
  runsOutOn: string | null;
  /** It runs out within the user's refill lead time (or is below zero): Today shows the notice. */
  refillDue: boolean;
}

export const STOCK_MAX = 99_999;
/** The smallest count or pack size above zero: stock is kept in hundredths. */
export const STOCK_MIN = 0.01;
/** A run-out further than this many days (10 years) is not shown: none is (issue 45). */
export const RUN_OUT_MAX_DAYS = 3653;
/** The one-tap refill's label, on a supplement's menu and on Today's notice. */
export const PLUS_ONE_PACK = "+1 pack";
export const PACKS_MAX = 20;
/** Refills kept since the last count; a recount starts the list again. */
export const REFILLS_MAX = 100;
/** As-needed supplements run out at the average of this many days of taken doses. */
export const AS_NEEDED_AVERAGE_DAYS = 30;
export const REFILL_LEAD_CHOICES = [0, 3, 7, 14] as const;
export type RefillLeadDays = (typeof REFILL_LEAD_CHOICES)[number];
export const DEFAULT_REFILL_LEAD: RefillLeadDays = 7;

export const STOCK_MESSAGES = {
  count: `Count must be a number from 0 to ${STOCK_MAX} (at most 2 decimals)`,
  unitsPerPack: `Units per pack must be a number from ${STOCK_MIN} to ${STOCK_MAX} (at most 2 decimals)`,
  empty: "Give unitsPerPack, count or both",
  unknown: "Unknown field: only unitsPerPack and count",
  packs: `Packs must be a whole number from 1 to ${PACKS_MAX}`,
  noPackSize: "Set the units per pack before adding a pack",
  tooManyRefills: `More than ${REFILLS_MAX} refills since the last count: set the count first`,
  tooMuchStock: `Stock can be at most ${STOCK_MAX} units: set the count instead`,
  refillLead: "Refill reminder must be 0 (off), 3, 7 or 14 days",
  // Shown by the islands only.
  recount: "Recount?",
  saved: "Stock saved",
  saveFailed: "Failed to save stock",
  packAdded: "1 pack added",
  packFailed: "Failed to add a pack",
} as const;

/** What the database derives per supplement (api/supplements/stock.ts) for the arithmetic below. */
export interface StockFacts {
  unitsPerPack: number | null;
  count: number | null;
  refills: StockRefill[];
  /** Units of the doses ticked `taken` since the count (each its version's amount, 1 without one). */
  used: number;
  /** Units taken over the last AS_NEEDED_AVERAGE_DAYS days (as-needed supplements only). */
  recent: number;
  schedule: Schedule | null;
  doseAmount: number | null;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Units a day on average: the schedule's doses over its pattern (a week of chosen days, every N
 * days, or one on/off cycle: 5 on, 2 off lasts 7/5 as long as daily), each time at its own
 * amount (issue 48); or the last 30 days' as needed.
 */
export function dailyAmount(facts: Pick<StockFacts, "schedule" | "doseAmount" | "recent">): number {
  const schedule = facts.schedule;
  if (schedule === null) return facts.recent / AS_NEEDED_AVERAGE_DAYS;
  const perDueDay = schedule.times.reduce((sum, time) => sum + (amountAt(schedule, time, facts.doseAmount) ?? 1), 0);
  if (schedule.every) return perDueDay / schedule.every.days;
  if (schedule.cycle) return (perDueDay * schedule.cycle.on) / (schedule.cycle.on + schedule.cycle.off);
  return (perDueDay * new Set(schedule.days).size) / 7;
}

/**
 * The day `units` last until from `today`, walking the pattern: nothing is used before
 * startsOn, and a schedule that ends first never runs out (null).
 */
function runOutDay(schedule: Schedule | null, today: string, days: number): string | null {
  const from = schedule?.startsOn && schedule.startsOn > today ? schedule.startsOn : today;
  const day = addDays(from, days);
  return schedule?.endsOn && day > schedule.endsOn ? null : day;
}

/** The row's `stock`: left, and the date (from the user's `today`) it runs out around. */
export function stockOf(facts: StockFacts, today: string, leadDays: number): StockJson | null {
  if (facts.count === null && facts.unitsPerPack === null) return null;
  const left =
    facts.count === null ? null : round2(facts.count + facts.refills.reduce((n, r) => n + r.units, 0) - facts.used);
  const perDay = dailyAmount(facts);
  // Bounded (issue 45): a large stock of a tiny dose lasts millennia, past any date; none is shown.
  const days = left === null || left < 0 || !(perDay > 0) ? Number.NaN : Math.floor(left / perDay);
  const runsOutOn = Number.isFinite(days) && days <= RUN_OUT_MAX_DAYS ? runOutDay(facts.schedule, today, days) : null;
  const refillDue =
    leadDays > 0 && left !== null && (left < 0 || (runsOutOn !== null && runsOutOn <= addDays(today, leadDays)));
  return { left, unitsPerPack: facts.unitsPerPack, runsOutOn, refillDue };
}

/** `23 capsules left`, `5 left` (Other), or `Recount?` below zero. */
export function leftPhrase(left: number, quantityType: string): string {
  if (left < 0) return STOCK_MESSAGES.recount;
  // Singular up to 1 as a dose reads ('0.5 teaspoon'), but '0 capsules'.
  const noun = doseNoun(left > 0 ? left : 2, quantityType);
  return noun ? `${left} ${noun} left` : `${left} left`;
}

/** `19 December` (with the year when it is not `today`'s). */
export function runsOutWords(date: string, today: string): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const sameYear = date.slice(0, 4) === today.slice(0, 4);
  return new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "long",
    ...(sameYear ? {} : { year: "numeric" }),
    timeZone: "UTC",
  }).format(new Date(Date.UTC(y, m - 1, d)));
}

/** The row's line: `23 capsules left · runs out around 19 December`, or `Recount?`. */
export function stockLine(stock: StockJson, quantityType: string, today: string): string {
  if (stock.left === null) return "";
  if (stock.left < 0) return STOCK_MESSAGES.recount;
  const left = leftPhrase(stock.left, quantityType);
  return stock.runsOutOn ? `${left} · runs out around ${runsOutWords(stock.runsOutOn, today)}` : left;
}
