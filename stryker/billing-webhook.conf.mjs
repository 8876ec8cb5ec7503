// The Stripe webhook and the sync it runs (api/billing/): the webhook file whole
// (subscriptionRef, findEventUser, POST /api/stripe/webhook), the user lock whole
// (api/lib/user-lock.ts, shared with supplements), and of the sync only the parts the webhook
// runs; not the subscribe/cancel/portal routes. Tests: the pure rules first (fast to fail), then the
// webhook's rules over HTTP against the fake Stripe, on a migrated PGlite copy with users made
// as rows (tests/api/billing-webhook-rules.test.ts: ~3 s of CPU, where the billing suite's
// webhook tests took 25-30 s a run, most of it sign-ups and a fresh in-memory database).
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "billing-webhook",
  [
    "api/billing/sync.ts:15-24", // isPremiumStatus
    "api/billing/sync.ts:33-33", // idOf
    "api/billing/sync.ts:36-87", // updateUser, applySubscription
    "api/lib/user-lock.ts", // withUserLock
    "api/billing/webhook.ts", // subscriptionRef, findEventUser, POST /api/stripe/webhook
  ],
  ["tests/unit/billing-webhook-rules.test.ts", "tests/api/billing-webhook-rules.test.ts"],
);
