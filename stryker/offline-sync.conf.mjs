// The offline client (issue 40, issue 45 §5): the waiting queue (src/lib/offline-queue.ts) and
// its sending (src/lib/offline-sync.ts), against their unit table on an in-memory IndexedDB
// (fake-indexeddb) and a fake `fetch` (tests/unit/offline-sync.test.ts): under a second a run,
// no database, no browser.
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "offline-sync",
  ["src/lib/offline-sync.ts", "src/lib/offline-queue.ts"],
  ["tests/unit/offline-sync.test.ts"],
  { timeoutMS: 10_000 },
);
