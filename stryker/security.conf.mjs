// Origin check for state-changing requests, security headers and CSP (api/lib/security.ts).
import { moduleConfig } from "./base.mjs";

export default moduleConfig("security", ["api/lib/security.ts"], ["tests/unit/security-rules.test.ts"]);
