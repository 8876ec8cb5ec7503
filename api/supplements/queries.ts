/** A user's supplements as the API answers them (GET /api/supplements, the dashboard's first paint). */
import { asc, eq, getTableColumns, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type Supplement, supplements, type User } from "../../db/schema";
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
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const listQueries = new WeakMap<Db, ReturnType<typeof prepareList>>();
// One statement with the stock of every row (issue 40): no more round trips than before.
const prepareList = (db: Db) =>
  db
    .select({
      row: getTableColumns(supplements),
      ...stockColumns("supplements", sql`${sql.placeholder("today")}::date`),
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
  return rows.map(({ row, stockUsed, stockRecent, refillLeadDays }) =>
    toSupplementJson(
      row,
      user.isPremium,
      stockOf(factsOf(row, stockUsed, stockRecent), today, leadOf(refillLeadDays)),
      today,
    ),
  );
}
