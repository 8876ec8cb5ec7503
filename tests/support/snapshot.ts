/**
 * Every table of the app as one JSON string, read in one round trip: compare a snapshot
 * taken before a refused request with one taken after, and any write shows. `where` leaves
 * out rows a timer may change meanwhile (see `settledTrash`).
 */
import { getTableName, is, sql } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import { nowMs } from "../../api/lib/clock";
import { UNDO_ACCEPT_MS } from "../../api/supplements/trash";
import type { Db } from "../../db/client";
import * as schema from "../../db/schema";

/** Every table db/schema.ts declares: a table added later is in every snapshot without a list to keep. */
export const APP_TABLES: readonly string[] = (Object.values(schema) as unknown[])
  .filter((value): value is PgTable => is(value, PgTable))
  .map((table) => getTableName(table))
  .sort();

export async function snapshotTables(
  db: Db,
  tables: readonly string[] = APP_TABLES,
  where: Readonly<Record<string, string>> = {},
): Promise<string> {
  const select = tables
    .map(
      (t) =>
        `(select coalesce(json_agg(row_to_json(x) order by x::text), '[]'::json) from ${t} x` +
        `${where[t] ? ` where ${where[t]}` : ""}) as "${t}"`,
    )
    .join(", ");
  const result = (await db.execute(sql.raw(`select ${select}`))) as unknown;
  const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
  return JSON.stringify(rows[0]);
}

/**
 * A `where` for snapshots around one request: Undo copies whose purge timer may fire within
 * `marginMs` (api/supplements/trash.ts) are left out, so an expiry is not taken for a write.
 */
export function settledTrash(marginMs = 5000): Record<string, string> {
  const cutoff = new Date(nowMs() - UNDO_ACCEPT_MS + marginMs).toISOString();
  return { supplement_trash: `deleted_at >= '${cutoff}'::timestamptz` };
}
