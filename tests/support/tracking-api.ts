/** Shared by the tracking API tests: requests as a user, and a supplement added through the API. */
import { expect } from "bun:test";
import { setClock } from "../../api/clock";
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
