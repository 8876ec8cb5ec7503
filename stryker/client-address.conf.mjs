// The client address behind N proxies (api/client-address.ts, issue 20 §1). The module and its
// tests arrive from another branch: the tests are every tests/**/client-address*.test.ts, and
// scripts/mutation.ts skips this config while api/client-address.ts does not exist.
import { readdirSync } from "node:fs";
import { moduleConfig } from "./base.mjs";

const tests = ["tests/unit", "tests/api"].flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => /^client-address.*\.test\.ts$/.test(f))
    .map((f) => `${dir}/${f}`),
);

export default moduleConfig("client-address", ["api/client-address.ts"], tests);
