/**
 * Confirming the address for e-mail reminders (issue 45). Reminder, refill and test e-mails go
 * only to a confirmed address: `users.email_verified`, which sign-up leaves false and which
 * turns true when this link is opened or an e-mail change is confirmed (its link proves the new
 * address). Once true it stays true for that address.
 *
 * The link: 32 random bytes, kept only as their SHA-256 in `email_confirmations` (one row per
 * user, for the address it went to). It works once (the row is deleted as it is opened), for
 * EMAIL_CONFIRM_DAYS, for that address only, and a newer link replaces it. A new one goes out
 * when E-mail is turned on and none went out in the last EMAIL_CONFIRM_RESEND_MINUTES; every
 * one spends the recipient's daily mail budget (api/lib/mail.ts). SECURITY.md "Confirming the
 * address for e-mail reminders".
 */
import { createHash, randomBytes } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { emailConfirmations, users } from "../../db/schema";
import { EMAIL_CONFIRM_DAYS, EMAIL_CONFIRM_RESEND_MINUTES } from "../../src/lib/constants";
import { COMMON_MESSAGES, MAIL_MESSAGES } from "../../src/lib/messages";
import { nowMs } from "../lib/clock";
import type { Config } from "../lib/config";
import { HttpError } from "../lib/http";
import { errorFields, log } from "../lib/log";
import { type Mailer, mailOrRefuse } from "../lib/mail";

/** The path of the link (GET, no sign-in needed: the token is the proof). */
export const CONFIRM_PATH = "/api/reminders/confirm";

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

export interface ConfirmationState {
  /** Whether reminder e-mails may go to the account's address. */
  emailConfirmed: boolean;
  /** The address a link that still works went to (the account's current one), else null. */
  confirmationSentTo: string | null;
}

export async function confirmationState(db: Db, userId: string): Promise<ConfirmationState> {
  const [row] = await db
    .select({
      email: users.email,
      verified: users.emailVerified,
      address: emailConfirmations.address,
      expiresAt: emailConfirmations.expiresAt,
    })
    .from(users)
    .leftJoin(emailConfirmations, eq(emailConfirmations.userId, users.id))
    .where(eq(users.id, userId));
  if (!row) return { emailConfirmed: false, confirmationSentTo: null };
  const live =
    !row.verified && row.address === row.email && row.expiresAt !== null && row.expiresAt.getTime() > nowMs();
  return { emailConfirmed: row.verified, confirmationSentTo: live ? row.address : null };
}

/** What it needs: the sender's (api/reminders/worker.ts senderDeps). */
interface Deps {
  db: Db;
  config: Config;
  mailer: Mailer;
}

/**
 * E-mail was turned on: unless the address is confirmed or a link went out within the resend
 * window, a new link replaces any earlier one and is mailed. Throws 429 (the recipient's
 * budget) or 503 (the mail could not go out); then no link is kept.
 */
export async function askForConfirmation(deps: Deps, userId: string): Promise<"confirmed" | "recent" | "sent"> {
  const db = deps.db;
  const [user] = await db
    .select({ email: users.email, verified: users.emailVerified })
    .from(users)
    .where(eq(users.id, userId));
  if (!user || user.verified) return "confirmed";
  const token = randomBytes(32).toString("base64url");
  const tokenHash = hashOf(token);
  const now = nowMs();
  const resendAfter = new Date(now - EMAIL_CONFIRM_RESEND_MINUTES * 60_000);
  // One statement decides, so two requests at once send one link: the row is replaced only
  // when the last link is old enough or went to another address.
  const claimed = await db
    .insert(emailConfirmations)
    .values({
      userId,
      tokenHash,
      address: user.email,
      sentAt: new Date(now),
      expiresAt: new Date(now + EMAIL_CONFIRM_DAYS * 86_400_000),
    })
    .onConflictDoUpdate({
      target: emailConfirmations.userId,
      set: {
        tokenHash,
        address: user.email,
        sentAt: new Date(now),
        expiresAt: new Date(now + EMAIL_CONFIRM_DAYS * 86_400_000),
      },
      setWhere: sql`${emailConfirmations.sentAt} <= ${resendAfter.toISOString()}::timestamptz or ${emailConfirmations.address} <> excluded.address`,
    })
    .returning({ userId: emailConfirmations.userId });
  if (claimed.length === 0) return "recent";
  const url = `${deps.config.origin}${CONFIRM_PATH}?token=${encodeURIComponent(token)}`;
  try {
    await mailOrRefuse(deps.mailer, { to: user.email, ...MAIL_MESSAGES.reminderConfirm(url, EMAIL_CONFIRM_DAYS) });
  } catch (error) {
    await db
      .delete(emailConfirmations)
      .where(and(eq(emailConfirmations.userId, userId), eq(emailConfirmations.tokenHash, tokenHash)));
    if (error instanceof HttpError) throw error;
    log.warn("the address confirmation e-mail failed", { userId, ...errorFields(error) });
    throw new HttpError(503, COMMON_MESSAGES.unavailable);
  }
  log.info("address confirmation sent", { userId });
  return "sent";
}

/**
 * Opens a link: the address it was sent to is confirmed if it is still the account's. Never
 * throws for a bad token: "invalid" for an unknown, used, replaced or expired one.
 */
export async function confirmAddress(db: Db, token: string | undefined): Promise<"confirmed" | "invalid"> {
  if (!token || token.length > 200) return "invalid";
  // Deleted as it is read: a second opening (or a concurrent one) finds nothing.
  const [row] = await db
    .delete(emailConfirmations)
    .where(eq(emailConfirmations.tokenHash, hashOf(token)))
    .returning({
      userId: emailConfirmations.userId,
      address: emailConfirmations.address,
      expiresAt: emailConfirmations.expiresAt,
    });
  if (!row || row.expiresAt.getTime() <= nowMs()) return "invalid";
  const done = await db
    .update(users)
    .set({ emailVerified: true })
    .where(and(eq(users.id, row.userId), eq(users.email, row.address)))
    .returning({ id: users.id });
  if (done.length === 0) return "invalid";
  log.info("address confirmed for e-mail reminders", { userId: row.userId });
  return "confirmed";
}
