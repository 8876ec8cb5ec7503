/**
 * The Stripe mirror: the user row follows Stripe, the source of truth. Every change to a user's
 * billing fields happens under the user's row lock (api/lib/user-lock.ts), and the subscription is
 * read from Stripe *after* the lock is taken, so two syncs racing each other (a webhook, a
 * cancel, a refetch) write in the order they read: the last writer saw Stripe's latest state.
 */
import { eq } from "drizzle-orm";
import { type User, users } from "../../db/schema";
import { errorFields, log } from "../lib/log";
import type { AppContext } from "../lib/types";
import { type UserLock, withUserLock } from "../lib/user-lock";
import { getStripe, isMissingResource, type Stripe } from "./stripe";

/** Premium while the subscription is active or trialing; every other status is free. */
export function isPremiumStatus(status: Stripe.Subscription.Status | string | null | undefined): boolean {
  switch (status) {
    case "active":
    case "trialing":
      return true;
    default:
      // incomplete, incomplete_expired, past_due, unpaid, paused, canceled
      return false;
  }
}

/** Statuses a subscription never leaves: nothing to sync. */
export const FINAL_STATUSES = new Set(["canceled", "incomplete_expired"]);

/** Statuses whose latest open invoice, once paid, makes the subscription active again. */
export const PAYABLE_STATUSES = new Set(["incomplete", "past_due", "unpaid"]);

/** The id of a Stripe reference, expanded or not. */
export const idOf = (ref: string | { id: string }): string => (typeof ref === "string" ? ref : ref.id);

/** Writes billing fields of the user under the lock. */
export async function updateUser(
  lock: UserLock,
  user: User,
  changes: Partial<typeof users.$inferInsert>,
): Promise<User> {
  const [updated] = await lock.tx
    .update(users)
    .set({ ...changes, updatedAt: new Date() })
    .where(eq(users.id, user.id))
    .returning();
  lock.changed = true;
  return updated ?? user;
}

/**
 * Mirrors a subscription read from Stripe onto the user: its id, status and premium flag.
 * News about a subscription other than the user's current one is applied only when that
 * subscription is live (a stale event about an old, cancelled subscription changes nothing),
 * or when `adopt` says it becomes the user's current one (the one being paid for now).
 */
export async function applySubscription(
  lock: UserLock,
  user: User,
  subscription: Stripe.Subscription,
  { adopt = false }: { adopt?: boolean } = {},
): Promise<User> {
  const customerId = idOf(subscription.customer);
  if (user.stripeCustomerId && user.stripeCustomerId !== customerId) {
    log.warn("subscription belongs to another customer; ignored", { userId: user.id, subscription: subscription.id });
    return user;
  }
  const premium = isPremiumStatus(subscription.status);
  if (!adopt && user.stripeSubscriptionId && user.stripeSubscriptionId !== subscription.id && !premium) return user;
  if (
    user.stripeSubscriptionId === subscription.id &&
    user.subscriptionStatus === subscription.status &&
    user.isPremium === premium &&
    user.stripeCustomerId === customerId
  ) {
    return user;
  }
  const updated = await updateUser(lock, user, {
    stripeCustomerId: customerId,
    stripeSubscriptionId: subscription.id,
    subscriptionStatus: subscription.status,
    isPremium: premium,
  });
  if (updated.isPremium !== user.isPremium) {
    log.info("premium changed", { userId: user.id, isPremium: updated.isPremium, status: subscription.status });
  }
  return updated;
}

/** Reads the user's subscription from Stripe and mirrors it (under the user's lock). */
export async function syncLocked(
  stripe: Stripe,
  lock: UserLock,
  user: User,
): Promise<{ user: User; subscription: Stripe.Subscription | null }> {
  if (!user.stripeSubscriptionId) return { user, subscription: null };
  let subscription: Stripe.Subscription;
  try {
    subscription = await stripe.subscriptions.retrieve(user.stripeSubscriptionId);
  } catch (error) {
    if (!isMissingResource(error)) throw error;
    // Stripe has no such subscription (deleted test data, other keys): nothing is paid for.
    log.warn("subscription missing at Stripe; user set to free", {
      userId: user.id,
      subscription: user.stripeSubscriptionId,
    });
    const updated = await updateUser(lock, user, {
      stripeSubscriptionId: null,
      subscriptionStatus: null,
      isPremium: false,
    });
    return { user: updated, subscription: null };
  }
  return { user: await applySubscription(lock, user, subscription), subscription };
}

/** Whether a user's row may be behind Stripe: a subscription that is not premium and not over. */
export function hasPendingSubscription(user: User): boolean {
  return Boolean(user.stripeSubscriptionId) && !user.isPremium && !FINAL_STATUSES.has(user.subscriptionStatus ?? "");
}

/**
 * Re-reads the user's subscription from Stripe and mirrors it onto the user. Returns the
 * fresh row. Throws on Stripe or database failures.
 */
export async function syncSubscription(ctx: AppContext, userId: string): Promise<User | null> {
  const stripe = getStripe(ctx.config);
  if (!stripe) return null;
  return withUserLock(ctx, userId, async (lock, user) => (await syncLocked(stripe, lock, user)).user);
}

/**
 * For GET /api/auth/user: when the user has a subscription that may have just been paid,
 * sync it, so the premium flip does not wait for the webhook. Never fails the request:
 * on any error the row as it was is returned.
 */
export async function syncPendingSubscription(ctx: AppContext, user: User): Promise<User> {
  if (!ctx.config.billingEnabled || !hasPendingSubscription(user)) return user;
  try {
    return (await syncSubscription(ctx, user.id)) ?? user;
  } catch (error) {
    log.warn("subscription sync failed", { userId: user.id, ...errorFields(error) });
    return user;
  }
}
