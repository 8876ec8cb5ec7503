// The account export (api/account/export.ts): its sections and their order, which columns go
// where, only the user's own rows (seeded for two users), the period end from Stripe, and the
// CSV. Its rules on a migrated PGlite copy, rows seeded directly:
// tests/api/account-export-rules.test.ts.
import { moduleConfig } from "./base.mjs";

export default moduleConfig("export", ["api/account/export.ts"], ["tests/api/account-export-rules.test.ts"]);
