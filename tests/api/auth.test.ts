/**
 * Issue 3, identity: GET /api/auth/user, the /api/login and /api/logout navigations,
 * better-auth's e-mail sign-up and sign-in (wrong password, password rule, taken e-mail),
 * the session cookie's attributes, and the sign-in rate limit.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { LIMITS } from "../../api/lib/rate-limit";
import { rateLimits, sessions, users } from "../../db/schema";
import { cookieHeader } from "../support/auth";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, userRow } from "../support/users";
import { inOneWindow } from "../support/windows";

const UNAUTHORIZED = { message: "Unauthorized" };

// One app for the describes that need the default configuration; the logout and
// rate-limit describes start their own (other settings).
let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

/** The fields of the spec's User that the client gets (no Stripe ids). */
const USER_FIELDS = [
  "id",
  "email",
  "firstName",
  "lastName",
  "profileImageUrl",
  "username",
  "bio",
  "isPremium",
  "instagramUrl",
  "twitterUrl",
  "facebookUrl",
  "etsyUrl",
  "youtubeUrl",
  "tiktokUrl",
  "linkedinUrl",
  "websiteUrl",
  // Issue 14: the public page's two switches.
  "showNotes",
  "showAffiliateLinks",
  // Issue 19: the zone and the public schedule switch.
  "timeZone",
  "showSchedule",
  // Issue 50 §3: visitors may copy the public list.
  "allowCopies",
  "createdAt",
  "updatedAt",
].sort();

describe("GET /api/auth/user", () => {
  let alice: ApiUser;
  beforeAll(async () => {
    alice = await createUser(api, { name: "Alice Marie Liddell", username: "alice_auth" });
  });

  test("signed out: 401 {message: 'Unauthorized'}, JSON, not cached", async () => {
    const res = await api.fetch("/api/auth/user");
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual(UNAUTHORIZED);
  });

  test("a forged or unknown session cookie: 401", async () => {
    for (const cookie of [
      "better-auth.session_token=not-a-token",
      "better-auth.session_token=abc.def",
      `${alice.cookie.split("=")[0]}=${"x".repeat(32)}.${"y".repeat(44)}`,
    ]) {
      const res = await api.fetch("/api/auth/user", { headers: { cookie } });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(UNAUTHORIZED);
    }
  });

  test("signed in: 200 with exactly the spec's user fields, no Stripe ids", async () => {
    // Stripe ids set in the database must still not reach the client.
    await api.ctx.database.db
      .update(users)
      .set({ stripeCustomerId: "cus_SECRET123", stripeSubscriptionId: "sub_SECRET456" })
      .where(eq(users.id, alice.id));
    const res = await api.fetch("/api/auth/user", { headers: { cookie: alice.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const text = await res.text();
    expect(text).not.toContain("cus_SECRET123");
    expect(text).not.toContain("sub_SECRET456");
    expect(text.toLowerCase()).not.toContain("stripe");
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(USER_FIELDS);
    expect(body).toMatchObject({
      id: alice.id,
      email: alice.email,
      username: "alice_auth",
      isPremium: false,
      bio: null,
      profileImageUrl: null,
      // firstName/lastName come from the sign-up name.
      firstName: "Alice",
      lastName: "Marie Liddell",
    });
    expect(new Date(String(body.createdAt)).getTime()).toBeGreaterThan(Date.now() - 5 * 60_000);
  });

  test("a user deleted from the database no longer counts as signed in", async () => {
    const bob = await createUser(api);
    expect((await api.fetch("/api/auth/user", { headers: { cookie: bob.cookie } })).status).toBe(200);
    await api.ctx.database.db.delete(users).where(eq(users.id, bob.id));
    // A delete made outside the app (psql, another instance) reaches this instance's caches
    // through Postgres's change notification, which lands milliseconds later: ask until it
    // has, for at most a second (the promise the caches make for changes made elsewhere).
    const started = performance.now();
    let res = await api.fetch("/api/auth/user", { headers: { cookie: bob.cookie } });
    while (res.status === 200 && performance.now() - started < 1000) {
      await res.arrayBuffer();
      await Bun.sleep(10);
      res = await api.fetch("/api/auth/user", { headers: { cookie: bob.cookie } });
    }
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(UNAUTHORIZED);
  });
});

describe("/api/login", () => {
  const login = async (query = "") => {
    const res = await api.fetch(`/api/login${query}`);
    await res.arrayBuffer();
    return { status: res.status, location: res.headers.get("location") };
  };

  test("302 to the sign-in page", async () => {
    expect(await login()).toEqual({ status: 302, location: "/auth/sign-in" });
  });

  test("keeps where the visitor wanted to go", async () => {
    expect(await login(`?redirectTo=${encodeURIComponent("/profile/edit")}`)).toEqual({
      status: 302,
      location: "/auth/sign-in?redirectTo=%2Fprofile%2Fedit",
    });
    expect(await login(`?redirectTo=${encodeURIComponent("/subscribe?plan=monthly")}`)).toEqual({
      status: 302,
      location: `/auth/sign-in?redirectTo=${encodeURIComponent("/subscribe?plan=monthly")}`,
    });
  });

  test("an absolute, protocol-relative or backslash redirectTo is not followed (no open redirect)", async () => {
    for (const target of [
      "https://evil.example/",
      "http://evil.example",
      "//evil.example",
      "//evil.example/path",
      "/\\evil.example",
      "javascript:alert(1)",
      "evil.example",
    ]) {
      const { status, location } = await login(`?redirectTo=${encodeURIComponent(target)}`);
      expect(status).toBe(302);
      expect(location).toBe("/auth/sign-in");
    }
  });

  test("it is a plain navigation: no session needed, GET only", async () => {
    const res = await api.fetch("/api/login", { method: "POST", body: {} });
    expect(res.status).not.toBe(302);
  });
});

describe("/api/logout", () => {
  // No cookie cache: a session ended on the server stops working at once.
  let noCache: TestApi;
  beforeAll(async () => {
    noCache = await startApi({ SESSION_COOKIE_CACHE_SECONDS: "0" });
  });
  afterAll(async () => {
    await noCache.close();
  });

  const tokenOf = (cookie: string) =>
    decodeURIComponent(cookie.match(/session_token=([^;]+)/)?.[1] ?? "").split(".")[0] ?? "";

  test("ends the session on the server, clears the cookies and redirects 302 to /", async () => {
    const user = await createUser(noCache);
    const token = tokenOf(user.cookie);
    expect(token.length).toBeGreaterThan(10);
    const stored = await noCache.ctx.database.db.select().from(sessions).where(eq(sessions.token, token));
    expect(stored).toHaveLength(1);
    expect((await noCache.fetch("/api/auth/user", { headers: { cookie: user.cookie } })).status).toBe(200);

    const res = await noCache.fetch("/api/logout", { headers: { cookie: user.cookie } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/");
    // The browser's offline copies (the worker's caches, waiting ticks) go too (issue 40).
    expect(res.headers.get("clear-site-data")).toBe('"cache", "storage"');
    const cleared = res.headers.getSetCookie().filter((c) => c.includes("session_token="));
    expect(cleared.length).toBeGreaterThan(0);
    for (const c of cleared) expect(c).toMatch(/session_token=;.*Max-Age=0/i);

    // The old token no longer opens anything.
    expect(await noCache.ctx.database.db.select().from(sessions).where(eq(sessions.token, token))).toHaveLength(0);
    const after = await noCache.fetch("/api/auth/user", { headers: { cookie: user.cookie } });
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual(UNAUTHORIZED);
    const write = await noCache.fetch("/api/profile", {
      method: "PUT",
      headers: { cookie: user.cookie },
      body: { bio: "x" },
    });
    expect(write.status).toBe(401);
    expect((await userRow(noCache, user)).bio).toBeNull();
  });

  test("ends only that session: the same user's other session stays signed in", async () => {
    const user = await createUser(noCache);
    const signIn = await noCache.fetch("/api/auth/sign-in/email", {
      method: "POST",
      body: { email: user.email, password: user.password },
    });
    expect(signIn.status).toBe(200);
    const second = cookieHeader(signIn);
    await (await noCache.fetch("/api/logout", { headers: { cookie: user.cookie } })).arrayBuffer();
    expect((await noCache.fetch("/api/auth/user", { headers: { cookie: user.cookie } })).status).toBe(401);
    expect((await noCache.fetch("/api/auth/user", { headers: { cookie: second } })).status).toBe(200);
  });

  test("signed out: still 302 to /", async () => {
    const res = await noCache.fetch("/api/logout");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/");
  });
});

describe("e-mail sign-up and sign-in (better-auth at /api/auth/*)", () => {
  let user: ApiUser;
  beforeAll(async () => {
    user = await createUser(api);
  });

  const countUsers = async (email: string) =>
    (await api.ctx.database.db.select().from(users).where(eq(users.email, email))).length;

  test("the session cookie is HttpOnly and SameSite=Lax (not Secure outside production)", async () => {
    const email = `cookie-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const res = await api.fetch("/api/auth/sign-up/email", {
      method: "POST",
      body: { email, password: "long enough password", name: "C" },
    });
    expect(res.status).toBe(200);
    const session = res.headers.getSetCookie().find((c) => c.includes("session_token="));
    expect(session).toBeDefined();
    expect(session).toMatch(/;\s*HttpOnly/i);
    expect(session).toMatch(/;\s*SameSite=Lax/i);
    expect(session).not.toMatch(/;\s*Secure/i);
  });

  test("the right password signs in: 200 and a working session", async () => {
    const res = await api.fetch("/api/auth/sign-in/email", {
      method: "POST",
      body: { email: user.email, password: user.password },
    });
    expect(res.status).toBe(200);
    const cookie = cookieHeader(res);
    const me = await api.fetch("/api/auth/user", { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { email: string }).email).toBe(user.email);
  });

  test("a wrong password: 401 with a message and no session", async () => {
    const res = await api.fetch("/api/auth/sign-in/email", {
      method: "POST",
      body: { email: user.email, password: "not the password" },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toBe("Invalid email or password");
    expect(res.headers.getSetCookie().filter((c) => /session_token=[^;]/.test(c))).toEqual([]);
  });

  test("an unknown e-mail answers exactly like a wrong password (401)", async () => {
    const res = await api.fetch("/api/auth/sign-in/email", {
      method: "POST",
      body: { email: "nobody-here@example.com", password: "whatever it is" },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toBe("Invalid email or password");
  });

  test("a password under 8 characters is refused and no account is created", async () => {
    const email = `short-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const res = await api.fetch("/api/auth/sign-up/email", {
      method: "POST",
      body: { email, password: "1234567", name: "Short" },
    });
    expect(res.status).toBe(400);
    expect(typeof ((await res.json()) as { message?: unknown }).message).toBe("string");
    expect(await countUsers(email)).toBe(0);
  });

  test("a taken e-mail is refused and the first account is untouched", async () => {
    const before = await userRow(api, user);
    const res = await api.fetch("/api/auth/sign-up/email", {
      method: "POST",
      body: { email: user.email, password: "another password", name: "Impostor" },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await countUsers(user.email)).toBe(1);
    expect(await userRow(api, user)).toEqual(before);
    // The original password still works.
    const signIn = await api.fetch("/api/auth/sign-in/email", {
      method: "POST",
      body: { email: user.email, password: user.password },
    });
    expect(signIn.status).toBe(200);
  });

  test("a sign-up from another origin is refused (403) and creates nothing", async () => {
    const email = `cross-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const res = await api.fetch("/api/auth/sign-up/email", {
      method: "POST",
      origin: "https://evil.example",
      body: { email, password: "long enough password", name: "X" },
    });
    expect(res.status).toBe(403);
    expect(await countUsers(email)).toBe(0);
  });

  test("a sign-in from another origin is refused (403) and sets no cookie", async () => {
    const res = await api.fetch("/api/auth/sign-in/email", {
      method: "POST",
      origin: "https://evil.example",
      body: { email: user.email, password: user.password },
    });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie()).toEqual([]);
  });
});

describe("sign-in rate limit (RATE_LIMIT=on)", () => {
  let limited: TestApi;
  let attempts = 0;
  beforeAll(async () => {
    limited = await startApi({ RATE_LIMIT: "on", TRUST_PROXY: "true" });
  });
  afterAll(async () => {
    await limited.close();
  });

  test("answers 429 once the limit is spent, even for the right password; the counter is in the database", () =>
    inOneWindow(async () => {
      const user = await createUser(limited);
      // A client address of its own: a rerun after a window's edge starts from no count.
      attempts += 1;
      const address = `198.18.77.${attempts}`;
      const attempt = (password: string) =>
        limited.fetch("/api/auth/sign-in/email", {
          method: "POST",
          body: { email: user.email, password },
          headers: { "x-forwarded-for": address },
        });
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await attempt(i % 2 ? user.password : "wrong password");
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      // Ten attempts a minute: wrong ones are 401, right ones 200, none limited yet.
      expect(statuses).toEqual([401, 200, 401, 200, 401, 200, 401, 200, 401, 200]);
      for (const password of ["wrong password", user.password]) {
        const refused = await attempt(password);
        expect(refused.status).toBe(429);
        expect(typeof ((await refused.json()) as { message?: unknown }).message).toBe("string");
        expect(refused.headers.getSetCookie().filter((c) => /session_token=[^;]/.test(c))).toEqual([]);
      }
      // The counters live in Postgres (shared by every instance), not in memory: the app's one
      // table of limits (api/lib/rate-limit.ts), per account and per client address.
      const counters = await limited.ctx.database.db.select().from(rateLimits);
      expect(counters.find((row) => row.key === `password:${user.id}`)?.count).toBeGreaterThanOrEqual(10);
      expect(counters.some((row) => row.key.startsWith("passwordFromAddress:") && row.count >= 10)).toBe(true);
    }, LIMITS.passwordFromAddress));
});
