// Fixed-window rate limits and the batched limiter of the public profile API (api/lib/rate-limit.ts):
// the unit tests on a set clock first (exact bounds, fast to fail), then the rules over HTTP.
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "rate-limit",
  ["api/lib/rate-limit.ts"],
  ["tests/unit/rate-limit.test.ts", "tests/api/rate-limit-rules.test.ts"],
);
