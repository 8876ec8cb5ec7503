/**
 * The pure rules of the Stripe webhook (api/billing/sync.ts, api/billing/webhook.ts): which statuses are premium, and which
 * subscription (and whose) each event type is about. Written to kill the mutants StrykerJS
 * makes of the webhook's code (docs/mutation-testing.md); the webhook itself is tested against the fake
 * Stripe in tests/api/billing.test.ts.
 */
import { describe, expect, test } from "bun:test";
import type Stripe from "stripe";
import { isPremiumStatus } from "../../api/billing/sync";
import { subscriptionRef } from "../../api/billing/webhook";

describe("webhook rules: isPremiumStatus", () => {
  test.each(["active", "trialing"])("%s is premium", (status) => {
    expect(isPremiumStatus(status)).toBe(true);
  });
  test.each([
    "incomplete",
    "incomplete_expired",
    "past_due",
    "unpaid",
    "paused",
    "canceled",
    "",
    "ACTIVE",
    null,
    undefined,
  ])("%p is free", (status) => {
    expect(isPremiumStatus(status)).toBe(false);
  });
});

const event = (type: string, object: unknown) => ({ id: "evt_1", type, data: { object } }) as unknown as Stripe.Event;

describe("webhook rules: subscriptionRef", () => {
  const SUBSCRIPTION_EVENTS = [
    "customer.subscription.created",
    "customer.subscription.updated",
    "customer.subscription.deleted",
    "customer.subscription.paused",
    "customer.subscription.resumed",
    "customer.subscription.pending_update_applied",
    "customer.subscription.pending_update_expired",
    "customer.subscription.trial_will_end",
  ];

  test.each(SUBSCRIPTION_EVENTS)("%s: the subscription, its customer and our user id", (type) => {
    expect(subscriptionRef(event(type, { id: "sub_1", customer: "cus_1", metadata: { userId: "u1" } }))).toEqual({
      subscriptionId: "sub_1",
      customerId: "cus_1",
      userId: "u1",
    });
    // An expanded customer, and no metadata.
    expect(subscriptionRef(event(type, { id: "sub_2", customer: { id: "cus_2" } }))).toEqual({
      subscriptionId: "sub_2",
      customerId: "cus_2",
      userId: null,
    });
    expect(subscriptionRef(event(type, { id: "sub_3", customer: "cus_3", metadata: {} }))).toEqual({
      subscriptionId: "sub_3",
      customerId: "cus_3",
      userId: null,
    });
  });

  const INVOICE_EVENTS = [
    "invoice.created",
    "invoice.finalized",
    "invoice.paid",
    "invoice.payment_succeeded",
    "invoice.payment_failed",
    "invoice.payment_action_required",
    "invoice.marked_uncollectible",
    "invoice.voided",
    "invoice.updated",
  ];

  test.each(INVOICE_EVENTS)("%s: the invoice's subscription, customer and our user id", (type) => {
    const invoice = (details: unknown, customer: unknown = "cus_1") => ({
      id: "in_1",
      customer,
      parent: details === undefined ? null : { subscription_details: details },
    });
    expect(subscriptionRef(event(type, invoice({ subscription: "sub_1", metadata: { userId: "u1" } })))).toEqual({
      subscriptionId: "sub_1",
      customerId: "cus_1",
      userId: "u1",
    });
    expect(subscriptionRef(event(type, invoice({ subscription: { id: "sub_2" } }, { id: "cus_2" })))).toEqual({
      subscriptionId: "sub_2",
      customerId: "cus_2",
      userId: null,
    });
    expect(subscriptionRef(event(type, invoice({ subscription: "sub_3", metadata: {} }, null)))).toEqual({
      subscriptionId: "sub_3",
      customerId: null,
      userId: null,
    });
    // An invoice of no subscription (a one-off) is not ours to act on.
    expect(subscriptionRef(event(type, invoice(undefined)))).toBeNull();
    expect(subscriptionRef(event(type, invoice({ subscription: null })))).toBeNull();
    expect(subscriptionRef(event(type, { id: "in_2", customer: "cus_1" }))).toBeNull();
  });

  test.each([
    "customer.created",
    "charge.succeeded",
    "checkout.session.completed",
    "invoice.upcoming",
    "customer.subscription",
  ])("%s is not used", (type) => {
    expect(subscriptionRef(event(type, { id: "sub_1", customer: "cus_1", parent: null }))).toBeNull();
  });
});
