// Origin check for state-changing requests, security headers and CSP (api/security.ts).
import { moduleConfig } from "./base.mjs";

export default moduleConfig("security", ["api/security.ts"], ["tests/unit/security-rules.test.ts"]);
