/**
 * A deleted account's username is held for USERNAME_HOLD_DAYS (30) days: links to it keep
 * answering 404 instead of somebody else's page, and nobody can take the name over while
 * people still follow them. Held names answer 409 'Username is already taken' (PUT
 * /api/profile), like a taken or reserved one. Expired holds simply stop counting.
 */
import { and, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { usernameHolds } from "../../db/schema";
import { USERNAME_HOLD_DAYS } from "../../src/lib/account";
import { now } from "../lib/clock";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whether `name` (any case) belongs to an account deleted within the last 30 days. */
export async function isUsernameHeld(db: Db, name: string): Promise<boolean> {
  const [row] = await db
    .select({ name: usernameHolds.name })
    .from(usernameHolds)
    .where(and(eq(usernameHolds.name, name.toLowerCase()), gt(usernameHolds.heldUntil, now())))
    .limit(1);
  return Boolean(row);
}

/** Holds `name` from now for 30 days (inside the deleting transaction). */
export async function holdUsername(tx: Db, name: string): Promise<void> {
  const heldUntil = new Date(now().getTime() + USERNAME_HOLD_DAYS * DAY_MS);
  await tx
    .insert(usernameHolds)
    .values({ name: name.toLowerCase(), heldUntil })
    .onConflictDoUpdate({ target: usernameHolds.name, set: { heldUntil, createdAt: sql`now()` } });
}
