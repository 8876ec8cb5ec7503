// The insights counter (api/insights/counter.ts): who counts as a view or a click. Its tests are
// over HTTP on the built server (tests/api/insights-counter-rules.test.ts: visitors × kinds, read
// back through GET /api/insights), so they hold whatever the counter's inside becomes; the sandbox
// keeps dist/ (run `bun --bun astro build` first). About 30 s a run: the slowest module.
import { IGNORE_PATTERNS, moduleConfig } from "./base.mjs";

export default moduleConfig("counter", ["api/insights/counter.ts"], ["tests/api/insights-counter-rules.test.ts"], {
  ignorePatterns: IGNORE_PATTERNS.filter((pattern) => pattern !== "dist"),
  timeoutMS: 120_000,
});
