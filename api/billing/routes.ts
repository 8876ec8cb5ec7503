/**
 * Premium billing's routes: subscribe, cancel, the billing portal and the billing summary
 * (this file), and the webhook (webhook.ts). Stripe is the source of truth; the user row
 * mirrors it (sync.ts), always under the user's lock (api/lib/user-lock.ts).
 */
import { Hono } from "hono";
import type { User } from "../../db/schema";
import { BILLING_MESSAGES } from "../../src/lib/account-messages";
import { PREMIUM_PRICE_CENTS } from "../../src/lib/constants";
import type {
  BillingSummary,
  CancelSubscriptionAnswer,
  PortalSessionAnswer,
  SubscribeAnswer,
} from "../../src/lib/types";
import { type AppEnv, requireUser } from "../lib/env";
import { badRequest } from "../lib/http";
import { withUserLock } from "../lib/user-lock";
import { requireStripe, stripeFailure } from "./failures";
import { isStripeError, type Stripe } from "./stripe";
import { getOrCreateSubscription, type SubscribeResult } from "./subscribe";
import { applySubscription, FINAL_STATUSES, syncLocked } from "./sync";
import { webhookRoutes } from "./webhook";

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
  .route("/", webhookRoutes);
