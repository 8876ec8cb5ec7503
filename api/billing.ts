/**
 * Premium billing through Stripe: subscribe, cancel, the billing portal, the billing
 * summary and the webhook. Stripe is the source of truth; the user row mirrors it.
 *
 * Every change to a user's billing fields happens under a row lock on that user
 * (`withUserLock`), and the subscription is read from Stripe *after* the lock is taken.
 * So two clicks on Subscribe create one subscription, and two syncs racing each other
 * (a webhook, a cancel, a refetch) write in the order they read: the last writer saw
 * Stripe's latest state. Webhook events are never trusted for state: each one names a
 * subscription, which is read again from Stripe, so duplicates and any arrival order
 * end in Stripe's current state. Each event id is recorded in `stripe_events` in the
 * same transaction as its effect: a redelivered event has no second effect, and an
 * event whose effect failed is not recorded, so Stripe's retry processes it.
 */
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import type { Db } from "../db/client";
import { stripeEvents, type User, users } from "../db/schema";
import { PREMIUM_PRICE_CENTS } from "../src/lib/constants";
import { BILLING_MESSAGES, COMMON_MESSAGES } from "../src/lib/messages";
import type { BillingSummary, CancelSubscriptionAnswer, PortalSessionAnswer, SubscribeAnswer } from "../src/lib/types";
import type { Config } from "./config";
import type { AppContext } from "./types";
import { type AppEnv, requireUser } from "./env";
import { HttpError, badRequest } from "./http";
import { errorFields, log } from "./log";
import { getStripe, isMissingResource, isStripeError, type Stripe } from "./stripe";

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
const FINAL_STATUSES = new Set(["canceled", "incomplete_expired"]);

/** Statuses whose latest open invoice, once paid, makes the subscription active again. */
const PAYABLE_STATUSES = new Set(["incomplete", "past_due", "unpaid"]);

const idOf = (ref: string | { id: string }): string => (typeof ref === "string" ? ref : ref.id);

function requireStripe(config: Config): Stripe {
  const stripe = getStripe(config);
  if (!stripe) throw new HttpError(503, BILLING_MESSAGES.notConfigured);
  return stripe;
}

/** A Stripe failure as a 502 with the screen's message; the details go to the log. */
function stripeFailure(error: unknown, message: string, context: Record<string, unknown>): never {
  if (error instanceof HttpError) throw error;
  log.warn("stripe call failed", {
    ...context,
    ...(isStripeError(error)
      ? { stripeType: error.type, stripeCode: error.code, stripeStatus: error.statusCode, error: error.message }
      : errorFields(error)),
  });
  throw new HttpError(502, message);
}

/** A transaction holding a user's row lock; `changed` is set when the row was written. */
interface Locked {
  tx: Db;
  changed: boolean;
}

/**
 * Runs `fn` in a transaction holding a row lock on the user, with the row as it is
 * once the lock is held. Billing changes for one user are thereby serialised. When the
 * row changed, this instance's cached copies are dropped once the change is committed
 * (other instances hear of it from the database's change notifications).
 */
async function withUserLock<T>(
  ctx: Pick<AppContext, "database" | "caches">,
  userId: string,
  fn: (lock: Locked, user: User) => Promise<T>,
): Promise<T> {
  const lock: Locked = { tx: ctx.database.db, changed: false };
  try {
    return await ctx.database.db.transaction(async (transaction) => {
      lock.tx = transaction as unknown as Db;
      const [user] = await lock.tx.select().from(users).where(eq(users.id, userId)).for("update");
      if (!user) throw new HttpError(404, COMMON_MESSAGES.userNotFound);
      return fn(lock, user);
    });
  } finally {
    if (lock.changed) ctx.caches.invalidate({ userId });
  }
}

/** Writes billing fields of the user under the lock. */
async function updateUser(lock: Locked, user: User, changes: Partial<typeof users.$inferInsert>): Promise<User> {
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
async function applySubscription(
  lock: Locked,
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
async function syncLocked(
  stripe: Stripe,
  lock: Locked,
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

/** The client secret of the subscription's open first (or overdue) invoice, if it can be paid. */
function payableSecret(subscription: Stripe.Subscription): string | null {
  if (!PAYABLE_STATUSES.has(subscription.status)) return null;
  const invoice = subscription.latest_invoice;
  if (!invoice || typeof invoice === "string" || invoice.status !== "open") return null;
  return invoice.confirmation_secret?.client_secret ?? null;
}

type SubscribeResult = { kind: "premium" } | { kind: "pay"; clientSecret: string | null; subscriptionId: string };

async function getOrCreateSubscription(ctx: AppContext, stripe: Stripe, userId: string): Promise<SubscribeResult> {
  const { config } = ctx;
  const priceId = config.STRIPE_PRICE_ID;
  if (!priceId) throw new HttpError(503, BILLING_MESSAGES.notConfigured);
  return withUserLock(ctx, userId, async (lock, locked) => {
    let user = locked;
    if (user.isPremium) return { kind: "premium" };

    const createCustomer = async (): Promise<string> => {
      const customer = await stripe.customers.create(
        {
          email: user.email,
          name: [user.firstName, user.lastName].filter(Boolean).join(" ") || user.name || undefined,
          metadata: { userId: user.id },
        },
        // Stripe replays the same customer for this key (24 h), should our write below fail.
        { idempotencyKey: `stacktrack-customer-${user.id}-${user.stripeCustomerId ?? "new"}` },
      );
      user = await updateUser(lock, user, { stripeCustomerId: customer.id });
      return customer.id;
    };

    let customerId = user.stripeCustomerId ?? (await createCustomer());
    let existing: Stripe.Subscription[];
    try {
      // Every subscription of the customer that is not cancelled, newest first.
      existing = (await stripe.subscriptions.list({ customer: customerId, limit: 20 })).data;
    } catch (error) {
      if (!isMissingResource(error)) throw error;
      log.warn("Stripe customer missing; creating a new one", { userId: user.id, customer: customerId });
      customerId = await createCustomer();
      existing = [];
    }

    const live = existing.find((s) => isPremiumStatus(s.status));
    if (live) {
      // Paid already (the webhook has not arrived yet): mirror it and refuse a second one.
      await applySubscription(lock, user, live);
      return { kind: "premium" };
    }

    // Reuse a subscription that is waiting for its payment (a double click, a reload,
    // a failed card): the user's current one first, then the newest.
    const candidates = existing
      .filter((s) => PAYABLE_STATUSES.has(s.status))
      .sort((a, b) => Number(b.id === user.stripeSubscriptionId) - Number(a.id === user.stripeSubscriptionId));
    for (const candidate of candidates) {
      const subscription = await stripe.subscriptions.retrieve(candidate.id, {
        expand: ["latest_invoice.confirmation_secret"],
      });
      const clientSecret = payableSecret(subscription);
      if (clientSecret) {
        await applySubscription(lock, user, subscription, { adopt: true });
        return { kind: "pay", clientSecret, subscriptionId: subscription.id };
      }
      if (subscription.status !== "incomplete") {
        // Overdue with nothing left to pay here: end it rather than bill twice.
        await stripe.subscriptions.cancel(subscription.id);
      }
    }

    const subscription = await stripe.subscriptions.create({
      customer: customerId,
      items: [{ price: priceId }],
      payment_behavior: "default_incomplete",
      payment_settings: { save_default_payment_method: "on_subscription" },
      expand: ["latest_invoice.confirmation_secret"],
      metadata: { userId: user.id },
    });
    await applySubscription(lock, user, subscription, { adopt: true });
    const invoice = subscription.latest_invoice;
    const clientSecret =
      invoice && typeof invoice !== "string" ? (invoice.confirmation_secret?.client_secret ?? null) : null;
    if (!clientSecret)
      log.warn("new subscription has no confirmation secret", { userId: user.id, subscription: subscription.id });
    return { kind: "pay", clientSecret, subscriptionId: subscription.id };
  });
}

/** Which subscription (and whose) a webhook event is about; null for events we do not use. */
export function subscriptionRef(
  event: Stripe.Event,
): { subscriptionId: string; customerId: string | null; userId: string | null } | null {
  switch (event.type) {
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
    case "customer.subscription.paused":
    case "customer.subscription.resumed":
    case "customer.subscription.pending_update_applied":
    case "customer.subscription.pending_update_expired":
    case "customer.subscription.trial_will_end": {
      const subscription = event.data.object;
      return {
        subscriptionId: subscription.id,
        customerId: idOf(subscription.customer),
        userId: subscription.metadata?.userId ?? null,
      };
    }
    case "invoice.created":
    case "invoice.finalized":
    case "invoice.paid":
    case "invoice.payment_succeeded":
    case "invoice.payment_failed":
    case "invoice.payment_action_required":
    case "invoice.marked_uncollectible":
    case "invoice.voided":
    case "invoice.updated": {
      const invoice = event.data.object;
      const details = invoice.parent?.subscription_details;
      if (!details?.subscription) return null;
      return {
        subscriptionId: idOf(details.subscription),
        customerId: invoice.customer ? idOf(invoice.customer) : null,
        userId: details.metadata?.userId ?? null,
      };
    }
    default:
      return null;
  }
}

/** The user a subscription event concerns: by Stripe customer id, else by the metadata we set. */
async function findEventUser(
  db: Db,
  ref: { customerId: string | null; userId: string | null },
): Promise<string | null> {
  if (ref.customerId) {
    const [row] = await db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.stripeCustomerId, ref.customerId))
      .limit(1);
    if (row) return row.id;
  }
  if (ref.userId) {
    const [row] = await db.select({ id: users.id }).from(users).where(eq(users.id, ref.userId)).limit(1);
    if (row) return row.id;
  }
  return null;
}

const formatAmount = (cents: number, currency: string) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(cents / 100);

function billingSummary(user: User, subscription: Stripe.Subscription | null): BillingSummary {
  const item = subscription?.items.data[0];
  const amount = item?.price.unit_amount ?? PREMIUM_PRICE_CENTS;
  const currency = item?.price.currency ?? "usd";
  const ongoing =
    subscription && !FINAL_STATUSES.has(subscription.status) && subscription.id === user.stripeSubscriptionId;
  const periodEnd = ongoing && item ? item.current_period_end : null;
  return {
    isPremium: user.isPremium,
    status: user.subscriptionStatus,
    nextBillingDate: periodEnd ? new Date(periodEnd * 1000).toISOString() : null,
    cancelAtPeriodEnd: Boolean(ongoing && (subscription.cancel_at_period_end || subscription.cancel_at)),
    amount,
    currency,
    amountFormatted: formatAmount(amount, currency),
    interval: item?.price.recurring?.interval ?? "month",
  };
}

export const billingRoutes = new Hono<AppEnv>()
  .post("/get-or-create-subscription", async (c) => {
    const user = await requireUser(c);
    const ctx = c.get("ctx");
    const stripe = requireStripe(ctx.config);
    if (user.isPremium) throw badRequest(BILLING_MESSAGES.alreadyPremium);
    let result: SubscribeResult;
    try {
      result = await getOrCreateSubscription(ctx, stripe, user.id);
    } catch (error) {
      stripeFailure(error, BILLING_MESSAGES.createFailed, { userId: user.id, step: "get-or-create-subscription" });
    }
    if (result.kind === "premium") throw badRequest(BILLING_MESSAGES.alreadyPremium);
    c.header("Cache-Control", "no-store");
    return c.json({
      clientSecret: result.clientSecret,
      subscriptionId: result.subscriptionId,
    } satisfies SubscribeAnswer);
  })
  .post("/cancel-subscription", async (c) => {
    const user = await requireUser(c);
    const ctx = c.get("ctx");
    const stripe = requireStripe(ctx.config);
    let outcome: { user: User } | null;
    try {
      outcome = await withUserLock(ctx, user.id, async (lock, locked) => {
        const subscriptionId = locked.stripeSubscriptionId;
        if (!subscriptionId) return null;
        if (!locked.isPremium && FINAL_STATUSES.has(locked.subscriptionStatus ?? "")) return null;
        let subscription: Stripe.Subscription;
        try {
          // Immediate, as the spec says: no access until the end of the period.
          subscription = await stripe.subscriptions.cancel(subscriptionId);
        } catch (error) {
          if (!isStripeError(error) || (error.statusCode !== 400 && error.statusCode !== 404)) throw error;
          // Already cancelled or gone at Stripe: mirror what Stripe has.
          const synced = await syncLocked(stripe, lock, locked);
          if (synced.subscription && !FINAL_STATUSES.has(synced.subscription.status)) throw error;
          return { user: synced.user };
        }
        return { user: await applySubscription(lock, locked, subscription) };
      });
    } catch (error) {
      stripeFailure(error, BILLING_MESSAGES.cancelFailed, { userId: user.id, step: "cancel-subscription" });
    }
    if (!outcome) throw badRequest(BILLING_MESSAGES.noSubscription);
    return c.json({
      isPremium: outcome.user.isPremium,
      status: outcome.user.subscriptionStatus,
    } satisfies CancelSubscriptionAnswer);
  })
  .post("/create-portal-session", async (c) => {
    const user = await requireUser(c);
    const { config } = c.get("ctx");
    const stripe = requireStripe(config);
    if (!user.stripeCustomerId) throw badRequest(BILLING_MESSAGES.noBillingAccount);
    try {
      const session = await stripe.billingPortal.sessions.create({
        customer: user.stripeCustomerId,
        return_url: `${config.origin}/billing`,
      });
      return c.json({ url: session.url } satisfies PortalSessionAnswer);
    } catch (error) {
      stripeFailure(error, BILLING_MESSAGES.portalFailed, { userId: user.id, step: "create-portal-session" });
    }
  })
  .get("/billing", async (c) => {
    const user = await requireUser(c);
    const ctx = c.get("ctx");
    const stripe = requireStripe(ctx.config);
    c.header("Cache-Control", "no-store");
    if (!user.stripeSubscriptionId) return c.json(billingSummary(user, null));
    try {
      const { user: fresh, subscription } = await withUserLock(ctx, user.id, (lock, locked) =>
        syncLocked(stripe, lock, locked),
      );
      return c.json(billingSummary(fresh, subscription));
    } catch (error) {
      stripeFailure(error, BILLING_MESSAGES.billingFailed, { userId: user.id, step: "billing" });
    }
  })
  .post("/stripe/webhook", async (c) => {
    const ctx = c.get("ctx");
    const { config, database } = ctx;
    const stripe = requireStripe(config);
    const secret = config.STRIPE_WEBHOOK_SECRET;
    if (!secret) throw new HttpError(503, BILLING_MESSAGES.notConfigured);
    const signature = c.req.header("stripe-signature");
    if (!signature) throw badRequest(BILLING_MESSAGES.missingSignature);
    // The signature covers the exact bytes Stripe sent.
    const payload = new Uint8Array(await c.req.arrayBuffer());
    let event: Stripe.Event;
    try {
      event = await stripe.webhooks.constructEventAsync(payload, signature, secret);
    } catch (error) {
      log.warn("stripe webhook refused", { reason: error instanceof Error ? error.message : String(error) });
      throw badRequest(BILLING_MESSAGES.invalidSignature);
    }

    const db = database.db;
    const [seen] = await db
      .select({ id: stripeEvents.id })
      .from(stripeEvents)
      .where(eq(stripeEvents.id, event.id))
      .limit(1);
    if (seen) return c.json({ received: true, duplicate: true });

    const record = (tx: Db) =>
      tx
        .insert(stripeEvents)
        .values({ id: event.id, type: event.type })
        .onConflictDoNothing()
        .returning({ id: stripeEvents.id });

    const ref = subscriptionRef(event);
    const userId = ref ? await findEventUser(db, ref) : null;
    if (!ref || !userId) {
      // Not ours to act on (an event type we do not use, a customer we do not know): 2xx,
      // or Stripe would retry it for days.
      const inserted = await record(db);
      return c.json({ received: true, ...(inserted.length ? { ignored: true } : { duplicate: true }) });
    }

    let outcome: "processed" | "duplicate";
    try {
      outcome = await withUserLock(ctx, userId, async (lock, user) => {
        const inserted = await record(lock.tx);
        if (!inserted.length) return "duplicate";
        let subscription: Stripe.Subscription;
        try {
          subscription = await stripe.subscriptions.retrieve(ref.subscriptionId);
        } catch (error) {
          if (isMissingResource(error)) return "processed";
          throw error;
        }
        await applySubscription(lock, user, subscription);
        return "processed";
      });
    } catch (error) {
      stripeFailure(error, BILLING_MESSAGES.webhookFailed, { event: event.id, type: event.type, step: "webhook" });
    }
    return c.json({ received: true, ...(outcome === "duplicate" ? { duplicate: true } : {}) });
  });
