// The intake writes (issue 40, issue 45 §5: api/tracking/writes.ts): the later change to a
// dose wins by the time it was made, a clear keeps the later of its times (devices × clears),
// Take all and its undo touch only the doses named (slots × Take all). Both suites run on a
// migrated database of their own (tests/support/pglite-template.ts).
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "tracking-writes",
  ["api/tracking/writes.ts"],
  ["tests/api/intakes-offline.test.ts", "tests/api/tracking-take-all.test.ts"],
);
