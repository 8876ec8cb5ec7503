// The signed-in user's supplements: ids, scoping, premium fields, cap, reorder (api/supplements/routes.ts).
import { moduleConfig } from "./base.mjs";

export default moduleConfig("supplements", ["api/supplements/routes.ts"], ["tests/api/supplements-rules.test.ts"]);
