/**
 * DELETE /api/account: the user leaves, and what StackTrack holds about them goes.
 *
 * Checks the password (or a fresh sign-in) and the typed username, cancels the user's
 * running Stripe subscriptions, then, in one transaction holding the user's row lock, holds
 * the username for 30 days and deletes the user's rows. Safe to run again if interrupted: a
 * failure to reach Stripe deletes nothing. Stripe's customer stays at Stripe, unlinked.
 * The full sequence: docs/features.md, "Your account (issue 15)", Deletion.
 */
import { APIError } from "better-auth/api";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { accounts, images, rateLimits, sessions, supplements, type User, users, verifications } from "../../db/schema";
import {
  DELETE_CONFIRM_WORD,
  type DeleteAccountInput,
  FRESH_SIGN_IN_MINUTES,
  SETTINGS_MESSAGES,
} from "../../src/lib/account";
import { getStripe, isMissingResource, isStripeError, type Stripe } from "../billing/stripe";
import { nowMs } from "../lib/clock";
import type { AppContext } from "../lib/context";
import { badRequest, HttpError } from "../lib/http";
import { errorFields, log } from "../lib/log";
import { hasPassword } from "./credentials";
import { endEmailChanges } from "./email-change";
import { holdUsername } from "./holds";
import { currentSession } from "./sessions";

/** Subscription statuses that are over: nothing left to cancel. */
const ENDED = new Set(["canceled", "incomplete_expired"]);

/** Step 1: the caller proves it is them and means it. Throws 400/403; writes nothing. */
async function checkIntent(ctx: AppContext, headers: Headers, user: User, input: DeleteAccountInput): Promise<void> {
  const expected = user.username ?? DELETE_CONFIRM_WORD;
  if (input.confirm.trim() !== expected) {
    const message = user.username ? SETTINGS_MESSAGES.confirmMismatch : SETTINGS_MESSAGES.confirmMismatchNoUsername;
    throw badRequest(message, { confirm: [message] });
  }
  if (await hasPassword(ctx.database.db, user.id)) {
    if (!input.password) {
      throw badRequest(SETTINGS_MESSAGES.passwordRequired, { password: [SETTINGS_MESSAGES.passwordRequired] });
    }
    try {
      await ctx.auth.api.verifyPassword({ headers, body: { password: input.password } });
    } catch (error) {
      if (error instanceof APIError && error.statusCode === 400) {
        throw badRequest(SETTINGS_MESSAGES.passwordIncorrect, { password: [SETTINGS_MESSAGES.passwordIncorrect] });
      }
      throw error;
    }
    return;
  }
  // No password (GitHub/Google only): the session must be a fresh sign-in.
  const { session } = await currentSession(ctx, headers);
  const age = nowMs() - new Date(session.createdAt).getTime();
  if (age > FRESH_SIGN_IN_MINUTES * 60_000) throw new HttpError(403, SETTINGS_MESSAGES.signInAgain);
}

/** Step 2: cancels, at once, every subscription of the user that still runs. Throws 502/503 on failure. */
async function cancelSubscriptions(ctx: AppContext, user: User): Promise<void> {
  const live = user.stripeSubscriptionId && !ENDED.has(user.subscriptionStatus ?? "");
  if (!user.stripeCustomerId && !live) return;
  const stripe = getStripe(ctx.config);
  if (!stripe) {
    if (live) throw new HttpError(503, SETTINGS_MESSAGES.paymentsNotConfigured);
    return; // a customer without a running subscription: nothing to do at Stripe
  }
  try {
    const ids = new Set<string>();
    if (live && user.stripeSubscriptionId) ids.add(user.stripeSubscriptionId);
    if (user.stripeCustomerId) {
      try {
        // Without a status, Stripe lists every subscription that is not cancelled.
        const list = await stripe.subscriptions.list({ customer: user.stripeCustomerId, limit: 100 });
        for (const s of list.data) if (!ENDED.has(s.status)) ids.add(s.id);
      } catch (error) {
        if (!isMissingResource(error)) throw error;
      }
    }
    for (const id of ids) await cancelOne(stripe, id);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    log.warn("account deletion: Stripe cancel failed; nothing deleted", {
      userId: user.id,
      ...(isStripeError(error)
        ? { stripeType: error.type, stripeCode: error.code, stripeStatus: error.statusCode, error: error.message }
        : errorFields(error)),
    });
    throw new HttpError(502, SETTINGS_MESSAGES.stripeUnreachable);
  }
}

/** Cancels one subscription; one that is already over (a retry) or gone counts as cancelled. */
async function cancelOne(stripe: Stripe, id: string): Promise<void> {
  try {
    await stripe.subscriptions.cancel(id);
  } catch (error) {
    if (isMissingResource(error)) return;
    if (isStripeError(error) && error.statusCode === 400) {
      const subscription = await stripe.subscriptions.retrieve(id);
      if (ENDED.has(subscription.status)) return;
    }
    throw error;
  }
}

/** Step 3: everything of the user's, in one transaction (the caller holds the row lock). */
async function deleteRows(tx: Db, user: User): Promise<void> {
  if (user.username) await holdUsername(tx, user.username);
  await tx.delete(supplements).where(eq(supplements.userId, user.id));
  await tx.delete(images).where(eq(images.userId, user.id));
  // Password-reset tokens name the user in their value.
  await tx.delete(verifications).where(eq(verifications.value, user.id));
  await endEmailChanges(tx, user.id);
  await tx.delete(sessions).where(eq(sessions.userId, user.id));
  await tx.delete(accounts).where(eq(accounts.userId, user.id));
  // Per-user counters are keyed `<limit>:<user id>` (api/lib/rate-limit.ts).
  const suffix = `:${user.id}`;
  await tx.delete(rateLimits).where(sql`right(${rateLimits.key}, ${suffix.length}) = ${suffix}`);
  await tx.delete(users).where(eq(users.id, user.id));
}

/** Deletes the signed-in `user`'s account (see the module comment). */
export async function deleteAccount(
  ctx: AppContext,
  headers: Headers,
  user: User,
  input: DeleteAccountInput,
): Promise<void> {
  await checkIntent(ctx, headers, user, input);
  await ctx.database.db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const [locked] = await tx.select().from(users).where(eq(users.id, user.id)).for("update");
    if (!locked) return; // deleted by a request that finished first
    await cancelSubscriptions(ctx, locked);
    await deleteRows(tx, locked);
  });
  ctx.caches.invalidate({ userId: user.id, names: [user.username], deleted: true });
  ctx.caches.dropSessionsOf(user.id);
  log.info("account deleted", { userId: user.id });
}
