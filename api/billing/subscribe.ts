/**
 * Subscribe: one subscription per user, whatever the clicks. Under the user's lock the
 * customer's subscriptions are read from Stripe: a live one is mirrored and refused, one
 * waiting for its payment is reused, and only then is a new one created.
 */

import { BILLING_MESSAGES } from "../../src/lib/account-messages";
import { HttpError } from "../lib/http";
import { log } from "../lib/log";
import type { AppContext } from "../lib/types";
import { withUserLock } from "../lib/user-lock";
import { isMissingResource, type Stripe } from "./stripe";
import { applySubscription, isPremiumStatus, PAYABLE_STATUSES, updateUser } from "./sync";

/** The client secret of the subscription's open first (or overdue) invoice, if it can be paid. */
function payableSecret(subscription: Stripe.Subscription): string | null {
  if (!PAYABLE_STATUSES.has(subscription.status)) return null;
  const invoice = subscription.latest_invoice;
  if (!invoice || typeof invoice === "string" || invoice.status !== "open") return null;
  return invoice.confirmation_secret?.client_secret ?? null;
}

export type SubscribeResult =
  | { kind: "premium" }
  | { kind: "pay"; clientSecret: string | null; subscriptionId: string };

/**
 * POST /api/get-or-create-subscription's work, under the user's lock: the subscription waiting
 * for its payment (reused: a double click, a reload, a failed card) or a new one; "premium" when
 * the user already pays.
 */
export async function getOrCreateSubscription(
  ctx: AppContext,
  stripe: Stripe,
  userId: string,
): Promise<SubscribeResult> {
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
