/**
 * Sessions and requests from elsewhere:
 * - a logged-out cookie stops working at once, and a session deleted in Postgres within
 *   a second, though each instance remembers verified sessions for
 *   SESSION_COOKIE_CACHE_SECONDS (kept at 2 s here);
 * - in production every session cookie the server sets, and every one it clears, is
 *   HttpOnly, SameSite=Lax and Secure (a clearing cookie without Secure is ignored by
 *   browsers for a __Secure- name, and the stale cookie stays);
 * - sign-up and password-reset rate limits (the sign-in limit is in auth.test.ts);
 * - a cross-origin state-changing request is refused on every state-changing /api route,
 *   read from the app's own routes, and writes nothing; the Stripe webhook and the one-click
 *   unsubscribe of reminder e-mails (RFC 8058: a mail client posts it) alone are exempt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq, like } from "drizzle-orm";
import { createApp } from "../../api/app";
import { parseConfig } from "../../api/lib/config";
import type { AppContext } from "../../api/lib/context";
import { LIMITS } from "../../api/lib/rate-limit";
import { sessions, users } from "../../db/schema";
import { type Instance, type SharedDatabase, sharedDatabase, startInstance } from "../support/instances";
import { ROOT, skipWithoutBuild } from "../support/process";
import { startApi, type TestApi } from "../support/server";
import { snapshotTables } from "../support/snapshot";
import { type ApiUser, createUser } from "../support/users";
import { inOneWindow } from "../support/windows";

const WINDOW_SECONDS = 2;

describe("an ended session stops working at once, though verified sessions are remembered", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ SESSION_COOKIE_CACHE_SECONDS: String(WINDOW_SECONDS) });
  });
  afterAll(async () => {
    await api?.close();
  });

  test("the README documents the default window the configuration has", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const documented = readme.match(
      /remembers a verified session for\s+`SESSION_COOKIE_CACHE_SECONDS` \((\d+) s\)/,
    )?.[1];
    expect(Number(documented)).toBe(parseConfig({}).SESSION_COOKIE_CACHE_SECONDS);
  });

  const tokenCookie = (cookie: string) =>
    cookie
      .split("; ")
      .filter((c) => c.includes("session_token"))
      .join("; ");

  test("a copy of the cookie taken before logout answers 401 at once, on the API and the pages' session check", async () => {
    const user = await createUser(api);
    const copy = user.cookie;
    const me = () => api.fetch("/api/auth/user", { headers: { cookie: copy } });
    expect((await me()).status).toBe(200);
    // The verified session is really remembered (the next request needs no look-up).
    expect(api.ctx.caches.getSession(tokenCookie(copy), WINDOW_SECONDS * 1000)).toBe(user.id);

    const out = await api.fetch("/api/logout", { headers: { cookie: user.cookie } });
    expect(out.status).toBe(302);
    expect((await me()).status).toBe(401);
    // And it stays dead, for every signed-in call and page.
    expect((await api.fetch("/api/supplements", { headers: { cookie: copy } })).status).toBe(401);
    expect(
      (await api.fetch("/api/profile", { method: "PUT", headers: { cookie: copy }, body: { bio: "x" } })).status,
    ).toBe(401);
  });

  test("sessions ended through better-auth are forgotten before it answers, not only when Postgres announces it", async () => {
    const user = await createUser(api);
    const me = (cookie: string) => api.fetch("/api/auth/user", { headers: { cookie } });
    expect((await me(user.cookie)).status).toBe(200);
    // A second sign-in, never seen by the session check, ends every session of the account.
    const signIn = await api.fetch("/api/auth/sign-in/email", {
      method: "POST",
      body: { email: user.email, password: user.password },
    });
    expect(signIn.status).toBe(200);
    const fresh = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    // This instance hears nothing from Postgres meanwhile: only its own bookkeeping counts.
    const applyNotification = api.ctx.caches.applyNotification;
    api.ctx.caches.applyNotification = () => {};
    try {
      // better-auth's revokeSessions (not served over HTTP: api/auth/paths.ts), as the app calls it.
      const revoke = await api.ctx.auth.api.revokeSessions({ headers: new Headers({ cookie: fresh }) });
      expect(revoke.status).toBe(true);
      expect((await me(user.cookie)).status).toBe(401);
      expect((await me(fresh)).status).toBe(401);
    } finally {
      api.ctx.caches.applyNotification = applyNotification;
    }
  });

  test("a session deleted in Postgres by anyone (another instance, an admin) stops working within a second", async () => {
    const user = await createUser(api);
    const me = () => api.fetch("/api/auth/user", { headers: { cookie: user.cookie } });
    expect((await me()).status).toBe(200);
    expect(api.ctx.caches.getSession(tokenCookie(user.cookie), WINDOW_SECONDS * 1000)).toBe(user.id);

    await api.ctx.database.db.delete(sessions).where(eq(sessions.userId, user.id));
    const deletedAt = performance.now();
    let status = 200;
    while (status === 200 && performance.now() - deletedAt < 3000) {
      await Bun.sleep(20);
      status = (await me()).status;
    }
    expect(status).toBe(401);
    // Postgres announces the deletion (migration 0002): much sooner than the window.
    expect(performance.now() - deletedAt).toBeLessThan(1000);
  });
});

describe("rate limits (RATE_LIMIT=on)", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ RATE_LIMIT: "on" });
  });
  afterAll(async () => {
    await api?.close();
  });

  test("sign-up: the 6th within a minute from one address is 429 JSON, and creates no account", () =>
    inOneWindow(async () => {
      const tag = crypto.randomUUID().slice(0, 6);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await api.fetch("/api/auth/sign-up/email", {
          method: "POST",
          body: {
            email: `rl-${tag}-${i}@example.com`,
            password: "correct horse battery",
            name: "R",
          },
        });
        statuses.push(res.status);
        if (res.status === 429) {
          expect(res.headers.get("content-type") ?? "").toContain("application/json");
          expect(Number(res.headers.get("retry-after") ?? res.headers.get("x-retry-after") ?? "1")).toBeGreaterThan(0);
        }
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      const made = await api.ctx.database.db
        .select({ id: users.id })
        .from(users)
        .where(like(users.email, `rl-${tag}-%`));
      expect(made).toHaveLength(5);
    }, LIMITS.signUpFromAddress));

  test("password reset requests: the 6th within 5 minutes is 429", () =>
    inOneWindow(async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await api.fetch("/api/auth/request-password-reset", {
          method: "POST",
          body: { email: `someone-${i}@example.com`, redirectTo: "/auth/reset-password" },
        });
        statuses.push(res.status);
      }
      expect(statuses.slice(0, 5).every((s) => s === 200)).toBe(true);
      expect(statuses[5]).toBe(429);
    }, LIMITS.resetRequestFromAddress));
});

/** Write routes taken from other origins: signed by their sender, not by a session. */
const EXEMPT = ["/api/stripe/webhook", "/api/reminders/unsubscribe"];

describe("cross-origin state-changing requests are refused on every /api route", () => {
  let api: TestApi;
  let user: ApiUser;
  let supplementId = 0;

  beforeAll(async () => {
    api = await startApi();
    user = await createUser(api, { username: `xo_${crypto.randomUUID().slice(0, 6)}` });
    const res = await api.fetch("/api/supplements", {
      method: "POST",
      headers: { cookie: user.cookie },
      body: { name: "Iron", quantityType: "Other", frequency: "daily" },
    });
    supplementId = ((await res.json()) as { id: number }).id;
  });
  afterAll(async () => {
    await api?.close();
  });

  /** better-auth's POST endpoints behind `POST /api/auth/*`. */
  const AUTH_POSTS = [
    "sign-up/email",
    "sign-in/email",
    "sign-in/social",
    "sign-out",
    "update-user",
    "change-password",
    "change-email",
    "revoke-session",
    "revoke-sessions",
    "revoke-other-sessions",
    "request-password-reset",
    "reset-password",
    "link-social",
    "unlink-account",
    "delete-user",
  ];

  function writeRoutes(): { method: string; path: string; exempt: boolean }[] {
    const app = createApp({} as AppContext);
    const out: { method: string; path: string; exempt: boolean }[] = [];
    const seen = new Set<string>();
    for (const r of app.routes) {
      if (["GET", "HEAD", "OPTIONS", "ALL"].includes(r.method)) continue;
      const key = `${r.method} ${r.path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (r.path === "/api/auth/*") {
        for (const p of AUTH_POSTS) out.push({ method: r.method, path: `/api/auth/${p}`, exempt: false });
        continue;
      }
      out.push({
        method: r.method,
        path: r.path.replace(":id", String(supplementId)),
        exempt: EXEMPT.includes(r.path),
      });
    }
    return out;
  }

  /**
   * Requests from elsewhere, and look-alikes of our origin `o` (http://127.0.0.1:<port>):
   * each must be refused on every route. A check that compared prefixes, parsed only the
   * host, or ignored case or scheme would let one of them through.
   */
  const ORIGINS: { what: string; origin: (o: URL) => string | null; referer?: (o: URL) => string }[] = [
    { what: "another site", origin: () => "https://evil.example" },
    { what: "no Origin header", origin: () => null },
    { what: "Origin: null (sandboxed frame, data: URL)", origin: () => "null" },
    { what: "an empty Origin", origin: () => "" },
    { what: "our host as a subdomain of theirs", origin: (o) => `http://${o.host.replace(":", "-")}.evil.example` },
    { what: "{origin}.evil.example", origin: (o) => `${o.origin}.evil.example` },
    { what: "{origin}@evil.example (ours as a user name)", origin: (o) => `${o.origin}@evil.example` },
    { what: "{origin}:8080 (a second port)", origin: (o) => `${o.origin}:8080` },
    { what: "{origin}evil", origin: (o) => `${o.origin}evil` },
    { what: "{origin}0 (a longer port)", origin: (o) => `${o.origin}0` },
    { what: "{origin}/ (with a path)", origin: (o) => `${o.origin}/` },
    { what: "{origin}/.evil.example", origin: (o) => `${o.origin}/.evil.example` },
    { what: "our host inside theirs", origin: (o) => `http://${o.hostname}.evil.example:${o.port}` },
    { what: "their user name before our host", origin: (o) => `http://evil.example@${o.host}` },
    { what: "our host on another port", origin: (o) => `http://${o.hostname}:${Number(o.port) + 1}` },
    { what: "our host and port with https instead of http", origin: (o) => `https://${o.host}` },
    { what: "ours, then theirs (two values)", origin: (o) => `${o.origin}, https://evil.example` },
    { what: "theirs, then ours (two values)", origin: (o) => `https://evil.example, ${o.origin}` },
    { what: "ours in upper case (no browser writes it so)", origin: (o) => o.origin.toUpperCase() },
    { what: "{origin}.EVIL.EXAMPLE in upper case", origin: (o) => `${o.origin}.evil.example`.toUpperCase() },
    {
      what: "a Referer alone, from {origin}.evil.example",
      origin: () => null,
      referer: (o) => `${o.origin}.evil.example/`,
    },
    {
      what: "a Referer alone, from {origin}@evil.example",
      origin: () => null,
      referer: (o) => `${o.origin}@evil.example/`,
    },
  ];

  test("the list of routes is read from the app (a new write route is covered automatically)", () => {
    const routes = writeRoutes();
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.filter((r) => r.exempt).map((r) => r.path)).toEqual([...EXEMPT]);
  });

  test("our own origin is accepted (the refusals below are for the origin, not something else)", async () => {
    const res = await api.fetch("/api/profile", {
      method: "PUT",
      origin: new URL(api.url).origin,
      headers: { cookie: user.cookie },
      body: { bio: "same origin" },
    });
    expect(res.status).toBe(200);
  });

  for (const { what, origin, referer } of ORIGINS) {
    test(`${what}: 403 JSON on every state-changing route, nothing written; the webhook is not refused for its origin`, async () => {
      const own = new URL(api.url);
      const before = await snapshotTables(api.ctx.database.db);
      const failures: string[] = [];
      for (const route of writeRoutes()) {
        const res = await api.fetch(route.path, {
          method: route.method,
          origin: origin(own),
          headers: {
            cookie: user.cookie,
            "content-type": "application/json",
            ...(referer ? { referer: referer(own) } : {}),
          },
          body: JSON.stringify({ name: "x", bio: "cross-origin", supplementIds: [supplementId] }),
        });
        const type = res.headers.get("content-type") ?? "";
        await res.arrayBuffer();
        if (route.exempt) {
          // Refused for its (missing) signature or token, not its origin.
          if (res.status === 403) failures.push(`${route.method} ${route.path}: 403 for an exempt route`);
        } else if (res.status !== 403 || !type.includes("application/json")) {
          failures.push(`${route.method} ${route.path}: ${res.status} ${type}`);
        }
      }
      expect(failures).toEqual([]);
      expect(await snapshotTables(api.ctx.database.db)).toBe(before);
    });
  }
});

describe.skipIf(skipWithoutBuild("security-sessions.test.ts: session cookies in production (built server)"))(
  "session cookies in production (built server, NODE_ENV=production)",
  () => {
    let db: SharedDatabase;
    let server: Instance;

    beforeAll(async () => {
      db = await sharedDatabase();
      server = await startInstance({
        ...db.env,
        NODE_ENV: "production",
        BETTER_AUTH_SECRET: "a-production-secret-for-the-cookie-flag-tests-0123456789",
      });
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    const post = (path: string, body: unknown, cookie?: string) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { origin: server.url, "content-type": "application/json", ...(cookie ? { cookie } : {}) },
        body: JSON.stringify(body),
        redirect: "manual",
      });
    const get = (path: string, cookie?: string) =>
      fetch(`${server.url}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });

    function flagsOf(res: Response, where: string): string[] {
      const problems: string[] = [];
      for (const cookie of res.headers.getSetCookie()) {
        const attrs = cookie
          .split(";")
          .slice(1)
          .map((a) => a.trim().toLowerCase());
        const name = cookie.split("=")[0] ?? "";
        if (!attrs.includes("httponly")) problems.push(`${where}: ${name} without HttpOnly`);
        if (!attrs.includes("secure")) problems.push(`${where}: ${name} without Secure`);
        if (!attrs.includes("samesite=lax")) problems.push(`${where}: ${name} without SameSite=Lax`);
      }
      return problems;
    }

    test("sign-up, sign-in, logout, a stale cookie on a page, a bogus cookie on logout: every Set-Cookie is HttpOnly, Secure, SameSite=Lax", async () => {
      const email = `prod-${crypto.randomUUID().slice(0, 8)}@example.com`;
      const problems: string[] = [];
      const up = await post("/api/auth/sign-up/email", { email, password: "correct horse battery", name: "P" });
      expect(up.status).toBe(200);
      expect(up.headers.getSetCookie().length).toBeGreaterThan(0);
      expect(up.headers.getSetCookie().some((c) => c.startsWith("__Secure-"))).toBe(true);
      problems.push(...flagsOf(up, "sign-up"));
      const cookie = up.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");

      const signIn = await post("/api/auth/sign-in/email", { email, password: "correct horse battery" });
      expect(signIn.status).toBe(200);
      problems.push(...flagsOf(signIn, "sign-in"));

      const out = await get("/api/logout", cookie);
      expect(out.status).toBe(302);
      problems.push(...flagsOf(out, "logout"));

      const bogus = "__Secure-better-auth.session_token=not-a-real-token; __Secure-better-auth.session_data=junk";
      const bogusOut = await get("/api/logout", bogus);
      expect(bogusOut.status).toBe(302);
      expect(bogusOut.headers.getSetCookie().length).toBeGreaterThan(0);
      problems.push(...flagsOf(bogusOut, "logout with a bogus cookie"));

      const stale = await get("/dashboard", bogus);
      expect(stale.status).toBe(302);
      expect(stale.headers.getSetCookie().length).toBeGreaterThan(0);
      problems.push(...flagsOf(stale, "a page with a stale cookie"));

      expect(problems).toEqual([]);
    });
  },
);

describe("ending a session takes a POST or a top-level navigation, never a sub-resource", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  const alive = async (user: ApiUser) =>
    (await api.fetch("/api/auth/user", { headers: { cookie: user.cookie } })).status === 200;

  /** What a browser sends for <img>, fetch(), <script>, <iframe> and friends pointing at /api/logout. */
  const SUB_RESOURCES = [
    "image",
    "empty",
    "script",
    "iframe",
    "frame",
    "style",
    "font",
    "object",
    "embed",
    "audio",
    "video",
    "worker",
    "IMAGE",
  ];

  test.each(SUB_RESOURCES.map((d) => [d]))(
    "GET /api/logout with Sec-Fetch-Dest: %s answers 302 to / and changes nothing",
    async (dest) => {
      const user = await createUser(api);
      const res = await api.fetch("/api/logout", {
        headers: { cookie: user.cookie, "sec-fetch-dest": dest, "sec-fetch-site": "same-origin" },
      });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("/");
      expect(res.headers.getSetCookie()).toEqual([]);
      expect(await alive(user)).toBe(true);
    },
  );

  test.each([
    [
      "Sec-Fetch-Dest: document (a top-level navigation)",
      { "sec-fetch-dest": "document", "sec-fetch-mode": "navigate" },
    ],
    ["no Sec-Fetch-Dest (curl, older clients)", {}],
  ] as const)("GET /api/logout with %s ends the session", async (_label, extra) => {
    const user = await createUser(api);
    const res = await api.fetch("/api/logout", { headers: { cookie: user.cookie, ...extra } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/");
    expect(res.headers.getSetCookie().some((c) => c.includes("session_token=;"))).toBe(true);
    expect(await alive(user)).toBe(false);
  });

  test("POST /api/logout from the site (the avatar menu's form) ends the session: 303 to /", async () => {
    const user = await createUser(api);
    const res = await api.fetch("/api/logout", {
      method: "POST",
      headers: { cookie: user.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.getSetCookie().some((c) => c.includes("session_token=;"))).toBe(true);
    expect(await alive(user)).toBe(false);
  });

  test.each([
    ["another site", "https://evil.example"],
    ["no Origin", null],
    ["Origin: null", "null"],
  ] as const)("POST /api/logout from %s is 403 and the session lives on", async (_label, origin) => {
    const user = await createUser(api);
    const res = await api.fetch("/api/logout", { method: "POST", origin, headers: { cookie: user.cookie } });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await alive(user)).toBe(true);
  });
});
