/**
 * "Copy this stack" (issue 50 §3): `POST /api/copies { from, supplementIds }` adds copies of
 * supplements of `from`'s public list at the end of the signed-in user's list, in the owner's
 * order: name, quantity type and frequency, and the dose and schedule (times and days) where the
 * owner shows schedules publicly, else the defaults; never notes, links, stock, ingredients or
 * anything else of the owner's. A copy remembers its source (the owner and the supplement).
 * 404 for an unknown name or an owner who turned copying off; 400 for one's own stack or ids
 * not in that list; 409 past the 200 limit with the count that fits and nothing added; at most
 * 30 requests an hour per account. Each copy is counted for the owner's Insights per UTC day,
 * without who copied.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { rowsOf } from "../../db/rows";
import { type Supplement, supplements, users } from "../../db/schema";
import { MAX_SUPPLEMENTS } from "../../src/lib/constants";
import { COPY_MESSAGES } from "../../src/lib/copies";
import { DEFAULT_SCHEDULE, type Schedule } from "../../src/lib/schedule";
import { now } from "../lib/clock";
import { type AppEnv, requireUser } from "../lib/env";
import { badRequest, HttpError, notFound, readJson } from "../lib/http";
import { ID_MAX } from "../lib/id";
import { limitRoute } from "../lib/rate-limit";
import { withUserLock } from "../lib/user-lock";
import { supplementAnswers } from "../supplements/queries";
import { toSupplementRow } from "../supplements/routes";
import { completeSchedule } from "../tracking/schedule-input";
import { userToday, versionCtes } from "../tracking/versions";

/** `POST /api/copies`. */
const copyInputSchema = z
  .object({
    from: z.string({ message: COPY_MESSAGES.from }).trim().min(1, COPY_MESSAGES.from).max(64, COPY_MESSAGES.from),
    supplementIds: z
      .array(z.number({ message: COPY_MESSAGES.supplementIds }).int().min(1).max(ID_MAX), {
        message: COPY_MESSAGES.supplementIds,
      })
      .min(1, COPY_MESSAGES.supplementIds)
      .max(MAX_SUPPLEMENTS, COPY_MESSAGES.supplementIds),
  })
  .strict();

/** What a copy takes of a source row: what the public page shows of it, no more. */
function copyOf(source: Supplement, showsSchedule: boolean, today: string) {
  const shown: Schedule | null = showsSchedule
    ? source.schedule
      ? { times: source.schedule.times, days: source.schedule.days }
      : null
    : DEFAULT_SCHEDULE;
  return {
    name: source.name,
    quantity_type: source.quantityType,
    frequency: source.frequency,
    schedule: completeSchedule(shown, today),
    dose_amount: showsSchedule ? (source.doseAmount ?? null) : null,
    source_supplement_id: source.id,
  };
}

export const copyRoutes = new Hono<AppEnv>().post("/copies", async (c) => {
  const user = await requireUser(c);
  const ctx = c.get("ctx");
  await limitRoute(ctx, "POST /api/copies", { account: user.id });
  const input = await readJson(c, copyInputSchema);
  const db = ctx.database.db;
  const [owner] = await db.select().from(users).where(sql`lower(${users.username}) = lower(${input.from})`).limit(1);
  if (!owner?.username || !owner.allowCopies) throw notFound(COPY_MESSAGES.notFound);
  if (owner.id === user.id) throw badRequest(COPY_MESSAGES.self, { from: [COPY_MESSAGES.self] });
  const ids = [...new Set(input.supplementIds)];
  const sources = await db
    .select()
    .from(supplements)
    .where(and(eq(supplements.userId, owner.id), inArray(supplements.id, ids)))
    .orderBy(asc(supplements.sortOrder), asc(supplements.id));
  if (sources.length !== ids.length) {
    throw badRequest(COPY_MESSAGES.unknown, { supplementIds: [COPY_MESSAGES.unknown] });
  }
  const today = userToday(user);
  const copies = sources.map((source, ord) => ({ ord, ...copyOf(source, owner.showSchedule, today) }));
  const day = now().toISOString().slice(0, 10);
  // Under the user's lock: the count and the insert cannot interleave with another add.
  const added = await withUserLock(ctx, user.id, async (lock) => {
    const [stats] = rowsOf<{ n: number; next: number }>(
      await lock.tx.execute(sql`
        select count(*)::int as n, coalesce(max(${supplements.sortOrder}) + 1, 0)::int as next
        from ${supplements} where ${supplements.userId} = ${user.id}`),
    );
    const room = MAX_SUPPLEMENTS - Number(stats?.n ?? 0);
    if (copies.length > room) {
      const fits = Math.max(0, room);
      throw new HttpError(409, COPY_MESSAGES.full(fits), { supplementIds: [COPY_MESSAGES.full(fits)] }, undefined, {
        fits,
      });
    }
    const result = await lock.tx.execute(sql`
      with input as (
        select * from jsonb_to_recordset(${JSON.stringify(copies)}::jsonb) as x(
          ord int, name text, quantity_type text, frequency text, schedule jsonb, dose_amount numeric,
          source_supplement_id int)
      ), added as (
        insert into ${supplements}
          (user_id, name, quantity_type, frequency, sort_order, schedule, dose_amount, source_user_id,
           source_supplement_id)
        select ${user.id}, i.name, i.quantity_type, i.frequency, ${Number(stats?.next ?? 0)} + i.ord, i.schedule,
          i.dose_amount, ${owner.id}, i.source_supplement_id
        from input i order by i.ord
        returning *
      ), ${versionCtes("added", user.id, today, false)}, counted as (
        insert into supplement_daily_copies (supplement_id, day, copies)
        select i.source_supplement_id, ${day}::date, 1 from input i
        on conflict (supplement_id, day) do update set copies = supplement_daily_copies.copies + 1
      )
      select * from added order by sort_order`);
    lock.changed = true;
    return rowsOf(result).map(toSupplementRow);
  });
  // The owner's Insights changed (a copy counted): their cached answers go.
  ctx.caches.invalidate({ userId: owner.id });
  return c.json(
    {
      added: added.length,
      from: owner.username,
      supplements: await supplementAnswers(db, added, user.isPremium, today),
    },
    201,
  );
});
