// The shared validation schemas and their messages (src/lib/validation.ts).
import { moduleConfig } from "./base.mjs";

export default moduleConfig("validation", ["src/lib/validation.ts"], ["tests/unit/validation-rules.test.ts"]);
