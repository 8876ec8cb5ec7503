// The client address behind N proxies (api/lib/client-address.ts, issue 20 §1): a pure module, so
// its mutants run against the unit table (tests/unit/client-address*.test.ts, under a second a
// run). The API suite tests/api/client-address.test.ts checks the wiring (every limiter and the
// request log use this function), which lives outside this module; it takes tens of seconds a
// run and is not needed to decide these mutants (docs/mutation-testing.md lists what the unit table misses).
// scripts/mutation.ts skips this config while api/lib/client-address.ts does not exist.
import { readdirSync } from "node:fs";
import { moduleConfig } from "./base.mjs";

const tests = readdirSync("tests/unit")
  .filter((f) => /^client-address.*\.test\.ts$/.test(f))
  .map((f) => `tests/unit/${f}`);

// A run takes under a second: a mutant that loops forever (formatIPv6's loops) is called a
// timeout after 10 s instead of the API suites' 60 s.
export default moduleConfig("client-address", ["api/lib/client-address.ts"], tests, { timeoutMS: 10_000 });
