// The reminder planner and sender (issue 39, issue 45 §5): api/reminders/outbox.ts (planning,
// claims, leases, back-off, marks, open doses) and api/reminders/sender.ts (delivery per
// channel, the test reminder), against the focused rules suite (zones × clock times, channels ×
// follow-ups, users × tokens, kinds × budgets) and the reminders suite (due times on clock-change
// days, late drops, retries, leases, 404/410). The rules suite first: it fails fastest.
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "reminders",
  ["api/reminders/outbox.ts", "api/reminders/sender.ts"],
  ["tests/api/reminders-rules.test.ts", "tests/api/reminders.test.ts"],
);
