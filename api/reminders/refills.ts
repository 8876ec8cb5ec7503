/**
 * The refill reminder (issue 40) through the reminder outbox: when a supplement's run-out date
 * comes within the user's lead time, one row per enabled channel, keyed by the run-out date;
 * `supplements.refill_reminded_at` keeps it from being planned again until a refill or a
 * recount starts a new run-out. Exactly once across instances: the mark is a conditional
 * UPDATE, so only one planner's statement gets the row. See docs/stock.md.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type Supplement, supplements } from "../../db/schema";
import { dateIn } from "../../src/lib/dates";
import type { ReminderPayload } from "../../src/lib/reminders";
import { leftPhrase, runsOutWords, stockOf } from "../../src/lib/stock";
import { factsOf, leadOf, stockColumns } from "../queries/stock";
import { rowsOf } from "../supplement-trash";
import { TODAY_URL } from "./message";

/** The e-mail's line to the app (reminderMail's `action`). */
export const REFILL_MAIL_ACTION = "Add a pack when you restock";

/** The outbox slot of a supplement's refill reminder. */
export const refillSlot = (supplementId: number) => `refill-${supplementId}`;
export const refillSupplementId = (slot: string): number | null => {
  const match = /^refill-(\d{1,10})$/.exec(slot);
  return match ? Number(match[1]) : null;
};

/** The run-out the current reminder mark belongs to began at the count or the last refill since. */
const epochStart = sql`greatest(s.stock_counted_at,
  (select max((r ->> 'at')::timestamptz) from jsonb_array_elements(s.stock_refills) r))`;
const notYetReminded = sql`(s.refill_reminded_at is null or s.refill_reminded_at < ${epochStart})`;

interface StockRow {
  id: number;
  userId: string;
  name: string;
  quantityType: string;
  zone: string;
  facts: ReturnType<typeof factsOf>;
  lead: number;
}

const rowColumns = sql`s.id, s.user_id, s.name, s.quantity_type, s.units_per_pack, s.stock_count, s.stock_refills,
  s.schedule, s.dose_amount, coalesce(u.time_zone, 'UTC') as zone`;

function toStockRow(raw: Record<string, unknown>): StockRow {
  const row = {
    unitsPerPack: raw.units_per_pack === null ? null : Number(raw.units_per_pack),
    stockCount: raw.stock_count === null ? null : Number(raw.stock_count),
    stockRefills: (typeof raw.stock_refills === "string"
      ? JSON.parse(raw.stock_refills)
      : raw.stock_refills) as Supplement["stockRefills"],
    schedule: (typeof raw.schedule === "string" ? JSON.parse(raw.schedule) : raw.schedule) as Supplement["schedule"],
    doseAmount: raw.dose_amount === null ? null : Number(raw.dose_amount),
  };
  return {
    id: Number(raw.id),
    userId: String(raw.user_id),
    name: String(raw.name),
    quantityType: String(raw.quantity_type),
    zone: String(raw.zone),
    facts: factsOf(row, raw.stock_used, raw.stock_recent),
    lead: leadOf(raw.refill_lead_days),
  };
}

/** The user's today in their zone at `at`, as SQL (for the as-needed window). */
const todayAt = (at: Date) => sql`((${at.toISOString()}::timestamptz at time zone coalesce(u.time_zone, 'UTC'))::date)`;

const stockSelect = (at: Date) => {
  const c = stockColumns("s", todayAt(at));
  return sql`${c.stockUsed} as stock_used, ${c.stockRecent} as stock_recent, ${c.refillLeadDays} as refill_lead_days`;
};

/**
 * One planning round at `at`: the stock of users with a channel on and a lead time, not yet
 * reminded for its current run-out (one statement), judged here (src/lib/stock.ts); those
 * due are marked and their outbox rows inserted (one statement). Answers how many rows went in.
 */
export async function planRefillReminders(db: Db, at: Date): Promise<number> {
  const candidates = rowsOf(
    await db.execute(sql`
      select ${rowColumns}, ${stockSelect(at)}
      from reminder_settings rs
      join ${supplements} s on s.user_id = rs.user_id
      join users u on u.id = s.user_id
      where (rs.email or rs.push) and rs.refill_lead_days > 0
        and s.stock_counted_at is not null and ${notYetReminded}`),
  ).map(toStockRow);
  const due = candidates.flatMap((c) => {
    const today = dateIn(c.zone, at);
    const stock = stockOf(c.facts, today, c.lead);
    return stock?.refillDue ? [{ id: c.id, user_id: c.userId, run_out: stock.runsOutOn ?? today }] : [];
  });
  if (due.length === 0) return 0;
  const atIso = at.toISOString();
  const result = await db.execute(sql`
    with due as (
      select * from jsonb_to_recordset(${JSON.stringify(due)}::jsonb) as d(id int, user_id text, run_out date)
    ), marked as (
      update ${supplements} s set refill_reminded_at = ${atIso}::timestamptz
      from due d where s.id = d.id and s.user_id = d.user_id and ${notYetReminded}
      returning s.id, s.user_id, d.run_out
    )
    insert into reminder_outbox (user_id, local_date, slot, kind, channel, due_at, status, next_at)
    select m.user_id, m.run_out, 'refill-' || m.id, 'refill', ch.channel, ${atIso}::timestamptz, 'pending',
      ${atIso}::timestamptz
    from marked m join reminder_settings rs on rs.user_id = m.user_id
    cross join lateral (values ('push', rs.push), ('email', rs.email)) as ch(channel, enabled)
    where ch.enabled
    on conflict (user_id, local_date, slot, kind, channel) do nothing
    returning id`);
  return rowsOf(result).length;
}

/** What each claimed refill row says now, by `${userId}/${supplementId}`: one statement. */
export async function refillMessages(
  db: Db,
  wanted: { userId: string; slot: string }[],
  at: Date,
): Promise<Map<string, ReminderPayload>> {
  const out = new Map<string, ReminderPayload>();
  const keys = wanted.flatMap((w) => {
    const id = refillSupplementId(w.slot);
    return id === null ? [] : [{ user_id: w.userId, id }];
  });
  if (keys.length === 0) return out;
  const result = await db.execute(sql`
    select ${rowColumns}, ${stockSelect(at)}
    from jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) as k(user_id text, id int)
    join ${supplements} s on s.id = k.id and s.user_id = k.user_id
    join users u on u.id = s.user_id`);
  for (const row of rowsOf(result).map(toStockRow)) {
    const today = dateIn(row.zone, at);
    const stock = stockOf(row.facts, today, row.lead);
    if (stock?.left == null) continue;
    const left = leftPhrase(stock.left, row.quantityType);
    out.set(`${row.userId}/${row.id}`, {
      title: `Refill soon: ${row.name}`,
      body: stock.runsOutOn ? `${left} · runs out around ${runsOutWords(stock.runsOutOn, today)}` : left,
      url: TODAY_URL,
      tag: refillSlot(row.id),
      date: today,
      doses: [],
    });
  }
  return out;
}
