// Take all and its undo (issue 38, issue 45 §5): PUT /api/intakes/{date} in
// api/tracking/routes.ts, by line range (the batch's schema, then its route), against its
// suite (slots × Take all, the window, all or nothing). The writes it calls are the
// tracking-writes module.
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "take-all",
  [
    "api/tracking/routes.ts:150-167", // doseKey, batchBodySchema
    "api/tracking/routes.ts:211-234", // PUT /api/intakes/:date
  ],
  ["tests/api/tracking-take-all.test.ts"],
);
