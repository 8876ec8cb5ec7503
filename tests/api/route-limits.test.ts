/**
 * Issue 36 §3: every route that sends e-mail or checks a password has a limit, per account,
 * client address and recipient, from the one table in api/lib/rate-limit.ts (ROUTE_LIMITS).
 * 1. The walk: every route Hono serves and every endpoint better-auth has is classified here
 *    (sends mail, checks a password, or neither and why); a costly one that can be reached
 *    without an entry in ROUTE_LIMITS fails, and so does a new route nobody classified.
 * 2. The table: each route × each dimension it is limited by, driven until 429 (JSON, a
 *    message, Retry-After) while the other dimensions change on every request.
 * 3. Password checks share one budget per account, whichever door they come through.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setSystemTime, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createApp } from "../../api/app";
import { SERVED_AUTH_PATHS, servedAuthPath } from "../../api/auth/paths";
import { LIMITS, type LimitDimension, ROUTE_LIMITS } from "../../api/lib/rate-limit";
import { users } from "../../db/schema";
import { COMMON_MESSAGES } from "../../src/lib/messages";
import { cookieHeader } from "../support/auth";
import { startApi, type TestApi } from "../support/server";

type Cost = "password" | "mail" | "password+mail" | `none: ${string}`;

/** Every route of the Hono app ("METHOD /path"), and what it costs. */
const APP_ROUTES: Record<string, Cost> = {
  "GET /api/health": "none: reads",
  "GET /api/auth/user": "none: reads the session",
  "GET /api/login": "none: a redirect",
  "POST /api/logout": "none: ends the session",
  "GET /api/logout": "none: ends the session",
  "GET /api/profile/:username": "none: reads (its own batched limit)",
  "PUT /api/profile": "none: writes the profile",
  "GET /api/supplements": "none: reads",
  "POST /api/supplements": "none: writes",
  "PUT /api/supplements/reorder": "none: writes",
  "PUT /api/supplements/:id": "none: writes",
  "GET /api/supplements/:id": "none: reads",
  "DELETE /api/supplements/:id": "none: writes",
  "POST /api/supplements/:id/restore": "none: writes",
  "PUT /api/supplements/:id/stock": "none: writes one row",
  "POST /api/supplements/:id/refills": "none: writes one row (at most REFILLS_MAX refills kept)",
  "PUT /api/intakes/:date": "none: writes (Take all)",
  "GET /api/reminders": "none: reads",
  "PUT /api/reminders":
    "none: writes; its address confirmation mail goes at most once in 10 minutes, under the recipient's daily mail budget (api/lib/mail.ts)",
  "GET /api/reminders/confirm": "none: a one-time link (32 random bytes) confirms the address",
  "POST /api/reminders/test": "mail",
  "POST /api/copies": "none: adds up to 200 rows to one's own list; its own budget, 30 an hour per account",
  "GET /api/reminders/unsubscribe": "none: a confirmation page",
  "POST /api/reminders/unsubscribe": "none: turns e-mail reminders off (a signed link)",
  "GET /api/calendar": "none: reads",
  "GET /api/calendar/:file{[^/]+\\.ics}":
    "none: its own limit, 60 fetches an hour per feed, counted in the feed's row (api/calendar/feed.ts)",
  "PUT /api/calendar": "none: writes one row",
  "POST /api/calendar/reset": "none: writes one row (a new address)",
  "GET /api/push/key": "none: reads",
  "POST /api/push/subscriptions": "none: writes (at most 20 devices a user)",
  "DELETE /api/push/subscriptions/:id": "none: writes",
  "GET /api/today": "none: reads",
  "GET /api/stack/totals": "none: reads",
  "GET /api/nutrients": "none: a constant answer",
  "PUT /api/intakes/:date/:supplementId/:time": "none: writes",
  "DELETE /api/intakes/:date/:supplementId/:time": "none: writes",
  "GET /api/history": "none: reads",
  "GET /api/report": "none: reads (at most 366 days of the user's own doses)",
  "GET /api/report.csv": "none: reads (at most 366 days of the user's own doses)",
  "POST /api/upload/profile-image": "none: an upload (its own limit)",
  "POST /api/get-or-create-subscription": "none: Stripe",
  "POST /api/cancel-subscription": "none: Stripe",
  "POST /api/create-portal-session": "none: Stripe",
  "GET /api/billing": "none: reads",
  "POST /api/stripe/webhook": "none: signed by Stripe",
  "GET /api/insights": "none: reads",
  "GET /api/account": "none: reads",
  "GET /api/account/export": "none: reads",
  "DELETE /api/account": "password",
  "POST /api/account/password": "password",
  "POST /api/account/email": "password+mail",
  "GET /api/account/email/confirm": "mail",
  "GET /api/account/sessions": "none: reads",
  "POST /api/account/sessions/revoke-others": "none: ends sessions",
  "DELETE /api/account/sessions/:id": "none: ends a session",
  "GET /go/:id": "none: a redirect",
  "GET /images/:file": "none: reads",
  "HEAD /images/:file": "none: reads",
  "GET /og/:username/:file": "none: reads",
  "HEAD /og/:username/:file": "none: reads",
  "GET /:username/qr.svg": "none: reads",
  "HEAD /:username/qr.svg": "none: reads",
};

/** Every better-auth endpoint (its path), and what it costs when called. */
const AUTH_ENDPOINTS: Record<string, Cost> = {
  "/sign-in/social": "none: a redirect to the provider",
  "/callback/:id": "none: the provider's answer",
  "/get-session": "none: reads",
  "/sign-out": "none: ends the session",
  "/sign-up/email": "none: hashes a new password, sends nothing (sendOnSignUp off)",
  "/sign-in/email": "password",
  "/reset-password": "none: checks a one-time token",
  "/verify-password": "password",
  "/verify-email": "mail",
  "/send-verification-email": "mail",
  "/change-email": "mail",
  "/change-password": "password",
  "/update-session": "none: writes the session",
  "/update-user": "none: writes the user",
  "/delete-user": "password+mail",
  "/request-password-reset": "mail",
  "/reset-password/:token": "none: a redirect",
  "/list-sessions": "none: reads",
  "/revoke-session": "none: ends a session",
  "/revoke-sessions": "none: ends sessions",
  "/revoke-other-sessions": "none: ends sessions",
  "/link-social": "none: a redirect to the provider",
  "/list-accounts": "none: reads",
  "/delete-user/callback": "none: a one-time token",
  "/unlink-account": "none: removes an account",
  "/refresh-token": "none: the provider's tokens",
  "/get-access-token": "none: the provider's tokens",
  "/account-info": "none: reads",
  "/ok": "none: reads",
  "/error": "none: a page",
};

const costly = (cost: Cost | undefined) => cost !== undefined && !cost.startsWith("none");
const ALL_PROVIDERS = new Set(["github", "google"]);

let api: TestApi;
beforeAll(async () => {
  api = await startApi({
    RATE_LIMIT: "on",
    TRUST_PROXY: "true",
    LOG_LEVEL: "silent", // better-auth logs every refused OAuth state as an error
    // A provider configured, so that its callback is served (and limited).
    GITHUB_CLIENT_ID: "test-client",
    GITHUB_CLIENT_SECRET: "test-secret",
  });
});
afterAll(async () => {
  await api?.close();
});

describe("the walk: no route that sends mail or checks a password is without a limit", () => {
  test("every Hono route is classified, and each costly one has its entry", () => {
    const routes = [...new Set(createApp(api.ctx).routes.map((r) => `${r.method} ${r.path}`))].filter(
      (r) => r !== "ALL /*" && !r.endsWith(" /api/auth/*"),
    );
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.filter((r) => !(r in APP_ROUTES))).toEqual([]);
    expect(routes.filter((r) => costly(APP_ROUTES[r]) && !ROUTE_LIMITS[r])).toEqual([]);
  });

  test("every better-auth endpoint is classified; each costly one that is served has its entry", () => {
    const endpoints = Object.values(api.ctx.auth.api).flatMap((e) => {
      const { path, options } = e as { path?: string; options?: { method?: string | string[] } };
      if (typeof path !== "string") return []; // server-only (setPassword)
      const methods = [options?.method ?? []].flat().filter((m) => m === "GET" || m === "POST");
      return methods.map((method) => ({ method, path }));
    });
    expect(endpoints.length).toBeGreaterThan(25);
    expect([...new Set(endpoints.map((e) => e.path))].filter((p) => !(p in AUTH_ENDPOINTS))).toEqual([]);
    const unlimited = endpoints.filter((e) => {
      const sample = `/api/auth${e.path.replace(/:[^/]+/g, "github")}`;
      const served = servedAuthPath(e.method, sample, ALL_PROVIDERS);
      return served && costly(AUTH_ENDPOINTS[e.path]) && !ROUTE_LIMITS[`${e.method} /api/auth${e.path}`];
    });
    expect(unlimited).toEqual([]);
  });

  test("every served /api/auth path has an entry (the catch-all spends it), and no entry names a route that is gone", () => {
    const served = SERVED_AUTH_PATHS.map((s) => `${s.method} /api/auth${s.path}`);
    expect(served.filter((r) => !ROUTE_LIMITS[r])).toEqual([]);
    const known = new Set([...Object.keys(APP_ROUTES), ...served]);
    expect(Object.keys(ROUTE_LIMITS).filter((r) => !known.has(r))).toEqual([]);
  });
});

/**
 * Each case runs at the start of a minute of its own, the clock standing still (the limits are
 * fixed windows: ten requests that straddle a minute's end would start counting again).
 */
let minute = Math.ceil(Date.now() / 60_000);
beforeEach(() => {
  minute = Math.max(minute + 1, Math.ceil(Date.now() / 60_000));
  setSystemTime(new Date(minute * 60_000 + 1000));
});
afterEach(() => {
  setSystemTime();
});

/** Addresses no other test uses: 198.19.0.0/16, one per call. */
let counter = 0;
const nextAddress = () => {
  counter += 1;
  return `198.19.${Math.floor(counter / 250) % 250}.${(counter % 250) + 1}`;
};
const nextEmail = (what = "rl") => `${what}-${crypto.randomUUID().slice(0, 10)}@example.com`;
const PASSWORD = "correct horse battery";

interface Account {
  email: string;
  password: string;
  cookie: string;
}

async function signUp(): Promise<Account> {
  const email = nextEmail("acct");
  const res = await api.fetch("/api/auth/sign-up/email", {
    method: "POST",
    headers: { "x-forwarded-for": nextAddress() },
    body: { email, password: PASSWORD, name: "Limit Test" },
  });
  expect(res.status).toBe(200);
  return { email, password: PASSWORD, cookie: cookieHeader(res) };
}

/** One request's keys: whose, from where, to whom. */
interface Keys {
  account: Account;
  address: string;
  recipient: string;
}

const send = (method: string, path: string, k: Keys, body?: Record<string, unknown>, cookie?: string) =>
  api.fetch(path, {
    method,
    headers: { "x-forwarded-for": k.address, ...(cookie ? { cookie } : {}) },
    ...(body ? { body } : {}),
  });

/** How to call each limited route once; none of these calls succeeds in changing an account. */
const DRIVERS: Record<string, (k: Keys) => Promise<Response>> = {
  "POST /api/auth/sign-in/email": (k) =>
    send("POST", "/api/auth/sign-in/email", k, { email: k.account.email, password: "not the password" }),
  "POST /api/auth/sign-up/email": (k) =>
    send("POST", "/api/auth/sign-up/email", k, { email: nextEmail(), password: PASSWORD, name: "New" }),
  "POST /api/auth/request-password-reset": (k) =>
    send("POST", "/api/auth/request-password-reset", k, { email: k.recipient, redirectTo: "/auth/reset-password" }),
  "POST /api/auth/reset-password": (k) =>
    send("POST", "/api/auth/reset-password", k, { token: "not-a-token", newPassword: "a new password" }),
  "GET /api/auth/reset-password/:token": (k) =>
    send("GET", "/api/auth/reset-password/not-a-token?callbackURL=%2Fauth%2Freset-password", k),
  "POST /api/auth/sign-in/social": (k) =>
    send("POST", "/api/auth/sign-in/social", k, { provider: "github", callbackURL: "/dashboard" }),
  "GET /api/auth/callback/:id": (k) => send("GET", "/api/auth/callback/github?code=x&state=y", k),
  "POST /api/auth/callback/:id": (k) => send("POST", "/api/auth/callback/github", k, { code: "x", state: "y" }),
  // E-mail reminders on first (without a channel the test is refused before it spends anything),
  // to a confirmed address (issue 45).
  "POST /api/reminders/test": async (k) => {
    const db = api.ctx.database.db;
    await db.update(users).set({ emailVerified: true }).where(eq(users.email, k.account.email));
    await send("PUT", "/api/reminders", k, { email: true }, k.account.cookie);
    return send("POST", "/api/reminders/test", k, {}, k.account.cookie);
  },
  "POST /api/account/password": (k) =>
    send(
      "POST",
      "/api/account/password",
      k,
      { currentPassword: "not the password", newPassword: "a new password" },
      k.account.cookie,
    ),
  "DELETE /api/account": (k) =>
    send("DELETE", "/api/account", k, { password: "not the password", confirm: "nope" }, k.account.cookie),
  // The right password: the mail budgets are spent only once it is the owner asking.
  "POST /api/account/email": (k) =>
    send(
      "POST",
      "/api/account/email",
      k,
      { newEmail: k.recipient, currentPassword: k.account.password },
      k.account.cookie,
    ),
  "GET /api/account/email/confirm": (k) => send("GET", "/api/account/email/confirm?token=not-a-token", k),
  // A name nobody has: the budget is spent before the name is looked up, nothing is added.
  "POST /api/copies": (k) =>
    send("POST", "/api/copies", k, { from: "nobody-has-this-name", supplementIds: [1] }, k.account.cookie),
};

/** Routes that act on a signed-in account (the account dimension needs a real one). */
const SIGNED_IN = new Set([
  "POST /api/account/password",
  "DELETE /api/account",
  "POST /api/account/email",
  "POST /api/reminders/test",
  "POST /api/copies",
]);

const CASES = Object.entries(ROUTE_LIMITS).flatMap(([route, rules]) =>
  [...new Set(rules.map(([dimension]) => dimension))].map((dimension) => {
    // The first budget of this dimension to run out decides when the 429 comes.
    const max = Math.min(...rules.filter(([d]) => d === dimension).map(([, budget]) => LIMITS[budget].max));
    return [route, dimension, max] as [string, LimitDimension, number];
  }),
);

describe("the table: route × dimension, driven to its limit", () => {
  let pool: Account[] = [];
  beforeAll(async () => {
    // Accounts for the address and recipient cases of signed-in routes (one per request there).
    const most = Math.max(...CASES.map(([, , max]) => max)) + 1;
    pool = [];
    for (let i = 0; i < most; i++) pool.push(await signUp());
  }, 120_000);

  test("every limited route has a driver", () => {
    expect(Object.keys(ROUTE_LIMITS).filter((r) => !DRIVERS[r])).toEqual([]);
  });

  test.each(CASES)(
    "%s, one %s: request %d passes, the next is 429 JSON",
    async (route, dimension, max) => {
      const drive = DRIVERS[route] as (k: Keys) => Promise<Response>;
      const fixed: Keys = {
        account: SIGNED_IN.has(route) ? await signUp() : { email: nextEmail(), password: PASSWORD, cookie: "" },
        address: nextAddress(),
        recipient: nextEmail("to"),
      };
      const keys = (i: number): Keys => ({
        account:
          dimension === "account"
            ? fixed.account
            : SIGNED_IN.has(route)
              ? (pool[i] as Account)
              : { ...fixed.account, email: nextEmail() },
        address: dimension === "address" ? fixed.address : nextAddress(),
        recipient: dimension === "recipient" ? fixed.recipient : nextEmail("to"),
      });
      const statuses: number[] = [];
      for (let i = 0; i < max; i++) {
        const res = await drive(keys(i));
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      expect(statuses.filter((s) => s === 429 || s >= 500)).toEqual([]);
      const refused = await drive(keys(max));
      expect(refused.status).toBe(429);
      expect(refused.headers.get("content-type") ?? "").toContain("application/json");
      expect(((await refused.json()) as { message: string }).message).toBe(COMMON_MESSAGES.tooManyRequests);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    },
    60_000,
  );
});

describe("password checks share one budget per account, whichever door", () => {
  const wrongAt: Record<string, (a: Account, address: string) => Promise<Response>> = {
    "sign-in": (a, address) =>
      DRIVERS["POST /api/auth/sign-in/email"]?.({ account: a, address, recipient: "" }) as Promise<Response>,
    "password change": (a, address) =>
      DRIVERS["POST /api/account/password"]?.({ account: a, address, recipient: "" }) as Promise<Response>,
    "account deletion": (a, address) =>
      DRIVERS["DELETE /api/account"]?.({ account: a, address, recipient: "" }) as Promise<Response>,
  };
  const DOORS = Object.keys(wrongAt).flatMap((spent) =>
    Object.keys(wrongAt)
      .filter((then) => then !== spent)
      .map((then) => [spent, then] as const),
  );

  test.each(DOORS)(
    "10 wrong passwords at %s, then %s: 429, even from another address",
    async (spent, then) => {
      const account = await signUp();
      for (let i = 0; i < LIMITS.password.max; i++) {
        const res = await wrongAt[spent]?.(account, nextAddress());
        expect(res?.status).not.toBe(429);
      }
      expect((await wrongAt[then]?.(account, nextAddress()))?.status).toBe(429);
      // The right password through the sign-in form buys nothing more either.
      const right = await api.fetch("/api/auth/sign-in/email", {
        method: "POST",
        headers: { "x-forwarded-for": nextAddress() },
        body: { email: account.email, password: PASSWORD },
      });
      expect(right.status).toBe(429);
    },
    60_000,
  );
});
