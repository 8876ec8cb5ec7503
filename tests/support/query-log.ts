/**
 * startApi() with every SQL statement the app sends recorded (createContext's `onQuery`),
 * for tests that count statements. The statements the app's own timers send whenever they
 * are due (the rate limits' flush every second, the insights counter's salt, flush and the
 * daily adding-up of visitors) go to `timerQueries` instead: they belong to no request, and
 * one landing inside a measured request would count against it.
 *
 *   const api = await startApiWithQueryLog();
 *   api.queries.length = 0;
 *   await api.fetch(...);
 *   expect(api.queries.length).toBe(...);
 */
import { startApi, type TestApi } from "./server";

export interface QueryLoggingApi extends TestApi {
  /** Every statement sent since start but the timers' (clear it with `queries.length = 0`). */
  queries: string[];
  /** The timers' statements (api/lib/rate-limit.ts, api/insights/counter.ts). */
  timerQueries: string[];
}

/** The first words of each statement a timer sends (as api/lib/rate-limit.ts and api/insights/counter.ts write them). */
export const TIMER_STATEMENT =
  /^\s*(insert into "rate_limits"|insert into visit_salts|with pv as \(|with closed as \()/;

export async function startApiWithQueryLog(extraEnv: Record<string, string> = {}): Promise<QueryLoggingApi> {
  const queries: string[] = [];
  const timerQueries: string[] = [];
  const api = await startApi(extraEnv, {
    onQuery: (query) => (TIMER_STATEMENT.test(query) ? timerQueries : queries).push(query),
  });
  return Object.assign(api, { queries, timerQueries });
}
