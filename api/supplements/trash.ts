/**
 * Delete with Undo (issue 38): a delete really removes the supplement in one statement and
 * keeps a private copy (row, schedule versions, link clicks) in `supplement_trash`; Undo puts
 * that copy back, same id and place, for UNDO_DELETE_MS plus a grace for the network. Expired
 * copies are purged by every delete and restore and by a timer after each delete.
 * See docs/undo-delete.md.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { scheduleVersions, supplementDailyClicks, supplements, supplementTrash, users } from "../../db/schema";
import { MAX_SUPPLEMENTS, UNDO_DELETE_MS } from "../../src/lib/constants";
import { now, nowMs } from "../lib/clock";
import type { Tx } from "../lib/user-lock";
import { versionCtes } from "../tracking/versions";

/** Undo is accepted this long after the delete: the toast's time and a margin for a slow answer. */

export const UNDO_ACCEPT_MS = UNDO_DELETE_MS + 4000;

/** Columns added since a copy may have been kept (issue 47), at their defaults beneath the copy. */
const ADDED_COLUMNS = sql`'{"serving_size": 1, "ingredients": []}'::jsonb`;

const cutoff = () => new Date(nowMs() - UNDO_ACCEPT_MS).toISOString();

/** The statement's CTE that drops every expired copy (of anyone): nothing outlives its window for long. */
const purgeCte = () => sql`purged as (
      delete from ${supplementTrash} where ${supplementTrash.deletedAt} < ${cutoff()}::timestamptz
    )`;

/**
 * Deletes the user's supplement `id` and keeps its copy for Undo, in one statement. Its
 * version records that it is gone from `today` on, as before. Answers whether a row went.
 */
export async function deleteWithUndo(db: Db, userId: string, id: number, today: string): Promise<boolean> {
  const result = await db.execute(sql`
    with deleted as (
      delete from ${supplements} where ${supplements.id} = ${id} and ${supplements.userId} = ${userId}
      returning *
    ), kept as (
      insert into ${supplementTrash} (user_id, supplement_id, deleted_at, row, versions, clicks)
      select ${userId}, d.id, ${now().toISOString()}::timestamptz, to_jsonb(d),
        coalesce((select jsonb_agg(to_jsonb(v)) from ${scheduleVersions} v
          where v.user_id = ${userId} and v.supplement_id = d.id), '[]'::jsonb),
        coalesce((select jsonb_agg(to_jsonb(k)) from ${supplementDailyClicks} k
          where k.supplement_id = d.id), '[]'::jsonb)
      from deleted d
      on conflict (user_id, supplement_id) do update set deleted_at = excluded.deleted_at,
        row = excluded.row, versions = excluded.versions, clicks = excluded.clicks
    ), ${purgeCte()}, ${versionCtes("deleted", userId, today, true)}
    select id from deleted`);
  return rowsOf(result).length > 0;
}

/**
 * Puts back the copy of supplement `id` when its window is open, in one statement (run it
 * under the user's lock: the cap holds against a concurrent add). Answers the restored id,
 * 'gone' when there is no copy (never deleted, restored already, or expired), or 'full' when
 * the list reached the cap meanwhile (the copy then stays until it expires).
 */
export async function restoreFromTrash(tx: Tx, userId: string, id: number): Promise<"restored" | "gone" | "full"> {
  const result = await tx.execute(sql`
    with t as (
      select * from ${supplementTrash}
      where user_id = ${userId} and supplement_id = ${id} and deleted_at >= ${cutoff()}::timestamptz
    ), room as (
      select count(*) < ${MAX_SUPPLEMENTS} as ok from ${supplements} where user_id = ${userId}
    ), taken as (
      delete from ${supplementTrash} s using t, room
      where room.ok and s.user_id = t.user_id and s.supplement_id = t.supplement_id
      returning t.*
    ), restored as (
      insert into ${supplements} overriding system value
      -- A copy whose source owner's account went meanwhile comes back without its source (issue 50 §3).
      select r.* from taken, jsonb_populate_record(null::${supplements}, ${ADDED_COLUMNS} || taken.row
        || case when taken.row ->> 'source_user_id' is not null and not exists (
          select 1 from ${users} u where u.id = taken.row ->> 'source_user_id')
        then '{"source_user_id": null}'::jsonb else '{}'::jsonb end) r
      returning id
    ), old_versions as (
      delete from ${scheduleVersions} v using taken
      where v.user_id = ${userId} and v.supplement_id = ${id}
        and v.valid_from not in (select (e ->> 'valid_from')::date from jsonb_array_elements(taken.versions) e)
    ), versions as (
      insert into ${scheduleVersions}
      select v.* from taken, jsonb_array_elements(taken.versions) e,
        jsonb_populate_record(null::${scheduleVersions}, ${ADDED_COLUMNS} || e) v
      on conflict (user_id, supplement_id, valid_from) do update set
        name = excluded.name, quantity_type = excluded.quantity_type, dose_amount = excluded.dose_amount,
        schedule = excluded.schedule, deleted = excluded.deleted,
        serving_size = excluded.serving_size, ingredients = excluded.ingredients
    ), clicks as (
      insert into ${supplementDailyClicks}
      select k.* from restored, taken, jsonb_populate_recordset(null::${supplementDailyClicks}, taken.clicks) k
    ), ${purgeCte()}
    select (select count(*) from t)::int as found, (select count(*) from restored)::int as restored`);
  const [row] = rowsOf(result);
  if (Number(row?.restored) > 0) return "restored";
  return Number(row?.found) > 0 ? "full" : "gone";
}

/** After a delete: drop the copy once its window is over, even if nobody deletes or restores again. */
export function purgeLater(db: Db): void {
  const timer = setTimeout(() => {
    db.execute(sql`with ${purgeCte()} select 1`).catch(() => {
      // the database is gone (shutdown) or busy: the next delete or restore purges it
    });
  }, UNDO_ACCEPT_MS + 1000);
  timer.unref?.();
}
