/** How a user signs in: whether the account has a password (better-auth's credential account). */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { accounts } from "../../db/schema";

export async function hasPassword(db: Db, userId: string): Promise<boolean> {
  const rows = await db
    .select({ providerId: accounts.providerId, password: accounts.password })
    .from(accounts)
    .where(eq(accounts.userId, userId));
  return rows.some((r) => r.providerId === "credential" && Boolean(r.password));
}
