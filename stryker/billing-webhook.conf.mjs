// The Stripe webhook and the sync it runs (api/billing/): the webhook file whole
// (subscriptionRef, findEventUser, POST /api/stripe/webhook), the user lock whole
// (api/user-lock.ts, shared with supplements), and of the sync only the parts the webhook
// runs; not the subscribe/cancel/portal routes. Tests: the pure rules first (fast to fail),
// then the webhook's describe blocks of the billing suite against the fake Stripe.
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "billing-webhook",
  [
    "api/billing/sync.ts:15-24", // isPremiumStatus
    "api/billing/sync.ts:33-33", // idOf
    "api/billing/sync.ts:36-87", // updateUser, applySubscription
    "api/user-lock.ts", // withUserLock
    "api/billing/webhook.ts", // subscriptionRef, findEventUser, POST /api/stripe/webhook
  ],
  ["tests/unit/billing-webhook-rules.test.ts", "tests/api/billing.test.ts", "-t", "'webhook'"],
);
