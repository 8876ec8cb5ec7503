/**
 * Schedule versions: what each supplement was from a date (the user's) on. Every write to a
 * supplement records the version in force from the user's today, replacing today's and
 * dropping any later one (a zone moved west can make 'today' earlier than a version): ended
 * days keep the version they had.
 */
import { and, eq, gt } from "drizzle-orm";
import { type Supplement, scheduleVersions, type User } from "../../db/schema";
import { dateIn } from "../../src/lib/dates";
import { now } from "../clock";
import type { Tx } from "../user-lock";

/** The user's calendar date now, in their zone (UTC until they set one). */
export const userToday = (user: Pick<User, "timeZone">): string => dateIn(user.timeZone, now());

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
      },
    });
}

/** Records `row` as it is now, in force from the user's today. */
export function recordVersion(tx: Tx, user: Pick<User, "id" | "timeZone">, row: Supplement): Promise<void> {
  return write(
    tx,
    user.id,
    row.id,
    { name: row.name, quantityType: row.quantityType, doseAmount: row.doseAmount, schedule: row.schedule },
    userToday(user),
  );
}

/** Records that `row` is gone from the user's today on (its past stays). */
export function recordDeletion(tx: Tx, user: Pick<User, "id" | "timeZone">, row: Supplement): Promise<void> {
  return write(
    tx,
    user.id,
    row.id,
    { name: row.name, quantityType: row.quantityType, doseAmount: row.doseAmount, schedule: null, deleted: true },
    userToday(user),
  );
}
