/** Tests of the fixed-window limits (api/lib/rate-limit.ts) that must not straddle a window's edge. */
import { type Limit, windowOf } from "../../api/lib/rate-limit";

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

/**
 * For scenarios that cannot simply run again (processes of their own, accounts spent): waits
 * for a fresh minute window when fewer than `needSeconds` are left of this one.
 */
export async function freshMinute(needSeconds: number): Promise<void> {
  const left = 60 - ((Date.now() / 1000) % 60);
  if (left < needSeconds) await Bun.sleep(left * 1000 + 100);
}
