// One user never stops everyone's reminders, and a push fits (issue 45 §1): api/reminders/isolate.ts
// (a failing set-based step runs again over halves down to single users, each bad one logged
// and skipped; each zone's date by Intl) and, in api/reminders/message.ts, the 3,000-byte push
// payload cap (`and N more`, the doses whole or gone). Tests: their unit tables, then the
// per-user isolation suite (bad zones and stocks among good users on a migrated database).
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "reminder-bounds",
  ["api/reminders/isolate.ts", "api/reminders/message.ts:17-72"],
  [
    "tests/unit/reminder-isolate.test.ts",
    "tests/unit/reminder-payload.test.ts",
    "tests/api/reminders-isolation.test.ts",
  ],
);
