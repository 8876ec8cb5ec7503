/**
 * The signed-in user's supplements: list, add, update, reorder, delete.
 * Every query is scoped to the user, so another user's row answers 404 exactly
 * like a row that does not exist.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import type { Db } from "../db/client";
import { type Supplement, supplements, type User, users } from "../db/schema";
import { MAX_SUPPLEMENTS } from "../src/lib/constants";
import { MESSAGES, reorderSchema, supplementInputSchema } from "../src/lib/validation";
import { type AppEnv, requireUser } from "./env";
import { serveCached, toCachedBody } from "./cache";
import { badRequest, notFound, readJson } from "./http";
import { recordDeletion, recordVersion } from "./tracking/versions";
import { DEFAULT_SCHEDULE } from "../src/lib/schedule";

const MAX_ID = 2_147_483_647;

/** A supplement as the API answers it; premium-only fields are hidden from free users. */
export function toSupplementJson(row: Supplement, premium: boolean) {
  return {
    id: row.id,
    name: row.name,
    quantityType: row.quantityType,
    frequency: row.frequency,
    affiliateLink: premium ? row.affiliateLink : null,
    notes: premium ? row.notes : null,
    sortOrder: row.sortOrder,
    schedule: row.schedule ?? null,
    doseAmount: row.doseAmount ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
export type SupplementJson = ReturnType<typeof toSupplementJson>;

const listQueries = new WeakMap<Db, ReturnType<typeof prepareList>>();
const prepareList = (db: Db) =>
  db
    .select()
    .from(supplements)
    .where(eq(supplements.userId, sql.placeholder("userId")))
    .orderBy(asc(supplements.sortOrder), asc(supplements.id))
    .prepare("supplements_by_user");

/** A user's supplements in their order (a prepared statement: this is the dashboard's hot query). */
export async function listSupplements(db: Db, user: Pick<User, "id" | "isPremium">): Promise<SupplementJson[]> {
  let query = listQueries.get(db);
  if (!query) {
    query = prepareList(db);
    listQueries.set(db, query);
  }
  const rows = await query.execute({ userId: user.id });
  return rows.map((row) => toSupplementJson(row, user.isPremium));
}

function parseId(raw: string): number {
  if (!/^\d{1,12}$/.test(raw)) throw badRequest("Invalid supplement id", { id: ["Invalid supplement id"] });
  const id = Number(raw);
  if (id < 1 || id > MAX_ID) throw notFound("Supplement not found");
  return id;
}

const emptyToNull = (value: string | null | undefined) => (value ? value : null);

/** Serialises a user's writes to their list (adds against the cap, reorders against adds). */
const lockUser = (tx: Db, userId: string) =>
  tx.execute(sql`select 1 from ${users} where ${users.id} = ${userId} for update`);

export const supplementRoutes = new Hono<AppEnv>()
  .get("/supplements", async (c) => {
    const user = await requireUser(c);
    const { caches, database } = c.get("ctx");
    // Served from memory until the user or their list changes (see api/cache.ts).
    const cached = caches.getList(user.id, user.isPremium);
    if (cached) return serveCached(cached, c.req.raw);
    const since = caches.begin();
    const list = await listSupplements(database.db, user);
    const body = await toCachedBody(c.json(list, 200, { "Cache-Control": "no-store" }));
    caches.setList(user.id, user.isPremium, body, since);
    return serveCached(body, c.req.raw);
  })
  .post("/supplements", async (c) => {
    const user = await requireUser(c);
    const input = await readJson(c, supplementInputSchema);
    const db = c.get("ctx").database.db;
    const row = await db.transaction(async (tx) => {
      await lockUser(tx as unknown as Db, user.id);
      const [stats] = await tx
        .select({
          count: sql<number>`count(*)::int`,
          last: sql<number>`coalesce(max(${supplements.sortOrder}), -1)::int`,
        })
        .from(supplements)
        .where(eq(supplements.userId, user.id));
      if ((stats?.count ?? 0) >= MAX_SUPPLEMENTS) throw badRequest(MESSAGES.tooManySupplements);
      const [inserted] = await tx
        .insert(supplements)
        .values({
          userId: user.id,
          name: input.name,
          quantityType: input.quantityType,
          frequency: input.frequency,
          // Premium-only fields: a free user's are dropped, whatever the client sent.
          affiliateLink: user.isPremium ? emptyToNull(input.affiliateLink) : null,
          notes: user.isPremium ? emptyToNull(input.notes) : null,
          sortOrder: (stats?.last ?? -1) + 1,
          schedule: input.schedule === undefined ? DEFAULT_SCHEDULE : input.schedule,
          doseAmount: input.doseAmount ?? null,
        })
        .returning();
      if (inserted) await recordVersion(tx as unknown as Db, user, inserted);
      return inserted;
    });
    if (!row) throw new Error("insert returned no row");
    c.get("ctx").caches.invalidate({ userId: user.id });
    return c.json(toSupplementJson(row, user.isPremium), 201);
  })
  .put("/supplements/reorder", async (c) => {
    const user = await requireUser(c);
    const { supplementIds } = await readJson(c, reorderSchema);
    if (new Set(supplementIds).size !== supplementIds.length) {
      throw badRequest("supplementIds must not contain duplicates", { supplementIds: ["Duplicate id"] });
    }
    const db = c.get("ctx").database.db;
    const reordered = await db.transaction(async (tx) => {
      await lockUser(tx as unknown as Db, user.id);
      const own = await tx.select().from(supplements).where(eq(supplements.userId, user.id));
      const byId = new Map(own.map((row) => [row.id, row]));
      if (byId.size !== supplementIds.length || supplementIds.some((id) => !byId.has(id))) {
        throw badRequest("supplementIds must list each of your supplements exactly once", {
          supplementIds: ["Must list each of your supplements exactly once"],
        });
      }
      if (supplementIds.length === 0) return [];
      // One statement, however long the list: positions come from the array's ordinality.
      // Rows already in their place are not rewritten (a drag moves a few, not all).
      const now = new Date();
      const ids = `{${supplementIds.join(",")}}`;
      await tx.execute(sql`
        update ${supplements} as s
        set sort_order = v.ord - 1, updated_at = ${now.toISOString()}::timestamptz
        from unnest(${ids}::int[]) with ordinality as v(id, ord)
        where s.id = v.id and s.user_id = ${user.id} and s.sort_order <> v.ord - 1`);
      // The answer is the rows read under the lock, in their new places: no second read.
      return supplementIds.map((id, position) => {
        const row = byId.get(id) as Supplement;
        return row.sortOrder === position ? row : { ...row, sortOrder: position, updatedAt: now };
      });
    });
    c.get("ctx").caches.invalidate({ userId: user.id });
    c.header("Cache-Control", "no-store");
    return c.json(reordered.map((row) => toSupplementJson(row, user.isPremium)));
  })
  .put("/supplements/:id", async (c) => {
    const user = await requireUser(c);
    const id = parseId(c.req.param("id"));
    const input = await readJson(c, supplementInputSchema);
    const changes: Partial<typeof supplements.$inferInsert> = {
      name: input.name,
      quantityType: input.quantityType,
      frequency: input.frequency,
      updatedAt: new Date(),
    };
    // A free user cannot set premium fields; what a premium past stored is kept, not erased.
    if (user.isPremium) {
      if (input.affiliateLink !== undefined) changes.affiliateLink = emptyToNull(input.affiliateLink);
      if (input.notes !== undefined) changes.notes = emptyToNull(input.notes);
    }
    // Absent: kept. The version in force from the user's today records the change (issue 19).
    if (input.schedule !== undefined) changes.schedule = input.schedule;
    if (input.doseAmount !== undefined) changes.doseAmount = input.doseAmount;
    const row = await c.get("ctx").database.db.transaction(async (tx) => {
      const [updated] = await tx
        .update(supplements)
        .set(changes)
        .where(and(eq(supplements.id, id), eq(supplements.userId, user.id)))
        .returning();
      if (updated) await recordVersion(tx as unknown as Db, user, updated);
      return updated;
    });
    if (!row) throw notFound("Supplement not found");
    c.get("ctx").caches.invalidate({ userId: user.id });
    return c.json(toSupplementJson(row, user.isPremium));
  })
  .get("/supplements/:id", async (c) => {
    const user = await requireUser(c);
    const id = parseId(c.req.param("id"));
    const [row] = await c
      .get("ctx")
      .database.db.select()
      .from(supplements)
      .where(and(eq(supplements.id, id), eq(supplements.userId, user.id)))
      .limit(1);
    if (!row) throw notFound("Supplement not found");
    return c.json(toSupplementJson(row, user.isPremium));
  })
  .delete("/supplements/:id", async (c) => {
    const user = await requireUser(c);
    const id = parseId(c.req.param("id"));
    const row = await c.get("ctx").database.db.transaction(async (tx) => {
      const [deleted] = await tx
        .delete(supplements)
        .where(and(eq(supplements.id, id), eq(supplements.userId, user.id)))
        .returning();
      // Gone from today on; its past days and logged doses stay (issue 19).
      if (deleted) await recordDeletion(tx as unknown as Db, user, deleted);
      return deleted;
    });
    if (!row) throw notFound("Supplement not found");
    c.get("ctx").caches.invalidate({ userId: user.id });
    return c.body(null, 204);
  });
