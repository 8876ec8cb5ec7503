/**
 * Schedule versions: what each supplement was from a date (the user's) on. Every write to a
 * supplement records the version in force from the user's today, replacing today's and
 * dropping any later one (a zone moved west can make 'today' earlier than a version): ended
 * days keep the version they had.
 */
import { and, eq, gt, type SQL, sql } from "drizzle-orm";
import { type Supplement, scheduleVersions, type User } from "../../db/schema";
import { dateIn } from "../../src/lib/dates";
import { now } from "../lib/clock";
import type { Tx } from "../lib/user-lock";

/** The user's calendar date now, in their zone (UTC until they set one). */
export const userToday = (user: Pick<User, "timeZone">): string => dateIn(user.timeZone, now());

/** What planning a day needs of a schedule version (the calendar feed, the report). */
export const plannedVersionColumns = {
  supplementId: scheduleVersions.supplementId,
  validFrom: scheduleVersions.validFrom,
  name: scheduleVersions.name,
  quantityType: scheduleVersions.quantityType,
  doseAmount: scheduleVersions.doseAmount,
  schedule: scheduleVersions.schedule,
  deleted: scheduleVersions.deleted,
};

async function write(
  tx: Tx,
  userId: string,
  supplementId: number,
  values: Omit<typeof scheduleVersions.$inferInsert, "userId" | "supplementId" | "validFrom">,
  today: string,
) {
  await tx
    .delete(scheduleVersions)
    .where(
      and(
        eq(scheduleVersions.userId, userId),
        eq(scheduleVersions.supplementId, supplementId),
        gt(scheduleVersions.validFrom, today),
      ),
    );
  const row = { userId, supplementId, validFrom: today, deleted: false, ...values };
  await tx
    .insert(scheduleVersions)
    .values(row)
    .onConflictDoUpdate({
      target: [scheduleVersions.userId, scheduleVersions.supplementId, scheduleVersions.validFrom],
      set: {
        name: row.name,
        quantityType: row.quantityType,
        doseAmount: row.doseAmount ?? null,
        schedule: row.schedule ?? null,
        deleted: row.deleted,
        servingSize: row.servingSize ?? 1,
        ingredients: row.ingredients ?? [],
      },
    });
}

/** Records `row` as it is now, in force from the user's today. */
export function recordVersion(tx: Tx, user: Pick<User, "id" | "timeZone">, row: Supplement): Promise<void> {
  return write(
    tx,
    user.id,
    row.id,
    {
      name: row.name,
      quantityType: row.quantityType,
      doseAmount: row.doseAmount,
      schedule: row.schedule,
      servingSize: row.servingSize,
      ingredients: row.ingredients,
    },
    userToday(user),
  );
}

/** Records that `row` is gone from the user's today on (its past stays). */
export function recordDeletion(tx: Tx, user: Pick<User, "id" | "timeZone">, row: Supplement): Promise<void> {
  return write(
    tx,
    user.id,
    row.id,
    {
      name: row.name,
      quantityType: row.quantityType,
      doseAmount: row.doseAmount,
      schedule: null,
      deleted: true,
      servingSize: row.servingSize,
      ingredients: row.ingredients,
    },
    userToday(user),
  );
}

/**
 * The same record as SQL, for a statement that wrote supplements in a CTE named `source`
 * (columns as the table's): two more CTEs, `later_versions` (drops any version after `today`)
 * and `new_version` (today's, inserted or replaced), so that the write and its version are one
 * statement, one round trip. `deleted`: the rows were deleted (their version has no schedule).
 */
export function versionCtes(source: "added" | "deleted", userId: string, today: string, deleted: boolean): SQL {
  const from = sql.raw(`"${source}"`);
  return sql`later_versions as (
      delete from ${scheduleVersions} as sv using ${from} as s
      where sv.user_id = ${userId} and sv.supplement_id = s.id and sv.valid_from > ${today}::date
    ), new_version as (
      insert into ${scheduleVersions}
        (user_id, supplement_id, valid_from, name, quantity_type, dose_amount, schedule, deleted, serving_size, ingredients)
      select ${userId}, s.id, ${today}::date, s.name, s.quantity_type, s.dose_amount,
        ${deleted ? sql`null::jsonb` : sql`s.schedule`}, ${sql.raw(String(deleted))}, s.serving_size, s.ingredients
      from ${from} as s
      on conflict (user_id, supplement_id, valid_from) do update set
        name = excluded.name, quantity_type = excluded.quantity_type, dose_amount = excluded.dose_amount,
        schedule = excluded.schedule, deleted = excluded.deleted,
        serving_size = excluded.serving_size, ingredients = excluded.ingredients
    )`;
}
