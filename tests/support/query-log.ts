/**
 * startApi() with every SQL statement the app sends recorded (createContext's `onQuery`),
 * for tests that count statements.
 *
 *   const api = await startApiWithQueryLog();
 *   api.queries.length = 0;
 *   await api.fetch(...);
 *   expect(api.queries.length).toBe(...);
 */
import { startApi, type TestApi } from "./server";

export interface QueryLoggingApi extends TestApi {
  /** Every statement sent since start (clear it with `queries.length = 0`). */
  queries: string[];
}

export async function startApiWithQueryLog(extraEnv: Record<string, string> = {}): Promise<QueryLoggingApi> {
  const queries: string[] = [];
  const api = await startApi(extraEnv, { onQuery: (query) => queries.push(query) });
  return Object.assign(api, { queries });
}
