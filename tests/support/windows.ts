/** Tests of the fixed-window limits (api/rate-limit.ts) that must not straddle a window's edge. */
import { type Limit, windowOf } from "../../api/rate-limit";

/**
 * Runs a scenario against a fixed window of `limit`; should it straddle a window's
 * edge (the counts then legitimately restart), it runs once more, with fresh addresses.
 */
export async function inOneWindow(scenario: () => Promise<void>, limit: Limit): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const before = windowOf(Date.now(), limit);
    try {
      await scenario();
      return;
    } catch (error) {
      if (attempt > 0 || windowOf(Date.now(), limit) === before) throw error;
    }
  }
}
