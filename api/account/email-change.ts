/**
 * The e-mail change (issue 36): every rule of its confirmation link lives here. A pending change
 * is one `verifications` row, `email-change:<sha-256 of the link's token>` → `<user id> <new
 * address>`; the token itself is only in the mail. A link works once (its row is deleted as it is
 * opened), for 24 hours, and dies with a newer request, a password change or reset and a
 * sign-out of the other devices (endEmailChanges). The old address hears of the request and of
 * the change, with no link. Rules and reasons: SECURITY.md "E-mail change".
 */
import { createHash, randomBytes } from "node:crypto";
import { and, eq, like, ne, sql } from "drizzle-orm";
import type { Database, Db } from "../../db/client";
import { type User, users, verifications } from "../../db/schema";
import { EMAIL_CHANGE_RESULTS, type EmailChangeResult } from "../../src/lib/account";
import { MAIL_MESSAGES } from "../../src/lib/messages";
import type { Caches } from "../lib/cache";
import { nowMs } from "../lib/clock";
import type { Config } from "../lib/config";
import { isUniqueViolation } from "../lib/http";
import { errorFields, log } from "../lib/log";
import { createMailer, mailOrRefuse } from "../lib/mail";

/**
 * What the change needs of the app. Not AppContext: api/auth/auth.ts imports this module, and the
 * context's type names the auth instance (a cycle).
 */
interface Deps {
  config: Config;
  database: Pick<Database, "db">;
  caches: Pick<Caches, "invalidate">;
}

/** How long a confirmation link works. */
export const EMAIL_LINK_HOURS = 24;
const PREFIX = "email-change:";

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/** Every pending e-mail change of the user ends: their links stop working. */
export async function endEmailChanges(db: Db, userId: string): Promise<void> {
  await db
    .delete(verifications)
    .where(
      and(like(verifications.identifier, `${PREFIX}%`), sql`split_part(${verifications.value}, ' ', 1) = ${userId}`),
    );
}

/**
 * Starts a change of `user`'s address to `newEmail` (the caller has checked who is asking):
 * any earlier link dies, the old address is told, and the link goes to the new one unless
 * another account has that address (then nothing goes there: the answer is the same).
 */
export async function requestEmailChange(ctx: Deps, user: User, newEmail: string): Promise<void> {
  const db = ctx.database.db;
  const address = newEmail.trim().toLowerCase();
  await endEmailChanges(db, user.id);
  const send = createMailer(ctx.config, ctx.database);
  await send({ to: user.email, ...MAIL_MESSAGES.emailChangeRequested(address) });
  const [taken] = await db.select({ id: users.id }).from(users).where(eq(users.email, address)).limit(1);
  if (taken) {
    log.info("e-mail change to an address in use: no link sent", { userId: user.id });
    return;
  }
  const token = randomBytes(32).toString("base64url");
  await db.insert(verifications).values({
    id: crypto.randomUUID(),
    identifier: `${PREFIX}${hashOf(token)}`,
    value: `${user.id} ${address}`,
    expiresAt: new Date(nowMs() + EMAIL_LINK_HOURS * 3_600_000),
  });
  const url = `${ctx.config.origin}/api/account/email/confirm?token=${encodeURIComponent(token)}`;
  // Over the new address's daily budget: a 429 for the asker (api/lib/mail.ts).
  await mailOrRefuse(send, { to: address, ...MAIL_MESSAGES.emailChangeConfirm(url, EMAIL_LINK_HOURS) });
}

/**
 * Opens a confirmation link: the change happens, or the reason it cannot (used, ended or
 * expired link; the address taken meanwhile by another account). Never throws for a bad token.
 */
export async function confirmEmailChange(ctx: Deps, token: string | undefined): Promise<EmailChangeResult> {
  if (!token || token.length > 200) return EMAIL_CHANGE_RESULTS.invalid;
  const db = ctx.database.db;
  // Deleted as it is read: a second opening (or a concurrent one) finds nothing.
  const [row] = await db
    .delete(verifications)
    .where(eq(verifications.identifier, `${PREFIX}${hashOf(token)}`))
    .returning({ value: verifications.value, expiresAt: verifications.expiresAt });
  if (!row || row.expiresAt.getTime() <= nowMs()) return EMAIL_CHANGE_RESULTS.invalid;
  const [userId, address] = row.value.split(" ") as [string, string];
  const [other] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.email, address), ne(users.id, userId)))
    .limit(1);
  if (other) return EMAIL_CHANGE_RESULTS.taken;
  let before: User | undefined;
  try {
    before = await db.transaction(async (transaction) => {
      const tx = transaction as unknown as Db;
      const [locked] = await tx.select().from(users).where(eq(users.id, userId)).for("update");
      if (!locked) return undefined;
      await tx.update(users).set({ email: address, emailVerified: true }).where(eq(users.id, userId));
      return locked;
    });
  } catch (error) {
    if (isUniqueViolation(error)) return EMAIL_CHANGE_RESULTS.taken;
    throw error;
  }
  if (!before) return EMAIL_CHANGE_RESULTS.invalid;
  ctx.caches.invalidate({ userId, names: before.username ? [before.username] : [] });
  log.info("e-mail changed", { userId });
  try {
    await createMailer(ctx.config, ctx.database)({ to: before.email, ...MAIL_MESSAGES.emailChanged(address) });
  } catch (error) {
    // The change is made; a notice that could not go out must not turn the link into an error.
    log.warn("e-mail change: the notice to the old address failed", { userId, ...errorFields(error) });
  }
  return EMAIL_CHANGE_RESULTS.changed;
}
