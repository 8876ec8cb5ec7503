/**
 * Issue 15, the account API (/api/account/*): password change and set, e-mail change by a
 * confirmation link, sessions (list, sign out one, everywhere else). Export and deletion
 * have their own files (account-export.test.ts, account-delete.test.ts).
 * Every refusal is checked to change nothing (a snapshot of every table).
 */
import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { eq } from "drizzle-orm";
import { log } from "../../api/lib/log";
import { accounts, users } from "../../db/schema";
import { type AccountSummary, SETTINGS_MESSAGES, type SessionInfo } from "../../src/lib/account";
import { cookieHeader } from "../support/auth";
import { startApi, type TestApi } from "../support/server";
import { snapshotTables } from "../support/snapshot";
import { type ApiUser, createUser, userRow } from "../support/users";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

interface ErrorBody {
  message: string;
  errors?: Record<string, string[]>;
}

const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0";
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

const call = (cookie: string | null, method: string, path: string, body?: Record<string, unknown>) =>
  api.fetch(path, { method, headers: cookie ? { cookie } : {}, body });

async function signIn(email: string, password: string, userAgent?: string): Promise<Response> {
  return api.fetch("/api/auth/sign-in/email", {
    method: "POST",
    body: { email, password },
    headers: userAgent ? { "user-agent": userAgent } : {},
  });
}

/** A second session of the user (another device). */
async function secondSession(user: ApiUser, userAgent = SAFARI_IPHONE): Promise<string> {
  const res = await signIn(user.email, user.password, userAgent);
  expect(res.status).toBe(200);
  return cookieHeader(res);
}

/** Whether a cookie is signed in right now (the app's own session check). */
const signedIn = async (cookie: string) => (await call(cookie, "GET", "/api/auth/user")).status === 200;

const snapshot = () => snapshotTables(api.ctx.database.db);

describe("password", () => {
  test("change: the new password signs in, the old one does not; other devices are signed out at once", async () => {
    const user = await createUser(api);
    const other = await secondSession(user);
    expect(await signedIn(other)).toBe(true);
    const res = await call(user.cookie, "POST", "/api/account/password", {
      currentPassword: user.password,
      newPassword: "a brand new password",
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { message: string }).message).toBe(SETTINGS_MESSAGES.passwordChanged);
    // 'Sign out of other devices' is on by default: the other device is out, this one gets a new session.
    expect(await signedIn(other)).toBe(false);
    const renewed = cookieHeader(res);
    expect(renewed).toContain("session_token");
    expect(await signedIn(renewed)).toBe(true);
    expect((await signIn(user.email, user.password)).status).toBe(401);
    expect((await signIn(user.email, "a brand new password")).status).toBe(200);
  });

  test("change without signing out the other devices: they stay signed in", async () => {
    const user = await createUser(api);
    const other = await secondSession(user);
    const res = await call(user.cookie, "POST", "/api/account/password", {
      currentPassword: user.password,
      newPassword: "another new password",
      revokeOtherSessions: false,
    });
    expect(res.status).toBe(200);
    expect(await signedIn(other)).toBe(true);
    expect(await signedIn(user.cookie)).toBe(true);
  });

  test.each([
    [
      "a wrong current password",
      { currentPassword: "not my password", newPassword: "a fine new password" },
      "currentPassword",
      SETTINGS_MESSAGES.currentPasswordIncorrect,
    ],
    [
      "the right password in another case",
      { currentPassword: "CORRECT HORSE BATTERY", newPassword: "a fine new password" },
      "currentPassword",
      SETTINGS_MESSAGES.currentPasswordIncorrect,
    ],
    [
      "no current password",
      { newPassword: "a fine new password" },
      "currentPassword",
      SETTINGS_MESSAGES.currentPasswordRequired,
    ],
    [
      "an empty current password",
      { currentPassword: "", newPassword: "a fine new password" },
      "currentPassword",
      SETTINGS_MESSAGES.currentPasswordRequired,
    ],
    [
      "a new password of 7 characters",
      { currentPassword: "correct horse battery", newPassword: "1234567" },
      "newPassword",
      SETTINGS_MESSAGES.passwordTooShort,
    ],
    [
      "a new password of 129 characters",
      { currentPassword: "correct horse battery", newPassword: "x".repeat(129) },
      "newPassword",
      SETTINGS_MESSAGES.passwordTooLong,
    ],
    [
      "a new password that is not text",
      { currentPassword: "correct horse battery", newPassword: 12345678 },
      "newPassword",
      undefined,
    ],
    [
      "revokeOtherSessions that is not a boolean",
      { currentPassword: "correct horse battery", newPassword: "a fine new password", revokeOtherSessions: "yes" },
      "revokeOtherSessions",
      undefined,
    ],
  ] as const)(
    "refused: %s → 400, nothing changes, the old password still works",
    async (_what, body, field, message) => {
      const user = await createUser(api);
      const other = await secondSession(user);
      const before = await snapshot();
      const res = await call(user.cookie, "POST", "/api/account/password", body as Record<string, unknown>);
      expect(res.status).toBe(400);
      const answer = (await res.json()) as ErrorBody;
      expect(answer.errors?.[field]).toBeDefined();
      if (message) expect(answer.message).toBe(message);
      expect(await snapshot()).toBe(before);
      expect(await signedIn(other)).toBe(true);
      expect((await signIn(user.email, user.password)).status).toBe(200);
    },
  );

  test("an account without a password (GitHub/Google only) sets one, and can then sign in with it", async () => {
    const user = await createUser(api);
    // As a social sign-up leaves it: the account has no credential password.
    await api.ctx.database.db.update(accounts).set({ password: null }).where(eq(accounts.userId, user.id));
    const summary = (await (await call(user.cookie, "GET", "/api/account")).json()) as AccountSummary;
    expect(summary.hasPassword).toBe(false);
    expect((await signIn(user.email, user.password)).status).toBe(401); // no password to sign in with yet
    const res = await call(user.cookie, "POST", "/api/account/password", { newPassword: "my first password" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { message: string }).message).toBe(SETTINGS_MESSAGES.passwordSet);
    expect(((await (await call(user.cookie, "GET", "/api/account")).json()) as AccountSummary).hasPassword).toBe(true);
    expect((await signIn(user.email, "my first password")).status).toBe(200);
    expect(await signedIn(user.cookie)).toBe(true);
  });

  test("signed out: 401 before the body is judged", async () => {
    for (const body of [{}, { currentPassword: "x", newPassword: "a fine new password" }]) {
      const res = await call(null, "POST", "/api/account/password", body);
      expect(res.status).toBe(401);
    }
  });
});

describe("e-mail", () => {
  let mails: string[] = [];
  let spy: ReturnType<typeof spyOn>;
  beforeAll(() => {
    spy = spyOn(log, "info").mockImplementation((msg: string, fields?: Record<string, unknown>) => {
      if (msg.startsWith("e-mail")) mails.push(JSON.stringify(fields));
    });
  });
  afterAll(() => spy.mockRestore());
  afterEach(() => {
    mails = [];
  });

  const linkIn = (mail: string) => {
    const found = /(http:\/\/[^\s"\\]+\/api\/account\/email\/confirm\?[^\s"\\]+)/.exec(mail);
    if (!found?.[1]) throw new Error(`no link in ${mail}`);
    return found[1];
  };

  test("without SMTP the confirmation link is logged, to the new address; the e-mail changes only when it is opened", async () => {
    const user = await createUser(api);
    const newEmail = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const res = await call(user.cookie, "POST", "/api/account/email", { newEmail, currentPassword: user.password });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { message: string }).message).toBe(SETTINGS_MESSAGES.emailLinkSent);
    expect((await userRow(api, user)).email).toBe(user.email);
    // The old address is told (no link), the new one gets the link.
    expect(mails).toHaveLength(2);
    const mail = JSON.parse(mails[1] as string) as { to: string; text: string };
    expect(mail.to).toBe(newEmail);
    const opened = await fetch(linkIn(mail.text), { redirect: "manual" });
    expect(opened.status).toBe(303);
    expect(opened.headers.get("location")).toBe("/settings?email=changed");
    expect((await userRow(api, user)).email).toBe(newEmail);
    expect((await signIn(newEmail, user.password)).status).toBe(200);
    expect((await signIn(user.email, user.password)).status).toBe(401);
    // The public profile never shows it.
    expect(await (await call(null, "GET", `/api/profile/${user.username ?? "x"}`)).text()).not.toContain(newEmail);
  });

  test.each([
    ["not an e-mail", { newEmail: "not-an-email" }, "newEmail"],
    ["missing", {}, "newEmail"],
    ["the current address", "same", "newEmail"],
  ] as const)("refused: %s → 400, nothing sent or changed", async (_what, body, field) => {
    const user = await createUser(api);
    const before = await snapshot();
    const res = await call(
      user.cookie,
      "POST",
      "/api/account/email",
      body === "same"
        ? { newEmail: user.email.toUpperCase(), currentPassword: user.password }
        : { ...body, currentPassword: user.password },
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).errors?.[field]).toBeDefined();
    expect(mails).toHaveLength(0);
    expect(await snapshot()).toBe(before);
  });

  test("another account's address: the same answer, and nothing is sent (no way to learn who signed up)", async () => {
    const user = await createUser(api);
    const taken = await createUser(api);
    const res = await call(user.cookie, "POST", "/api/account/email", {
      newEmail: taken.email,
      currentPassword: user.password,
    });
    expect(res.status).toBe(200);
    // Only the requester's own address hears of it.
    expect(mails.map((m) => (JSON.parse(m) as { to: string }).to)).toEqual([user.email]);
    expect((await userRow(api, user)).email).toBe(user.email);
  });

  test("better-auth's own change-email is not served (404): the app's is the only way", async () => {
    const user = await createUser(api);
    const before = await snapshot();
    const res = await call(user.cookie, "POST", "/api/auth/change-email", { newEmail: "x@example.com" });
    expect(res.status).toBe(404);
    expect(mails).toHaveLength(0);
    expect(await snapshot()).toBe(before);
  });
});

describe("sessions", () => {
  test("every live session: device from the User-Agent, times, 'This device' marked; no token anywhere", async () => {
    const user = await createUser(api);
    const firefox = await secondSession(user, FIREFOX_WINDOWS);
    await secondSession(user, SAFARI_IPHONE);
    const res = await call(firefox, "GET", "/api/account/sessions");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const text = await res.text();
    const list = JSON.parse(text) as SessionInfo[];
    expect(list).toHaveLength(3);
    expect(list[0]?.current).toBe(true);
    expect(list[0]?.device).toBe("Firefox on Windows");
    expect(list.filter((s) => s.current)).toHaveLength(1);
    expect(list.map((s) => s.device)).toContain("Safari on iOS");
    for (const s of list) {
      expect(Number.isNaN(Date.parse(s.createdAt))).toBe(false);
      expect(Number.isNaN(Date.parse(s.lastActiveAt))).toBe(false);
    }
    const tokens = await api.ctx.database.db.query.sessions.findMany({ where: (s, { eq }) => eq(s.userId, user.id) });
    for (const s of tokens) expect(text).not.toContain(s.token);
  });

  test("better-auth's list-sessions (which hands out every token) is not served", async () => {
    const user = await createUser(api);
    const res = await call(user.cookie, "GET", "/api/auth/list-sessions");
    expect(res.status).toBe(404);
  });

  test("Sign out one session: it stops at once; the others go on", async () => {
    const user = await createUser(api);
    const phone = await secondSession(user, SAFARI_IPHONE);
    const laptop = await secondSession(user, FIREFOX_WINDOWS);
    expect(await signedIn(phone)).toBe(true); // remembered by this instance now
    const list = (await (await call(user.cookie, "GET", "/api/account/sessions")).json()) as SessionInfo[];
    const target = list.find((s) => s.device === "Safari on iOS") as SessionInfo;
    const res = await call(user.cookie, "DELETE", `/api/account/sessions/${target.id}`);
    expect(res.status).toBe(200);
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(true);
    expect(await signedIn(user.cookie)).toBe(true);
    // Already ended: 404.
    expect((await call(user.cookie, "DELETE", `/api/account/sessions/${target.id}`)).status).toBe(404);
  });

  test("another user's session id: 404, and it goes on", async () => {
    const user = await createUser(api);
    const victim = await createUser(api);
    const list = (await (await call(victim.cookie, "GET", "/api/account/sessions")).json()) as SessionInfo[];
    const before = await snapshot();
    for (const id of [list[0]?.id as string, "no-such-session", "%00", "x".repeat(500)]) {
      const res = await call(user.cookie, "DELETE", `/api/account/sessions/${encodeURIComponent(id)}`);
      expect(res.status, id).toBe(404);
    }
    expect(await snapshot()).toBe(before);
    expect(await signedIn(victim.cookie)).toBe(true);
  });

  test("Sign out everywhere else: every other session stops at once, this one goes on", async () => {
    const user = await createUser(api);
    const others = [await secondSession(user), await secondSession(user, FIREFOX_WINDOWS)];
    for (const cookie of others) expect(await signedIn(cookie)).toBe(true);
    const bystander = await createUser(api);
    const res = await call(user.cookie, "POST", "/api/account/sessions/revoke-others");
    expect(res.status).toBe(200);
    for (const cookie of others) expect(await signedIn(cookie)).toBe(false);
    expect(await signedIn(user.cookie)).toBe(true);
    expect(await signedIn(bystander.cookie)).toBe(true);
    const list = (await (await call(user.cookie, "GET", "/api/account/sessions")).json()) as SessionInfo[];
    expect(list).toHaveLength(1);
  });

  test("signed out: every session route is 401", async () => {
    for (const [method, path] of [
      ["GET", "/api/account"],
      ["GET", "/api/account/sessions"],
      ["DELETE", "/api/account/sessions/abc"],
      ["POST", "/api/account/sessions/revoke-others"],
      ["POST", "/api/account/email"],
    ] as const) {
      expect((await call(null, method, path, method === "GET" ? undefined : {})).status, `${method} ${path}`).toBe(401);
    }
  });
});

test("GET /api/account: the e-mail, the username, whether there is a password, the sign-in methods", async () => {
  const user = await createUser(api, { username: `acct_${crypto.randomUUID().slice(0, 6)}` });
  const res = await call(user.cookie, "GET", "/api/account");
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({
    email: user.email,
    username: user.username,
    hasPassword: true,
    signInMethods: ["password"],
  });
  const [row] = await api.ctx.database.db.select().from(users).where(eq(users.id, user.id));
  expect(row?.email).toBe(user.email);
});
