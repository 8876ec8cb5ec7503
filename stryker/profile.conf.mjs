// The public profile (contents, limit) and PUT /api/profile (api/profile/routes.ts).
import { moduleConfig } from "./base.mjs";

export default moduleConfig("profile", ["api/profile/routes.ts"], ["tests/api/profile-rules.test.ts"]);
