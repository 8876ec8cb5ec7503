/** Shared by the tracking API tests: requests as a user, and a supplement added through the API. */
import { expect } from "bun:test";
import { setClock } from "../../api/lib/clock";
import type { TestApi } from "./server";
import type { ApiUser } from "./users";

type Init = Parameters<TestApi["fetch"]>[1];

/** `as(user, path, init)`: `api.fetch` with the user's session cookie. */
export const requestsAs =
  (api: () => TestApi) =>
  (user: ApiUser, path: string, init: Init = {}) =>
    api().fetch(path, { ...init, headers: { ...(init?.headers as Record<string, string>), cookie: user.cookie } });

/** Adds a supplement (a daily capsule named X unless `body` says otherwise); answers its id. */
export async function addSupplementAs(api: TestApi, user: ApiUser, body: Record<string, unknown>): Promise<number> {
  const res = await requestsAs(() => api)(user, "/api/supplements", {
    method: "POST",
    body: { name: "X", quantityType: "Capsule(s)", frequency: "daily", ...body },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

/**
 * A test clock at `at` that moves on a millisecond each time it is read, so a write comes after
 * the one before it (a tick after a stock count, issue 40); the answer moves it to `to`.
 */
export function steppingClock(at: string): (to: string) => void {
  let current = Date.parse(at);
  setClock(() => current++);
  return (to) => {
    current = Date.parse(to);
  };
}

/**
 * Every SQL statement the app sends, for the statement-count promises: pass `record` as
 * startApi's `onQuery` (with INSIGHTS_FLUSH_MS=0, nothing but the requests under test sends one).
 */
export function statementLog() {
  const queries: string[] = [];

  /** The statements `run` sends, and its answer. */
  async function counted<T>(run: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    queries.length = 0;
    const result = await run();
    return { result, statements: [...queries] };
  }

  /**
   * `counted(read)` until a read costs at most `most` statements (the session and user row
   * remembered: a change's own notification may drop the user row once, milliseconds after
   * it), for at most a second; the last.
   */
  async function untilAtMost<T>(most: number, read: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    const started = performance.now();
    for (;;) {
      const out = await counted(read);
      if (out.statements.length <= most || performance.now() - started > 1000) return out;
      await Bun.sleep(10);
    }
  }

  return { record: (query: string) => void queries.push(query), counted, untilAtMost };
}
