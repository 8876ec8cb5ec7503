/**
 * The refill reminder (issue 40) through the reminder outbox: when a supplement's run-out date
 * comes within the user's lead time, one row per enabled channel, keyed by the run-out date;
 * `supplements.refill_reminded_at` keeps it from being planned again until a refill or a
 * recount starts a new run-out. Exactly once across instances: the mark is a conditional
 * UPDATE, so only one planner's statement gets the row. See docs/stock.md.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { type Supplement, supplements } from "../../db/schema";
import { isCalendarDate } from "../../src/lib/dates";
import type { ReminderPayload } from "../../src/lib/reminders";
import { leftPhrase, runsOutWords, stockOf } from "../../src/lib/stock";
import { log } from "../lib/log";
import { factsOf, leadOf, stockColumns } from "../supplements/stock-queries";
import { everyoneOrEach, perUser, reasonOf, todaysIn } from "./isolate";
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
  /** The user's date at the round's instant (null: a zone Intl does not know). */
  today: string | null;
  facts: ReturnType<typeof factsOf>;
  lead: number;
}

const rowColumns = sql`s.id, s.user_id, s.name, s.quantity_type, s.units_per_pack, s.stock_count, s.stock_refills,
  s.schedule, s.dose_amount, z.today::text as today`;

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
    today: raw.today == null ? null : String(raw.today),
    facts: factsOf(row, raw.stock_used, raw.stock_recent),
    lead: leadOf(raw.refill_lead_days),
  };
}

/**
 * Joins each user `u` to their zone's date at `at` as `z.today`, computed here with Intl
 * (./isolate.ts todaysIn), never by the database: a zone Postgres does not know (an old row)
 * must not fail the statement for everyone. Unknown to Intl too: `z.today` is null.
 */
async function zoneDays(db: Db, at: Date, usersOf: SQL): Promise<SQL> {
  const zones = rowsOf(
    await db.execute(sql`select distinct coalesce(u.time_zone, 'UTC') as zone from users u where u.id in (${usersOf})`),
  ).map((r) => String(r.zone));
  const days = JSON.stringify(todaysIn(zones, at));
  return sql`left join jsonb_to_recordset(${days}::jsonb) as z(zone text, today date) on z.zone = coalesce(u.time_zone, 'UTC')`;
}

const stockSelect = () => {
  const c = stockColumns("s", sql`z.today`);
  return sql`${c.stockUsed} as stock_used, ${c.stockRecent} as stock_recent, ${c.refillLeadDays} as refill_lead_days`;
};

/** The row's stock at its user's today; null (logged with the ids) when the row cannot be judged. */
function judged(row: StockRow): { today: string; stock: NonNullable<ReturnType<typeof stockOf>> } | null {
  const ids = { userId: row.userId, supplementId: row.id };
  if (row.today === null) {
    log.warn("refill reminder skipped: the user's time zone is unknown", ids);
    return null;
  }
  try {
    const stock = stockOf(row.facts, row.today, row.lead);
    if (!stock) return null;
    if (stock.runsOutOn !== null && !isCalendarDate(stock.runsOutOn)) throw new Error(`run-out ${stock.runsOutOn}`);
    return { today: row.today, stock };
  } catch (error) {
    log.warn("refill reminder skipped: the stock cannot be judged", { ...ids, ...reasonOf(error) });
    return null;
  }
}

const WANTS_REFILLS = sql`(rs.email or rs.push) and rs.refill_lead_days > 0`;
const idsIn = (ids: string[]) => sql`(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`;

/**
 * One planning round at `at`: the stock of users with a channel on and a lead time, not yet
 * reminded for its current run-out (one statement), judged here (src/lib/stock.ts); those
 * due are marked and their outbox rows inserted (one statement). Answers how many rows went in.
 * A row that cannot be judged, or a user whose statement fails, is logged and skipped (./isolate.ts).
 */
export async function planRefillReminders(db: Db, at: Date): Promise<number> {
  const wanting = sql`select rs.user_id from reminder_settings rs where ${WANTS_REFILLS}`;
  const zones = await zoneDays(db, at, wanting);
  const candidates = await everyoneOrEach(
    async (ids) =>
      rowsOf(
        await db.execute(sql`
          select ${rowColumns}, ${stockSelect()}
          from reminder_settings rs
          join ${supplements} s on s.user_id = rs.user_id
          join users u on u.id = s.user_id
          ${zones}
          where ${WANTS_REFILLS} and s.stock_counted_at is not null and ${notYetReminded}
            ${ids ? sql`and rs.user_id in ${idsIn(ids)}` : sql``}`),
      ).map(toStockRow),
    async () => rowsOf(await db.execute(wanting)).map((r) => String(r.user_id)),
    "refill planning",
  );
  const due = candidates.flatMap((c) => {
    const row = judged(c);
    if (!row?.stock.refillDue) return [];
    return [{ id: c.id, user_id: c.userId, run_out: row.stock.runsOutOn ?? row.today }];
  });
  const atIso = at.toISOString();
  const inserted = await perUser(
    [...new Set(due.map((d) => d.user_id))],
    async (ids) => {
      const mine = due.filter((d) => ids.includes(d.user_id));
      return rowsOf(
        await db.execute(sql`
          with due as (
            select * from jsonb_to_recordset(${JSON.stringify(mine)}::jsonb) as d(id int, user_id text, run_out date)
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
          on conflict (user_id, local_date, slot, kind, channel, follow_up) do nothing
          returning id`),
      );
    },
    "refill planning",
  );
  return inserted.length;
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
  const keyJson = JSON.stringify(keys);
  const zones = await zoneDays(
    db,
    at,
    sql`select k.user_id from jsonb_to_recordset(${keyJson}::jsonb) as k(user_id text, id int)`,
  );
  const result = await db.execute(sql`
    select ${rowColumns}, ${stockSelect()}
    from jsonb_to_recordset(${keyJson}::jsonb) as k(user_id text, id int)
    join ${supplements} s on s.id = k.id and s.user_id = k.user_id
    join users u on u.id = s.user_id
    ${zones}`);
  for (const row of rowsOf(result).map(toStockRow)) {
    const judgedRow = judged(row);
    if (judgedRow?.stock.left == null) continue;
    const { today, stock } = judgedRow;
    const left = leftPhrase(stock.left as number, row.quantityType);
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
