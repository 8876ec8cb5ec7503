/**
 * One user's writes in order: a transaction holding the row lock on the user. Billing (every
 * change to the Stripe mirror, api/billing/) and supplements (adds against the cap, reorders
 * against adds) both run under it, so two requests of one user that race each other write in
 * the order they took the lock, each seeing what the one before it committed.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type User, users } from "../../db/schema";
import { COMMON_MESSAGES } from "../../src/lib/messages";
import { HttpError } from "./http";
import type { AppContext } from "./types";

/** A transaction of the app's database (PGlite or postgres.js alike). */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** The transaction that holds the lock; set `changed` when the user's rows were written. */
export interface UserLock {
  tx: Tx;
  changed: boolean;
}

/**
 * Runs `fn` in a transaction holding a row lock on the user, with the row as it is once the
 * lock is held (a user that no longer exists is a 404). When `fn` marked the lock `changed`,
 * this instance's cached copies of the user are dropped once the transaction is over (other
 * instances hear of it from the database's change notifications).
 */
export async function withUserLock<T>(
  ctx: Pick<AppContext, "database" | "caches">,
  userId: string,
  fn: (lock: UserLock, user: User) => Promise<T>,
): Promise<T> {
  const held: { lock?: UserLock } = {};
  try {
    return await ctx.database.db.transaction(async (tx) => {
      const lock: UserLock = { tx, changed: false };
      held.lock = lock;
      const [user] = await tx.select().from(users).where(eq(users.id, userId)).for("update");
      if (!user) throw new HttpError(404, COMMON_MESSAGES.userNotFound);
      return fn(lock, user);
    });
  } finally {
    if (held.lock?.changed) ctx.caches.invalidate({ userId });
  }
}
