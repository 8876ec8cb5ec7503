// The reminder planner and sender (issue 39, issue 45 §1 and §5): api/reminders/outbox.ts
// (planning, claims, leases, retries with back-off, marks, open doses),
// api/reminders/sender.ts (delivery per channel, each row on its own, the test reminder) and
// api/reminders/follow-ups.ts (issue 48: none after a later slot's reminder). The
// per-user isolation and the push payload cap are the `reminder-bounds` module.
// Tests, fastest first: the retry table (unit), the focused rules suite (zones × clock times,
// channels × follow-ups, users × tokens, kinds × budgets), the follow-ups table (issue 48), the
// per-user isolation suite and the reminders suite (due times on clock-change days, late drops, retries, leases, 404/410). Left
// out on purpose: reminders-faults and reminders-instances (built servers, two instances, real
// waits: minutes a run). Run it with TEST_DATABASE_URL: about 40 s a surviving mutant on the
// shared Postgres, several times that on PGlite.
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "reminders",
  ["api/reminders/outbox.ts", "api/reminders/sender.ts", "api/reminders/follow-ups.ts"],
  [
    "tests/unit/reminder-retry.test.ts",
    "tests/api/reminders-rules.test.ts",
    "tests/api/reminders-follow-ups.test.ts",
    "tests/api/reminders-isolation.test.ts",
    "tests/api/reminders.test.ts",
  ],
);
