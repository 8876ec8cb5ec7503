// The shared validation schemas and their messages (src/lib/validation.ts); the avatar-source
// and username-lookup rules added later have their own table (validation-avatar-rules).
import { moduleConfig } from "./base.mjs";

export default moduleConfig(
  "validation",
  ["src/lib/validation.ts"],
  ["tests/unit/validation-rules.test.ts", "tests/unit/validation-avatar-rules.test.ts"],
);
