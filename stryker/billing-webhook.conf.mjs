// The Stripe webhook and the sync it runs (api/billing.ts): only those line ranges are mutated,
// not the subscribe/cancel/portal routes. Tests: the pure rules first (fast to fail), then the
// webhook's rules over HTTP against the fake Stripe, on a migrated PGlite copy with users made
// as rows (tests/api/billing-webhook-rules.test.ts: ~3 s of CPU, where the billing suite's
// webhook tests took 25-30 s a run, most of it sign-ups and a fresh in-memory database).
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "billing-webhook",
  [
    "api/billing.ts:42-51", // isPremiumStatus
    "api/billing.ts:59-59", // idOf
    "api/billing.ts:91-157", // withUserLock, updateUser, applySubscription
    "api/billing.ts:306-366", // subscriptionRef, findEventUser
    "api/billing.ts:479-540", // POST /api/stripe/webhook
  ],
  ["tests/unit/billing-webhook-rules.test.ts", "tests/api/billing-webhook-rules.test.ts"],
);
