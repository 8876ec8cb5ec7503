/**
 * Stock and refills (issue 40): PUT /api/supplements/{id}/stock, POST
 * /api/supplements/{id}/refills, and the SQL that derives what is left from the intake log
 * (used by GET /api/supplements in its one statement, and by the refill reminder). Private:
 * the owner's only; never on a public answer. Design: docs/stock.md.
 */
import { type SQL, sql } from "drizzle-orm";
import { Hono } from "hono";
import type { Db } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { supplements, type User } from "../../db/schema";
import { SUPPLEMENT_MESSAGES } from "../../src/lib/messages";
import { REFILLS_MAX, STOCK_MAX, STOCK_MESSAGES, type StockJson, stockOf } from "../../src/lib/stock";
import { refillInputSchema, stockInputSchema } from "../../src/lib/stock-input";
import { now } from "../lib/clock";
import { type AppEnv, requireUser } from "../lib/env";
import { HttpError, notFound, readJson } from "../lib/http";
import { parseIdParam } from "../lib/id";
import { userToday } from "../tracking/versions";
import { factsOf, leadOf, stockColumns } from "./stock-queries";

/** One supplement's stock, read now (after a change). Null when the user has no such supplement. */
async function readStock(db: Db, user: Pick<User, "id" | "timeZone">, id: number): Promise<StockJson | null> {
  const today = userToday(user);
  const [row] = await db
    .select({
      unitsPerPack: supplements.unitsPerPack,
      stockCount: supplements.stockCount,
      stockRefills: supplements.stockRefills,
      schedule: supplements.schedule,
      doseAmount: supplements.doseAmount,
      ...stockColumns("supplements", sql`${today}::date`),
    })
    .from(supplements)
    .where(sql`${supplements.id} = ${id} and ${supplements.userId} = ${user.id}`);
  if (!row) throw notFound(SUPPLEMENT_MESSAGES.notFound);
  return stockOf(factsOf(row, row.stockUsed, row.stockRecent), today, leadOf(row.refillLeadDays));
}

const conflict = (field: string, message: string) => new HttpError(409, message, { [field]: [message] });

const parseId = (raw: string) => parseIdParam(raw, "id", SUPPLEMENT_MESSAGES.invalidId, SUPPLEMENT_MESSAGES.notFound);

export const stockRoutes = new Hono<AppEnv>()
  .put("/supplements/:id/stock", async (c) => {
    const user = await requireUser(c);
    const id = parseId(c.req.param("id"));
    const input = await readJson(c, stockInputSchema);
    const { database, caches } = c.get("ctx");
    const at = now().toISOString();
    // A count is a new baseline: the refills before it are in it, and the next run-out may be reminded of.
    const sets: SQL[] = [];
    if (input.unitsPerPack !== undefined) sets.push(sql`units_per_pack = ${input.unitsPerPack}::numeric`);
    if (input.count === null) {
      sets.push(sql`stock_count = null, stock_counted_at = null, stock_counted_on = null,
        stock_refills = '[]'::jsonb, refill_reminded_at = null`);
    } else if (input.count !== undefined) {
      sets.push(sql`stock_count = ${input.count}::numeric, stock_counted_at = ${at}::timestamptz,
        stock_counted_on = ${userToday(user)}::date, stock_refills = '[]'::jsonb, refill_reminded_at = null`);
    }
    const result = await database.db.execute(sql`
      update ${supplements} set ${sql.join(sets, sql`, `)}
      where ${supplements.id} = ${id} and ${supplements.userId} = ${user.id}
      returning id`);
    if (rowsOf(result).length === 0) throw notFound(SUPPLEMENT_MESSAGES.notFound);
    caches.invalidate({ userId: user.id });
    c.header("Cache-Control", "no-store");
    return c.json({ id, stock: await readStock(database.db, user, id) });
  })
  .post("/supplements/:id/refills", async (c) => {
    const user = await requireUser(c);
    const id = parseId(c.req.param("id"));
    const { packs } = await readJson(c, refillInputSchema);
    const { database, caches } = c.get("ctx");
    const at = now().toISOString();
    const used = stockColumns("s0", sql`${userToday(user)}::date`).stockUsed;
    // Appended to the refills since the count; without a count yet, the packs are the count.
    const result = await database.db.execute(sql`
      with target as (
        select s0.id, s0.units_per_pack, s0.stock_count, jsonb_array_length(s0.stock_refills) as refills,
          -- What is on hand after the packs (issue 45): at most STOCK_MAX, so that the count and the sums stay bounded.
          coalesce(s0.stock_count + (select coalesce(sum((r->>'units')::numeric), 0)
            from jsonb_array_elements(s0.stock_refills) r) - ${used}, 0) + s0.units_per_pack * ${packs}::int <= ${STOCK_MAX} as fits
        from ${supplements} s0 where s0.id = ${id} and s0.user_id = ${user.id}
      ), updated as (
        update ${supplements} s set
          stock_refills = case when s.stock_count is null then '[]'::jsonb
            else s.stock_refills || jsonb_build_array(jsonb_build_object('at', ${at}::text, 'units', s.units_per_pack * ${packs}::int)) end,
          stock_count = coalesce(s.stock_count, s.units_per_pack * ${packs}::int),
          stock_counted_on = case when s.stock_count is null then ${userToday(user)}::date else s.stock_counted_on end,
          stock_counted_at = case when s.stock_count is null then ${at}::timestamptz else s.stock_counted_at end
        from target t
        where s.id = t.id and t.units_per_pack is not null and t.refills < ${REFILLS_MAX} and t.fits
        returning s.id
      )
      select t.units_per_pack is not null as sized, t.refills < ${REFILLS_MAX} as room, t.fits,
        (select count(*) from updated)::int as done from target t`);
    const [row] = rowsOf(result);
    if (!row) throw notFound(SUPPLEMENT_MESSAGES.notFound);
    if (Number(row.done) === 0) {
      if (!row.sized) throw conflict("unitsPerPack", STOCK_MESSAGES.noPackSize);
      throw conflict("packs", row.room ? STOCK_MESSAGES.tooMuchStock : STOCK_MESSAGES.tooManyRefills);
    }
    caches.invalidate({ userId: user.id });
    c.header("Cache-Control", "no-store");
    return c.json({ id, stock: await readStock(database.db, user, id) }, 201);
  });
