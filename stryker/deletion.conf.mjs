// Account deletion (DELETE /api/account): who may, Stripe first for every subscription that can
// still bill, what goes, and the username hold (api/account/holds.ts). Its rules over HTTP
// against the fake Stripe, on a migrated PGlite copy: tests/api/account-delete-rules.test.ts.
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "deletion",
  ["api/account/delete.ts", "api/account/holds.ts"],
  ["tests/api/account-delete-rules.test.ts"],
);
