// Profile images: what is an image, the avatar, size refusals, upload limit, serving (api/images/routes.ts).
import { moduleConfig } from "./base.mjs";

export default moduleConfig("images", ["api/images/routes.ts"], ["tests/api/images-rules.test.ts"]);
