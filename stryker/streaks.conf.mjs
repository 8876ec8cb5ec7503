// History's numbers (src/lib/streaks.ts: what a day counts as, current and longest streak,
// adherence): pure functions, so their unit table alone covers them (well under a second a run).
import { moduleConfig } from "./base.mjs";

export default moduleConfig("streaks", ["src/lib/streaks.ts"], ["tests/unit/streaks-rules.test.ts"], {
  timeoutMS: 10_000,
});
