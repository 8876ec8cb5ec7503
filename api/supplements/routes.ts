/**
 * The signed-in user's supplements: list, add, update, reorder, delete.
 * Every query is scoped to the user, so another user's row answers 404 exactly
 * like a row that does not exist.
 */
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import { Hono } from "hono";
import { rowsOf } from "../../db/rows";
import { type Supplement, supplements, type User } from "../../db/schema";
import { MESSAGES } from "../../src/lib/account-messages";
import { AS_NEEDED_MESSAGES } from "../../src/lib/as-needed-input";
import { MAX_SUPPLEMENTS } from "../../src/lib/constants";
import { SUPPLEMENT_MESSAGES } from "../../src/lib/messages";
import { DEFAULT_SCHEDULE } from "../../src/lib/schedule";
import type { Supplement as SupplementJson } from "../../src/lib/types";
import { reorderSchema, supplementInputSchema } from "../../src/lib/validation";
import { type AppEnv, requireUser } from "../lib/env";
import { badRequest, jsonWithEtag, notFound, readJson } from "../lib/http";
import { parseIdParam } from "../lib/id";
import { withUserLock } from "../lib/user-lock";
import { completeSchedule } from "../tracking/schedule-input";
import { recordVersion, userToday, versionCtes } from "../tracking/versions";
import { listSupplements, supplementAnswers, toSupplementJson } from "./queries";

/** One written row's answer, with its source when it is a copy (issue 50 §3). */
async function answerOf(
  c: import("hono").Context<AppEnv>,
  row: Supplement,
  user: Pick<User, "isPremium" | "timeZone">,
): Promise<SupplementJson> {
  const [answer] = await supplementAnswers(c.get("ctx").database.db, [row], user.isPremium, userToday(user));
  if (!answer) throw new Error("no answer for a row");
  return answer;
}

import { deleteWithUndo, purgeLater, restoreFromTrash } from "./trash";

const parseId = (raw: string) => parseIdParam(raw, "id", SUPPLEMENT_MESSAGES.invalidId, SUPPLEMENT_MESSAGES.notFound);

const emptyToNull = (value: string | null | undefined) => (value ? value : null);

/** Issue 48: limits only on an as-needed supplement (schedule null); the 400 names the field. */
const limitsNeedAsNeeded = () => badRequest(AS_NEEDED_MESSAGES.scheduled, { asNeeded: [AS_NEEDED_MESSAGES.scheduled] });

const supplementColumns = Object.entries(getTableColumns(supplements));

/** A `supplements` row read by raw SQL (column names, driver values) as Drizzle maps it. */
export function toSupplementRow(raw: Record<string, unknown>): Supplement {
  const row: Record<string, unknown> = {};
  for (const [key, column] of supplementColumns) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as unknown as Supplement;
}

export const supplementRoutes = new Hono<AppEnv>()
  .get("/supplements", async (c) => {
    const user = await requireUser(c);
    // One statement; the host answers a matching If-None-Match with a 304 (server/cache.ts).
    return jsonWithEtag(c, await listSupplements(c.get("ctx").database.db, user));
  })
  .post("/supplements", async (c) => {
    const user = await requireUser(c);
    const input = await readJson(c, supplementInputSchema);
    // Under the user's lock: two adds at the cap cannot both pass it. The lock is its own
    // statement (the next one then reads what the lock's previous holder committed); the cap
    // check, the position, the insert and its schedule version are one statement after it.
    const today = userToday(user);
    const row = await withUserLock(c.get("ctx"), user.id, async (lock) => {
      const schedule = completeSchedule(input.schedule === undefined ? DEFAULT_SCHEDULE : input.schedule, today);
      if (schedule !== null && input.asNeeded) throw limitsNeedAsNeeded();
      const result = await lock.tx.execute(sql`
        with stats as (
          select count(*)::int as n, coalesce(max(${supplements.sortOrder}) + 1, 0)::int as next
          from ${supplements} where ${supplements.userId} = ${user.id}
        ), added as (
          insert into ${supplements}
            (user_id, name, quantity_type, frequency, affiliate_link, notes, sort_order, schedule, dose_amount,
             serving_size, ingredients, as_needed)
          select ${user.id}, ${input.name}, ${input.quantityType}, ${input.frequency},
            ${user.isPremium ? emptyToNull(input.affiliateLink) : null}::text,
            ${user.isPremium ? emptyToNull(input.notes) : null}::text,
            stats.next, ${schedule === null ? null : JSON.stringify(schedule)}::jsonb,
            ${input.doseAmount ?? null}::numeric,
            ${input.servingSize ?? 1}::numeric, ${JSON.stringify(input.ingredients ?? [])}::jsonb,
            ${input.asNeeded ? JSON.stringify(input.asNeeded) : null}::jsonb
          from stats where stats.n < ${MAX_SUPPLEMENTS}
          returning *
        ), ${versionCtes("added", user.id, today, false)}
        select * from added`);
      const [inserted] = rowsOf(result);
      // Premium-only fields above: a free user's are dropped, whatever the client sent.
      if (!inserted) throw badRequest(MESSAGES.tooManySupplements);
      lock.changed = true;
      return toSupplementRow(inserted);
    });
    if (!row) throw new Error("insert returned no row");
    return c.json(toSupplementJson(row, user.isPremium, undefined, today), 201);
  })
  .put("/supplements/reorder", async (c) => {
    const user = await requireUser(c);
    const { supplementIds } = await readJson(c, reorderSchema);
    if (new Set(supplementIds).size !== supplementIds.length) {
      throw badRequest(SUPPLEMENT_MESSAGES.duplicateIds, { supplementIds: [SUPPLEMENT_MESSAGES.duplicateId] });
    }
    // Under the user's lock: a reorder and an add never interleave.
    const reordered = await withUserLock(c.get("ctx"), user.id, async (lock) => {
      const { tx } = lock;
      const own = await tx.select().from(supplements).where(eq(supplements.userId, user.id));
      const byId = new Map(own.map((row) => [row.id, row]));
      if (byId.size !== supplementIds.length || supplementIds.some((id) => !byId.has(id))) {
        throw badRequest(SUPPLEMENT_MESSAGES.notEachOnce, {
          supplementIds: [SUPPLEMENT_MESSAGES.notEachOnceField],
        });
      }
      lock.changed = true;
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
    c.header("Cache-Control", "no-store");
    const today = userToday(user);
    return c.json(await supplementAnswers(c.get("ctx").database.db, reordered, user.isPremium, today));
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
    const today = userToday(user);
    if (input.schedule !== undefined) changes.schedule = completeSchedule(input.schedule, today);
    if (input.doseAmount !== undefined) changes.doseAmount = input.doseAmount;
    if (input.servingSize !== undefined) changes.servingSize = input.servingSize;
    if (input.ingredients !== undefined) changes.ingredients = input.ingredients;
    // Issue 48: limits go with a schedule set; given alone, the stored schedule must be as needed.
    if (input.schedule) changes.asNeeded = null;
    if (input.asNeeded !== undefined) changes.asNeeded = input.asNeeded;
    const keepsSchedule = input.schedule === undefined && Boolean(input.asNeeded);
    const row = await c.get("ctx").database.db.transaction(async (tx) => {
      if (keepsSchedule) {
        const [stored] = await tx
          .select({ schedule: supplements.schedule })
          .from(supplements)
          .where(and(eq(supplements.id, id), eq(supplements.userId, user.id)))
          .for("update");
        if (stored && stored.schedule !== null) throw limitsNeedAsNeeded();
      }
      const [updated] = await tx
        .update(supplements)
        .set(changes)
        .where(and(eq(supplements.id, id), eq(supplements.userId, user.id)))
        .returning();
      if (updated) await recordVersion(tx, user, updated);
      return updated;
    });
    if (!row) throw notFound(SUPPLEMENT_MESSAGES.notFound);
    c.get("ctx").caches.invalidate({ userId: user.id });
    return c.json(await answerOf(c, row, user));
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
    if (!row) throw notFound(SUPPLEMENT_MESSAGES.notFound);
    return c.json(await answerOf(c, row, user));
  })
  .delete("/supplements/:id", async (c) => {
    const user = await requireUser(c);
    const id = parseId(c.req.param("id"));
    const { database, caches } = c.get("ctx");
    // One statement: the row goes (everywhere at once), a private copy is kept for Undo, and
    // its version records that it is gone from the user's today on (its past stays, issue 19).
    if (!(await deleteWithUndo(database.db, user.id, id, userToday(user)))) {
      throw notFound(SUPPLEMENT_MESSAGES.notFound);
    }
    caches.invalidate({ userId: user.id });
    purgeLater(database.db);
    return c.body(null, 204);
  })
  .post("/supplements/:id/restore", async (c) => {
    const user = await requireUser(c);
    const id = parseId(c.req.param("id"));
    // Under the user's lock, like an add: the restored row counts against the cap.
    // A refusal is answered after the commit, so the purge of expired copies still lands.
    const { outcome, row } = await withUserLock(c.get("ctx"), user.id, async (lock) => {
      const outcome = await restoreFromTrash(lock.tx, user.id, id);
      if (outcome !== "restored") return { outcome };
      lock.changed = true;
      const [row] = await lock.tx
        .select()
        .from(supplements)
        .where(and(eq(supplements.id, id), eq(supplements.userId, user.id)));
      return { outcome, row };
    });
    if (outcome === "full") throw badRequest(MESSAGES.tooManySupplements);
    if (outcome === "gone") throw notFound(SUPPLEMENT_MESSAGES.undoExpired);
    if (!row) throw new Error("restore returned no row");
    return c.json(await answerOf(c, row, user), 201);
  });
