// The insights counter (api/insights/counter.ts): who may count, the visitor hash, and the
// batches (exact totals, once per visitor per UTC day, the salt's rotation, one statement a
// flush, nothing lost), through its public methods on a migrated PGlite copy. About 3 s a run.
// The HTTP table over the built server (tests/api/insights-counter-rules.test.ts, 15-30 s a
// run) stays in the normal suite: it covers the wiring (./count.ts), not this module's rules.
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "counter",
  ["api/insights/counter.ts"],
  ["tests/unit/insights-counter-rules.test.ts", "tests/api/insights-counter-batch-rules.test.ts"],
);
