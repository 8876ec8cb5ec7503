/**
 * Issue 45, "the offline copy outlives deletion and sessions ended elsewhere": the answers that
 * sign this browser out (account deletion, ending this device's session from the list) carry
 * Clear-Site-Data; ending a session removes that device's push subscription (migration 0016
 * ties a subscription to the session that made it), and deleting the account removes all of
 * them. The other device's subscription stays until its own session ends.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { CLEAR_SITE_DATA } from "../../api/account/session";
import { pushSubscriptions } from "../../db/schema";
import { cookieHeader } from "../support/auth";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser } from "../support/users";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

const KEYS = { p256dh: `B${"A".repeat(86)}`, auth: "A".repeat(22) };

/** A second signed-in browser of `user`. */
async function secondBrowser(user: ApiUser): Promise<string> {
  const res = await api.fetch("/api/auth/sign-in/email", {
    method: "POST",
    body: { email: user.email, password: user.password },
  });
  expect(res.status).toBe(200);
  return cookieHeader(res);
}

async function subscribe(cookie: string): Promise<string> {
  const res = await api.fetch("/api/push/subscriptions", {
    method: "POST",
    headers: { cookie },
    body: { endpoint: `https://fcm.googleapis.com/fcm/send/${crypto.randomUUID()}`, keys: KEYS },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function sessionsSeenBy(cookie: string) {
  const res = await api.fetch("/api/account/sessions", { headers: { cookie } });
  return (await res.json()) as { id: string; current: boolean }[];
}

const subscriptionsOf = async (user: ApiUser) =>
  (await api.ctx.database.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, user.id)))
    .map((r) => r.id)
    .sort();

type Ending = (user: ApiUser, a: string, b: string) => Promise<Response>;
const endings: [string, Ending, "a" | "b" | "both", boolean][] = [
  // [how, ended from browser A, whose subscription goes, Clear-Site-Data on the answer]
  [
    "A ends B's session from the list",
    async (_u, a, b) => {
      const other = (await sessionsSeenBy(b)).find((s) => s.current)?.id;
      return api.fetch(`/api/account/sessions/${other}`, { method: "DELETE", headers: { cookie: a } });
    },
    "b",
    false,
  ],
  [
    "A ends its own session from the list",
    async (_u, a) => {
      const own = (await sessionsSeenBy(a)).find((s) => s.current)?.id;
      return api.fetch(`/api/account/sessions/${own}`, { method: "DELETE", headers: { cookie: a } });
    },
    "a",
    true,
  ],
  [
    "A signs out the other devices",
    (_u, a) => api.fetch("/api/account/sessions/revoke-others", { method: "POST", headers: { cookie: a } }),
    "b",
    false,
  ],
  ["A logs out", (_u, a) => api.fetch("/api/logout", { method: "POST", headers: { cookie: a } }), "a", true],
  [
    "A deletes the account",
    (u, a) =>
      api.fetch("/api/account", {
        method: "DELETE",
        headers: { cookie: a },
        body: { password: u.password, confirm: u.username ?? "" },
      }),
    "both",
    true,
  ],
];

describe("a device signed out keeps nothing and receives nothing", () => {
  for (const [how, end, gone, clears] of endings) {
    test(`${how}: ${gone === "both" ? "every" : `${gone.toUpperCase()}'s`} subscription is removed${clears ? ", Clear-Site-Data" : ""}`, async () => {
      const user = await createUser(api, { username: `dev_${crypto.randomUUID().slice(0, 8)}` });
      const a = user.cookie;
      const b = await secondBrowser(user);
      const subs = { a: await subscribe(a), b: await subscribe(b) };
      const res = await end(user, a, b);
      expect(res.status).toBeLessThan(400);
      expect(res.headers.get("clear-site-data")).toBe(clears ? CLEAR_SITE_DATA : null);
      const left = gone === "both" ? [] : [gone === "a" ? subs.b : subs.a];
      expect(await subscriptionsOf(user)).toEqual(left);
    });
  }

  test(`Clear-Site-Data is ${CLEAR_SITE_DATA}: the worker's caches, storage and the worker; cookies by name`, () => {
    expect(CLEAR_SITE_DATA).toBe('"cache", "storage"');
  });

  test("the same browser subscribing again in a new session is tied to the new one", async () => {
    const user = await createUser(api);
    const b = await secondBrowser(user);
    const endpoint = `https://fcm.googleapis.com/fcm/send/${crypto.randomUUID()}`;
    for (const cookie of [user.cookie, b]) {
      const res = await api.fetch("/api/push/subscriptions", {
        method: "POST",
        headers: { cookie },
        body: { endpoint, keys: KEYS },
      });
      expect(res.status).toBe(201);
    }
    // The endpoint now belongs to B's session: A's sign-out leaves it.
    expect((await api.fetch("/api/logout", { method: "POST", headers: { cookie: user.cookie } })).status).toBe(303);
    expect((await subscriptionsOf(user)).length).toBe(1);
    expect((await api.fetch("/api/logout", { method: "POST", headers: { cookie: b } })).status).toBe(303);
    expect(await subscriptionsOf(user)).toEqual([]);
  });
});
