/**
 * POST /api/stripe/webhook. Events are never trusted for state: each one names a subscription,
 * which is read again from Stripe (api/billing/sync.ts), so duplicates and any arrival order
 * end in Stripe's current state. Each event id is recorded in `stripe_events` in the same
 * transaction as its effect: a redelivered event has no second effect, and an event whose
 * effect failed is not recorded, so Stripe's retry processes it.
 */
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import type { Db } from "../../db/client";
import { stripeEvents, users } from "../../db/schema";
import { BILLING_MESSAGES } from "../../src/lib/account-messages";
import type { AppEnv } from "../lib/env";
import { badRequest, HttpError } from "../lib/http";
import { log } from "../lib/log";
import { type Tx, withUserLock } from "../lib/user-lock";
import { requireStripe, stripeFailure } from "./failures";
import { isMissingResource, type Stripe } from "./stripe";
import { applySubscription, idOf } from "./sync";

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
export async function findEventUser(
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

export const webhookRoutes = new Hono<AppEnv>().post("/stripe/webhook", async (c) => {
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

  const record = (tx: Db | Tx) =>
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
