/**
 * Issue 15, DELETE /api/account { password?, confirm }: who may (the password, or a fresh
 * sign-in for an account without one; the username typed), the order (Stripe first, at the
 * Stripe double: a failure there deletes nothing; then one transaction), what is gone
 * afterwards (every row of the user, the session, the avatar, the profile), the username
 * held 30 days, and a late Stripe webhook acknowledged and ignored.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { cardFacts, cardMeta } from "../../api/sharing/card-facts";
import { accounts, usernameHolds, users } from "../../db/schema";
import { SETTINGS_MESSAGES } from "../../src/lib/account";
import { MESSAGES } from "../../src/lib/account-messages";
import { type FakeStripe, startFakeStripe } from "../fakes/stripe-server";
import { cookieHeader } from "../support/auth";
import { startApi, type TestApi } from "../support/server";
import { snapshotTables } from "../support/snapshot";
import { type ApiUser, createUser, setAvatar, uploadAvatar, userRow } from "../support/users";

let fake: FakeStripe;
let api: TestApi;
beforeAll(async () => {
  fake = await startFakeStripe({ autoDeliver: false });
  api = await startApi(fake.env());
  fake.webhookUrl = `${api.url}/api/stripe/webhook`;
});
afterAll(async () => {
  await fake?.close();
  await api?.close();
});
afterEach(() => {
  resetClock();
  fake.failures.clear();
});

interface ErrorBody {
  message: string;
  errors?: Record<string, string[]>;
}

const del = (cookie: string | null, body: Record<string, unknown>) =>
  api.fetch("/api/account", { method: "DELETE", headers: cookie ? { cookie } : {}, body });

const snapshot = () => snapshotTables(api.ctx.database.db);

/** Every row in any table of the app that names the user (by id, customer id or token). */
async function rowsNaming(userId: string): Promise<string[]> {
  const tables = [
    "users",
    "sessions",
    "accounts",
    "verifications",
    "supplements",
    "images",
    "rate_limits",
    "card_versions",
    "reminder_settings",
  ];
  const found: string[] = [];
  for (const table of tables) {
    const result = (await api.ctx.database.db.execute(
      sql.raw(`select count(*)::int as n from ${table} x where row_to_json(x)::text like '%${userId}%'`),
    )) as unknown;
    const rows = Array.isArray(result) ? result : (result as { rows: { n: number }[] }).rows;
    if ((rows[0] as { n: number }).n > 0) found.push(table);
  }
  return found;
}

async function withAvatar(user: ApiUser): Promise<string> {
  const url = await uploadAvatar(api, user, "#c33", 32);
  await setAvatar(api, user, url);
  return url;
}

async function withSupplement(user: ApiUser) {
  const res = await api.fetch("/api/supplements", {
    method: "POST",
    headers: { cookie: user.cookie },
    body: { name: "Zinc", quantityType: "Tablet(s)", frequency: "daily" },
  });
  expect(res.status).toBe(201);
  // Issue 40: its stock, and a refill lead time (a reminder settings row).
  const { id } = (await res.json()) as { id: number };
  const stock = await api.fetch(`/api/supplements/${id}/stock`, {
    method: "PUT",
    headers: { cookie: user.cookie },
    body: { count: 30, unitsPerPack: 60 },
  });
  expect(stock.status).toBe(200);
  const lead = await api.fetch("/api/reminders", {
    method: "PUT",
    headers: { cookie: user.cookie },
    body: { refillLeadDays: 14 },
  });
  expect(lead.status).toBe(200);
}

/** A user who subscribed and paid at the Stripe double (premium by the delivered webhook). */
async function premiumUser(): Promise<{ user: ApiUser; subscriptionId: string; customerId: string }> {
  const user = await createUser(api, { username: `prem_${crypto.randomUUID().slice(0, 6)}` });
  const res = await api.fetch("/api/get-or-create-subscription", { method: "POST", headers: { cookie: user.cookie } });
  expect(res.status).toBe(200);
  const row = await userRow(api, user);
  const subscriptionId = row.stripeSubscriptionId as string;
  fake.pay(subscriptionId);
  for (const event of fake.eventsOf("invoice.paid")) await fake.deliver(event);
  expect((await userRow(api, user)).isPremium).toBe(true);
  return { user, subscriptionId, customerId: row.stripeCustomerId as string };
}

describe("refused: nothing changes", () => {
  test.each([
    ["a wrong password", { password: "not my password" }, 400, "password", SETTINGS_MESSAGES.passwordIncorrect],
    [
      "the password in another case",
      { password: "CORRECT HORSE BATTERY" },
      400,
      "password",
      SETTINGS_MESSAGES.passwordIncorrect,
    ],
    ["no password", { password: undefined }, 400, "password", SETTINGS_MESSAGES.passwordRequired],
    ["an empty password", { password: "" }, 400, "password", SETTINGS_MESSAGES.passwordRequired],
    ["the username in another case", { confirm: "UPPER" }, 400, "confirm", SETTINGS_MESSAGES.confirmMismatch],
    ["another word", { confirm: "DELETE" }, 400, "confirm", SETTINGS_MESSAGES.confirmMismatch],
    ["no confirmation", { confirm: undefined }, 400, "confirm", undefined],
    ["a confirmation that is not text", { confirm: 42 }, 400, "confirm", undefined],
  ] as const)("%s → 400, every table as it was, still signed in", async (_what, patch, status, field, message) => {
    const user = await createUser(api, { username: `keep_${crypto.randomUUID().slice(0, 6)}` });
    await withSupplement(user);
    await withAvatar(user);
    const body: Record<string, unknown> = { password: user.password, confirm: user.username, ...patch };
    if (body.confirm === "UPPER") body.confirm = (user.username as string).toUpperCase();
    const before = await snapshot();
    const res = await del(user.cookie, body);
    expect(res.status).toBe(status);
    const answer = (await res.json()) as ErrorBody;
    expect(answer.errors?.[field]).toBeDefined();
    if (message) expect(answer.message).toBe(message);
    expect(await snapshot()).toBe(before);
    expect((await api.fetch("/api/auth/user", { headers: { cookie: user.cookie } })).status).toBe(200);
  });

  test("signed out: 401, whatever the body", async () => {
    const before = await snapshot();
    for (const body of [{}, { confirm: "DELETE" }]) expect((await del(null, body)).status).toBe(401);
    expect(await snapshot()).toBe(before);
  });

  test("another origin: 403", async () => {
    const user = await createUser(api);
    const res = await api.fetch("/api/account", {
      method: "DELETE",
      headers: { cookie: user.cookie },
      origin: "https://evil.example",
      body: { password: user.password, confirm: "DELETE" },
    });
    expect(res.status).toBe(403);
    expect((await userRow(api, user)).id).toBe(user.id);
  });
});

describe("deleted", () => {
  test("everything of the user goes; the session, the profile, the avatar and the old credentials stop working", async () => {
    const user = await createUser(api, { username: `gone_${crypto.randomUUID().slice(0, 6)}` });
    const bystander = await createUser(api, { username: `stay_${crypto.randomUUID().slice(0, 6)}` });
    await withSupplement(user);
    await withSupplement(bystander);
    const avatar = await withAvatar(user);
    const otherDevice = cookieHeader(
      await api.fetch("/api/auth/sign-in/email", {
        method: "POST",
        body: { email: user.email, password: user.password },
      }),
    );
    // Cached on this instance before the deletion; the social card drawn (its version recorded, issue 16).
    const profile = await api.fetch(`/api/profile/${user.username}`);
    expect(profile.status).toBe(200);
    const card = cardMeta(api.url, cardFacts(await profile.json())).url;
    expect((await api.fetch(card)).status).toBe(200);
    expect((await api.fetch("/api/auth/user", { headers: { cookie: otherDevice } })).status).toBe(200);
    expect((await api.fetch(avatar)).status).toBe(200);

    const res = await del(user.cookie, { password: user.password, confirm: user.username });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { message: string }).message).toBe(SETTINGS_MESSAGES.accountDeleted);
    const cleared = res.headers.getSetCookie();
    expect(cleared.some((c) => /session_token=;/.test(c) && /Max-Age=0/.test(c))).toBe(true);

    expect(await rowsNaming(user.id)).toEqual([]);
    for (const cookie of [user.cookie, otherDevice]) {
      expect((await api.fetch("/api/auth/user", { headers: { cookie } })).status).toBe(401);
    }
    expect((await api.fetch(`/api/profile/${user.username}`)).status).toBe(404);
    expect((await api.fetch(avatar)).status).toBe(404);
    expect((await api.fetch(card)).status).toBe(404);
    const signIn = await api.fetch("/api/auth/sign-in/email", {
      method: "POST",
      body: { email: user.email, password: user.password },
    });
    expect(signIn.status).toBe(401);
    // The bystander's rows are all there.
    const theirs = (await (
      await api.fetch("/api/supplements", { headers: { cookie: bystander.cookie } })
    ).json()) as unknown[];
    expect(theirs).toHaveLength(1);
    expect((await api.fetch(`/api/profile/${bystander.username}`)).status).toBe(200);
  });

  test("a user without a username confirms with DELETE", async () => {
    const user = await createUser(api);
    const wrong = await del(user.cookie, { password: user.password, confirm: "delete" });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as ErrorBody).message).toBe(SETTINGS_MESSAGES.confirmMismatchNoUsername);
    expect((await del(user.cookie, { password: user.password, confirm: "DELETE" })).status).toBe(200);
    expect(await rowsNaming(user.id)).toEqual([]);
  });

  test("an account without a password: a sign-in within the last 10 minutes, no password asked", async () => {
    const user = await createUser(api);
    await api.ctx.database.db.update(accounts).set({ password: null }).where(eq(accounts.userId, user.id));
    // 10 minutes and 1 second after signing in: too late.
    freezeClock(Date.now() + 10 * 60_000 + 1000);
    const stale = await del(user.cookie, { confirm: "DELETE" });
    expect(stale.status).toBe(403);
    expect(((await stale.json()) as ErrorBody).message).toBe(SETTINGS_MESSAGES.signInAgain);
    expect((await userRow(api, user)).id).toBe(user.id);
    freezeClock(Date.now() + 9 * 60_000);
    expect((await del(user.cookie, { confirm: "DELETE" })).status).toBe(200);
    expect(await rowsNaming(user.id)).toEqual([]);
  });
});

describe("the username is held for 30 days", () => {
  test("409 'Username is already taken' in any case until the 30 days are over, then free", async () => {
    const start = Date.now();
    const name = `held_${crypto.randomUUID().slice(0, 6)}`;
    const user = await createUser(api, { username: name });
    freezeClock(start);
    expect((await del(user.cookie, { password: user.password, confirm: name })).status).toBe(200);
    const [hold] = await api.ctx.database.db.select().from(usernameHolds).where(eq(usernameHolds.name, name));
    expect(hold?.heldUntil.getTime()).toBe(start + 30 * 24 * 3600_000);

    const other = await createUser(api);
    for (const [when, variant] of [
      [start + 1000, name],
      [start + 1000, name.toUpperCase()],
      [start + 30 * 24 * 3600_000 - 1000, name],
    ] as const) {
      freezeClock(when);
      const res = await api.fetch("/api/profile", {
        method: "PUT",
        headers: { cookie: other.cookie },
        body: { username: variant },
      });
      expect(res.status, `${variant} at +${(when - start) / 1000}s`).toBe(409);
      expect(((await res.json()) as ErrorBody).message).toBe(MESSAGES.usernameTaken);
    }
    freezeClock(start + 30 * 24 * 3600_000 + 1000);
    const res = await api.fetch("/api/profile", {
      method: "PUT",
      headers: { cookie: other.cookie },
      body: { username: name },
    });
    expect(res.status).toBe(200);
  });
});

describe("premium: Stripe first", () => {
  test("the subscription is cancelled at the Stripe double, then the account goes; the customer stays at Stripe", async () => {
    const { user, subscriptionId, customerId } = await premiumUser();
    const res = await del(user.cookie, { password: user.password, confirm: user.username });
    expect(res.status).toBe(200);
    expect(fake.subscriptions.get(subscriptionId)?.status).toBe("canceled");
    expect(fake.customers.has(customerId)).toBe(true);
    expect(await rowsNaming(user.id)).toEqual([]);
    const linked = await api.ctx.database.db.select().from(users).where(eq(users.stripeCustomerId, customerId));
    expect(linked).toEqual([]);
  });

  test("a late webhook for the deleted customer: 200, and nothing changes", async () => {
    const { user, subscriptionId } = await premiumUser();
    expect((await del(user.cookie, { password: user.password, confirm: user.username })).status).toBe(200);
    const late = fake.eventsOf("customer.subscription.deleted", subscriptionId);
    expect(late.length).toBeGreaterThan(0);
    const before = await snapshotTables(api.ctx.database.db, ["users", "supplements", "sessions", "accounts"]);
    for (const event of [...late, ...fake.eventsOf("invoice.paid")] as Stripe.Event[]) {
      const answer = await fake.deliver(event);
      expect(answer.status).toBe(200);
    }
    expect(await snapshotTables(api.ctx.database.db, ["users", "supplements", "sessions", "accounts"])).toBe(before);
    expect(await rowsNaming(user.id)).toEqual([]);
  });

  test("Stripe failing: 502 with a clear message, nothing deleted, still premium; a retry then deletes", async () => {
    const { user, subscriptionId } = await premiumUser();
    fake.failures.set("DELETE /v1/subscriptions", { status: 500, message: "An unknown error occurred" });
    const before = await snapshot();
    const res = await del(user.cookie, { password: user.password, confirm: user.username });
    expect(res.status).toBe(502);
    expect(((await res.json()) as ErrorBody).message).toBe(SETTINGS_MESSAGES.stripeUnreachable);
    expect(await snapshot()).toBe(before);
    expect(fake.subscriptions.get(subscriptionId)?.status).toBe("active");
    expect((await api.fetch("/api/auth/user", { headers: { cookie: user.cookie } })).status).toBe(200);
    fake.failures.clear();
    expect((await del(user.cookie, { password: user.password, confirm: user.username })).status).toBe(200);
    expect(fake.subscriptions.get(subscriptionId)?.status).toBe("canceled");
  });

  test("interrupted after Stripe (the subscription already cancelled there): the retry finishes the deletion", async () => {
    const { user, subscriptionId } = await premiumUser();
    // As if a first attempt had cancelled at Stripe and then lost its database.
    fake.cancelSubscription(subscriptionId);
    expect((await userRow(api, user)).isPremium).toBe(true);
    expect((await del(user.cookie, { password: user.password, confirm: user.username })).status).toBe(200);
    expect(await rowsNaming(user.id)).toEqual([]);
  });
});
