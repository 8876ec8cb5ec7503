/**
 * Issue 36 §2: an e-mail change cannot hand the account to someone holding only a session.
 * Tables: who may ask (password × variants, no-password account × sign-in age), what ends a
 * link (use, newer request, password change or reset, sign-out of other devices, expiry,
 * tokens that were never issued), the address taken meanwhile, and what the old address hears.
 */
import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { eq } from "drizzle-orm";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { log } from "../../api/lib/log";
import { accounts, users, verifications } from "../../db/schema";
import { SETTINGS_MESSAGES } from "../../src/lib/account";
import { cookieHeader } from "../support/auth";
import { startApi, type TestApi } from "../support/server";
import { snapshotTables } from "../support/snapshot";
import { type ApiUser, createUser, userRow } from "../support/users";

let api: TestApi;
let mails: { to: string; subject: string; text: string }[] = [];
let spy: ReturnType<typeof spyOn>;

beforeAll(async () => {
  api = await startApi();
  spy = spyOn(log, "info").mockImplementation((msg: string, fields?: Record<string, unknown>) => {
    if (msg.startsWith("e-mail (SMTP")) mails.push(fields as (typeof mails)[number]);
  });
});
afterAll(async () => {
  spy.mockRestore();
  await api?.close();
});
afterEach(() => {
  mails = [];
  resetClock();
});

interface ErrorBody {
  message: string;
  errors?: Record<string, string[]>;
}

const call = (cookie: string | null, method: string, path: string, body?: Record<string, unknown>) =>
  api.fetch(path, { method, headers: cookie ? { cookie } : {}, body });

const fresh = (what = "new") => `${what}-${crypto.randomUUID().slice(0, 8)}@example.com`;

/** Asks for a change to `newEmail`; the link sent to it (fails the test when none was sent). */
async function ask(user: ApiUser, newEmail: string, cookie = user.cookie): Promise<string> {
  mails = [];
  const res = await call(cookie, "POST", "/api/account/email", { newEmail, currentPassword: user.password });
  expect(res.status).toBe(200);
  const mail = mails.find((m) => m.to === newEmail);
  const link = mail && /(http:\/\/\S+\/api\/account\/email\/confirm\?token=\S+)/.exec(mail.text)?.[1];
  if (!link) throw new Error(`no link sent to ${newEmail}: ${JSON.stringify(mails)}`);
  return link;
}

/** Opens a link as a browser would (no session needed); where it lands. */
async function open(link: string): Promise<string> {
  const res = await api.fetch(link.slice(link.indexOf("/api/")), { redirect: "manual" });
  expect(res.status).toBe(303);
  return res.headers.get("location") ?? "";
}

const signIn = (email: string, password: string) =>
  api.fetch("/api/auth/sign-in/email", { method: "POST", body: { email, password } });

describe("who may ask: the current password (same field and message as POST /api/account/password)", () => {
  test.each([
    ["missing", {}],
    ["empty", { currentPassword: "" }],
    ["wrong", { currentPassword: "not my password" }],
    ["the right one in another case", { currentPassword: "CORRECT HORSE BATTERY" }],
    ["the right one with a space", { currentPassword: "correct horse battery " }],
  ] as const)("%s → 400 with the wrong-password message; nothing sent or written", async (_what, proof) => {
    const user = await createUser(api);
    const wrongThere = (await (
      await call(user.cookie, "POST", "/api/account/password", {
        currentPassword: "not my password",
        newPassword: "a fine new password",
      })
    ).json()) as ErrorBody;
    const before = await snapshotTables(api.ctx.database.db);
    mails = [];
    const res = await call(user.cookie, "POST", "/api/account/email", { newEmail: fresh(), ...proof });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.message).toBe(wrongThere.message);
    expect(body.errors?.currentPassword).toEqual(wrongThere.errors?.currentPassword);
    expect(mails).toEqual([]);
    expect(await snapshotTables(api.ctx.database.db)).toBe(before);
  });

  test("a password that is not text → 400, nothing sent", async () => {
    const user = await createUser(api);
    mails = [];
    const res = await call(user.cookie, "POST", "/api/account/email", { newEmail: fresh(), currentPassword: 42 });
    expect(res.status).toBe(400);
    expect(mails).toEqual([]);
  });

  test.each([
    ["signed in 1 minute ago", 60_000, 200],
    ["signed in 9 minutes ago", 9 * 60_000, 200],
    ["signed in 11 minutes ago", 11 * 60_000, 403],
    ["signed in a day ago", 24 * 3_600_000, 403],
  ] as const)("an account without a password, %s → %d", async (_what, age, status) => {
    const user = await createUser(api);
    await api.ctx.database.db.update(accounts).set({ password: null }).where(eq(accounts.userId, user.id));
    freezeClock(Date.now() + age);
    mails = [];
    const res = await call(user.cookie, "POST", "/api/account/email", { newEmail: fresh() });
    expect(res.status).toBe(status);
    if (status === 403) {
      expect(((await res.json()) as ErrorBody).message).toBe(SETTINGS_MESSAGES.signInAgainForEmail);
      expect(mails).toEqual([]);
    } else {
      expect(mails).toHaveLength(2);
    }
  });
});

async function changePassword(user: ApiUser, revokeOtherSessions: boolean): Promise<void> {
  const res = await call(user.cookie, "POST", "/api/account/password", {
    currentPassword: user.password,
    newPassword: "a changed password",
    revokeOtherSessions,
  });
  expect(res.status).toBe(200);
}

/** [what ends the link, what to do after asking (given the user and the link)]. */
const ENDINGS: [string, (user: ApiUser, link: string) => Promise<void>][] = [
  ["opening it once (the second opening)", async (_user, link) => void (await open(link))],
  [
    "a newer request (to another address)",
    async (user) => {
      await ask(user, fresh("newer"));
    },
  ],
  ["a password change, other devices kept", (user) => changePassword(user, false)],
  ["a password change with 'Sign out of other devices'", (user) => changePassword(user, true)],
  [
    "a password reset (the forgot-password link)",
    async (user) => {
      mails = [];
      const asked = await api.fetch("/api/auth/request-password-reset", {
        method: "POST",
        body: { email: user.email, redirectTo: "/auth/reset-password" },
      });
      expect(asked.status).toBe(200);
      const token = /reset-password\/([^?\s]+)/.exec(mails[0]?.text ?? "")?.[1];
      expect(token).toBeDefined();
      const reset = await api.fetch("/api/auth/reset-password", {
        method: "POST",
        body: { token, newPassword: "a reset password" },
      });
      expect(reset.status).toBe(200);
    },
  ],
  [
    "'Sign out everywhere else'",
    async (user) => {
      expect((await call(user.cookie, "POST", "/api/account/sessions/revoke-others")).status).toBe(200);
    },
  ],
  [
    "24 hours passing",
    async () => {
      freezeClock(Date.now() + 24 * 3_600_000 + 1000);
    },
  ],
];

describe("a link works once, and dies with…", () => {
  test.each(ENDINGS)("%s: it lands on /settings with the dead-link message; nothing changes", async (_what, end) => {
    const user = await createUser(api);
    const target = fresh();
    const link = await ask(user, target);
    await end(user, link);
    const emailBefore = (await userRow(api, user)).email;
    expect(await open(link)).toBe("/settings?email=link-invalid");
    const row = await userRow(api, user);
    expect(row.email).toBe(emailBefore);
    // Only the first opening moved it; every other ending left the old address.
    expect(row.email === target).toBe(end === ENDINGS[0]?.[1]);
  });

  test("A→X, then X→A: the first link cannot move it to X again", async () => {
    const user = await createUser(api);
    const original = user.email;
    const x = fresh("x");
    const first = await ask(user, x);
    expect(await open(first)).toBe("/settings?email=changed");
    const back = await ask({ ...user, email: x }, original);
    expect(await open(back)).toBe("/settings?email=changed");
    expect((await userRow(api, user)).email).toBe(original);
    expect(await open(first)).toBe("/settings?email=link-invalid");
    expect((await userRow(api, user)).email).toBe(original);
  });

  test.each([
    ["no token", ""],
    ["an empty token", "?token="],
    ["a made-up token", "?token=abc"],
    ["a very long token", `?token=${"x".repeat(5000)}`],
    ["a token with a NUL", "?token=%00"],
    ["malformed percent-encoding", "?token=%E0%A4%A"],
    ["two tokens", "?token=a&token=b"],
  ])("%s: lands on /settings with the dead-link message, never a 5xx", async (_what, query) => {
    const res = await api.fetch(`/api/account/email/confirm${query}`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/settings?email=link-invalid");
  });

  test("the link's token is not stored: only its hash is", async () => {
    const user = await createUser(api);
    const link = await ask(user, fresh());
    const token = new URL(link).searchParams.get("token") as string;
    const rows = await api.ctx.database.db.select().from(verifications);
    expect(JSON.stringify(rows)).not.toContain(token);
  });
});

describe("the address taken meanwhile by another account", () => {
  test.each([
    ["by a sign-up", "sign-up"],
    ["by another account's e-mail change", "change"],
  ] as const)("%s: the link lands on /settings with a clear error, never a 5xx; nothing changes", async (_w, how) => {
    const user = await createUser(api);
    const target = fresh("wanted");
    const link = await ask(user, target);
    if (how === "sign-up") {
      const res = await api.fetch("/api/auth/sign-up/email", {
        method: "POST",
        body: { email: target, password: "another password", name: "Other" },
      });
      expect(res.status).toBe(200);
    } else {
      const other = await createUser(api);
      expect(await open(await ask(other, target))).toBe("/settings?email=changed");
    }
    expect(await open(link)).toBe("/settings?email=taken");
    expect((await userRow(api, user)).email).toBe(user.email);
    const owners = await api.ctx.database.db.select({ id: users.id }).from(users).where(eq(users.email, target));
    expect(owners).toHaveLength(1);
  });
});

describe("the old address is told, with no link", () => {
  test("when the change is asked for and when it is done", async () => {
    const user = await createUser(api);
    const target = fresh();
    const link = await ask(user, target);
    const asked = mails.find((m) => m.to === user.email);
    expect(asked?.text).toContain(target);
    expect(asked?.text).toContain("If this wasn't you, reset your password");
    expect(asked?.text).not.toMatch(/https?:|www\./);
    mails = [];
    expect(await open(link)).toBe("/settings?email=changed");
    expect(mails.map((m) => m.to)).toEqual([user.email]);
    expect(mails[0]?.text).toContain("If this wasn't you, reset your password");
    expect(mails[0]?.text).not.toMatch(/https?:|www\./);
    // The new address signs in; the old one does not.
    expect((await signIn(target, user.password)).status).toBe(200);
    expect((await signIn(user.email, user.password)).status).toBe(401);
  });

  test("a copied cookie alone moves nothing: without the password no link exists", async () => {
    const user = await createUser(api);
    const stolen = cookieHeader(await signIn(user.email, user.password));
    mails = [];
    const res = await call(stolen, "POST", "/api/account/email", { newEmail: fresh("attacker") });
    expect(res.status).toBe(400);
    expect(mails).toEqual([]);
    expect(await api.ctx.database.db.select().from(verifications)).not.toContainEqual(
      expect.objectContaining({ value: expect.stringContaining(user.id) }),
    );
  });
});

test("deleting the account ends its pending change", async () => {
  const user = await createUser(api);
  const link = await ask(user, fresh());
  const res = await call(user.cookie, "DELETE", "/api/account", { password: user.password, confirm: "DELETE" });
  expect(res.status).toBe(200);
  const left = await api.ctx.database.db.select().from(verifications);
  expect(left.filter((v) => v.value.startsWith(user.id))).toEqual([]);
  expect(await open(link)).toBe("/settings?email=link-invalid");
});
