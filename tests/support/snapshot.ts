/**
 * Every table of the app as one JSON string, read in one round trip: compare a snapshot
 * taken before a refused request with one taken after, and any write shows.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";

export const APP_TABLES = [
  "users",
  "sessions",
  "accounts",
  "verifications",
  "supplements",
  "images",
  "stripe_events",
  "rate_limits",
  "auth_rate_limits",
  "username_holds",
] as const;

export async function snapshotTables(db: Db, tables: readonly string[] = APP_TABLES): Promise<string> {
  const select = tables
    .map((t) => `(select coalesce(json_agg(row_to_json(x) order by x::text), '[]'::json) from ${t} x) as "${t}"`)
    .join(", ");
  const result = (await db.execute(sql.raw(`select ${select}`))) as unknown;
  const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
  return JSON.stringify(rows[0]);
}
