// The account export (api/account/export.ts): the CSV as units first (a mutant there fails in
// milliseconds), then its sections and their order, which columns go where, only the user's
// own rows (seeded for two users), the period end from Stripe, on a migrated PGlite copy with
// users made as rows: tests/api/account-export-rules.test.ts.
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "export",
  ["api/account/export.ts"],
  ["tests/unit/export-csv-rules.test.ts", "tests/api/account-export-rules.test.ts"],
);
