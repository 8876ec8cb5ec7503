// Fixed-window rate limits and the batched limiter of the public profile API (api/rate-limit.ts).
import { moduleConfig } from "./base.mjs";

export default moduleConfig("rate-limit", ["api/rate-limit.ts"], ["tests/api/rate-limit-rules.test.ts"]);
