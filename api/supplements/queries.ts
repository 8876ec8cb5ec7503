/** A user's supplements as the API answers them (GET /api/supplements, the dashboard's first paint). */
import { asc, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { type Supplement, supplements, type User } from "../../db/schema";
import type { SupplementSource } from "../../src/lib/copies";
import { scheduleStatus } from "../../src/lib/due";
import { ingredientJson } from "../../src/lib/ingredients";
import { type StockJson, stockOf } from "../../src/lib/stock";
import type { Supplement as SupplementJson } from "../../src/lib/types";
import { userToday } from "../tracking/versions";
import { factsOf, leadOf, stockColumns } from "./stock-queries";

/** A supplement as the API answers it; premium-only fields are hidden from free users. */
export function toSupplementJson(
  row: Supplement,
  premium: boolean,
  stock?: StockJson | null,
  today?: string,
  source: SupplementSource | null = null,
): SupplementJson {
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
    asNeeded: row.asNeeded ?? null,
    // Issue 48: where the schedule stands on the user's today (null for as needed).
    ...(today === undefined ? {} : { status: scheduleStatus(row.schedule ?? null, today) }),
    servingSize: row.servingSize ?? 1,
    ingredients: (row.ingredients ?? []).map(ingredientJson),
    ...(stock === undefined ? {} : { stock }),
    source,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Issue 50 §3, a copy's source as columns of a query over `alias` (a supplements row): the source
 * owner's username (null: not a copy, or the owner is gone or has no name) and the source
 * supplement's id when its 'View Product' link shows (the rule of /go/{id}: a premium owner with
 * links on and an http(s) link), else null.
 */
export function sourceColumns(alias: string): { sourceUsername: SQL<string | null>; sourceBuyId: SQL<number | null> } {
  const s = sql.raw(`"${alias}"`);
  return {
    sourceUsername: sql<string | null>`(select su.username from users su where su.id = ${s}.source_user_id)`,
    sourceBuyId: sql<number | null>`(select ss.id from supplements ss join users so on so.id = ss.user_id
      where ss.id = ${s}.source_supplement_id and ss.user_id = ${s}.source_user_id
        and so.is_premium and so.show_affiliate_links and ss.affiliate_link ~* '^https?://[^[:space:]]+$')`,
  };
}

/** The wire source of a row read with sourceColumns. */
export const sourceOf = (username: string | null, buyId: number | null): SupplementSource | null =>
  username ? { username, buyUrl: buyId === null ? null : `/go/${buyId}` } : null;

/**
 * The answers of rows written by a route (POST, PUT, restore), each with its source: one more
 * statement only when one of them is a copy.
 */
export async function supplementAnswers(
  db: Db,
  rows: Supplement[],
  premium: boolean,
  today: string,
): Promise<SupplementJson[]> {
  const copies = rows.filter((row) => row.sourceUserId !== null).map((row) => row.id);
  const sources = new Map<number, SupplementSource | null>();
  if (copies.length > 0) {
    const { sourceUsername, sourceBuyId } = sourceColumns("c");
    const found = rowsOf<{ id: number; source_username: string | null; source_buy_id: number | null }>(
      await db.execute(sql`select c.id, ${sourceUsername} as source_username, ${sourceBuyId} as source_buy_id
        from supplements c where c.id in ${sql`(${sql.join(
          copies.map((id) => sql`${id}`),
          sql`, `,
        )})`}`),
    );
    for (const f of found) sources.set(f.id, sourceOf(f.source_username, f.source_buy_id));
  }
  return rows.map((row) => toSupplementJson(row, premium, undefined, today, sources.get(row.id) ?? null));
}

const listQueries = new WeakMap<Db, ReturnType<typeof prepareList>>();
// One statement with the stock of every row (issue 40): no more round trips than before.
const prepareList = (db: Db) =>
  db
    .select({
      row: getTableColumns(supplements),
      ...stockColumns("supplements", sql`${sql.placeholder("today")}::date`),
      ...sourceColumns("supplements"),
    })
    .from(supplements)
    .where(eq(supplements.userId, sql.placeholder("userId")))
    .orderBy(asc(supplements.sortOrder), asc(supplements.id))
    .prepare("supplements_by_user");

/** A user's supplements in their order (a prepared statement: this is the dashboard's hot query). */
export async function listSupplements(
  db: Db,
  user: Pick<User, "id" | "isPremium" | "timeZone">,
): Promise<SupplementJson[]> {
  let query = listQueries.get(db);
  if (!query) {
    query = prepareList(db);
    listQueries.set(db, query);
  }
  const today = userToday(user);
  const rows = await query.execute({ userId: user.id, today });
  return rows.map(({ row, stockUsed, stockRecent, refillLeadDays, sourceUsername, sourceBuyId }) =>
    toSupplementJson(
      row,
      user.isPremium,
      stockOf(factsOf(row, stockUsed, stockRecent), today, leadOf(refillLeadDays)),
      today,
      sourceOf(sourceUsername, sourceBuyId === null ? null : Number(sourceBuyId)),
    ),
  );
}
