/** The SQL that derives a supplement's stock from the intake log (issue 40, docs/stock.md). */
import { type SQL, sql } from "drizzle-orm";
import { intakes, reminderSettings, type Supplement, scheduleVersions } from "../../db/schema";
import { AS_NEEDED_AVERAGE_DAYS, DEFAULT_REFILL_LEAD, type StockFacts, type StockRefill } from "../../src/lib/stock";

/**
 * Units of the `taken` doses of supplement `s` (an alias of `supplements`) matching `where`:
 * each dose counts the amount of the version in force on its day at its time (the time's own
 * amount, issue 48, else the version's; 1 without one), times its count (an as-needed day's, issue
 * 48; 1 for every other dose). Counted per
 * version span (a supplement has few versions), so each dose is read once, from the index.
 */
function takenUnits(s: string, where: SQL): SQL {
  const alias = sql.raw(s);
  return sql`(select coalesce(sum((
      select sum(coalesce((v.schedule -> 'amounts' ->> i.time)::numeric, v.dose_amount, 1) * i.count) from ${intakes} i
      where i.user_id = ${alias}.user_id and i.supplement_id = ${alias}.id and i.status = 'taken'
        and i.date >= v.valid_from and (v.valid_to is null or i.date < v.valid_to) and ${where})), 0)
    from (select sv.dose_amount, sv.schedule, sv.valid_from,
        lead(sv.valid_from) over (order by sv.valid_from) as valid_to
      from ${scheduleVersions} sv where sv.user_id = ${alias}.user_id and sv.supplement_id = ${alias}.id) v
    where ${alias}.stock_counted_at is not null)`;
}

/**
 * The columns the arithmetic needs beyond the row (src/lib/stock.ts), for supplement alias `s`
 * on the user's `today`: units taken since the count (a dose ticked after it, of its day or
 * later), units taken over the last 30 days (as-needed only), and the user's lead time.
 */
export function stockColumns(s: string, today: SQL) {
  const alias = sql.raw(s);
  return {
    stockUsed: sql<string>`${takenUnits(s, sql`i.date >= ${alias}.stock_counted_on and i.at > ${alias}.stock_counted_at`)}`,
    stockRecent: sql<string>`${takenUnits(
      s,
      sql`(${alias}.schedule is null or jsonb_typeof(${alias}.schedule) = 'null')
        and i.date > ${today} - ${AS_NEEDED_AVERAGE_DAYS}::int and i.date <= ${today}`,
    )}`,
    refillLeadDays: sql<number | null>`(select rs.refill_lead_days from ${reminderSettings} rs
      where rs.user_id = ${alias}.user_id)`,
  };
}

/** What a row with stockColumns holds, as the arithmetic takes it. */
export function factsOf(
  row: Pick<Supplement, "unitsPerPack" | "stockCount" | "stockRefills" | "schedule" | "doseAmount">,
  used: unknown,
  recent: unknown,
): StockFacts {
  return {
    unitsPerPack: row.unitsPerPack ?? null,
    count: row.stockCount ?? null,
    refills: (row.stockRefills ?? []) as StockRefill[],
    used: Number(used ?? 0),
    recent: Number(recent ?? 0),
    schedule: row.schedule ?? null,
    doseAmount: row.doseAmount ?? null,
  };
}

export const leadOf = (value: unknown) => (value === null || value === undefined ? DEFAULT_REFILL_LEAD : Number(value));
