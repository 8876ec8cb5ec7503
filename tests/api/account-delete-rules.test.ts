/**
 * DELETE /api/account (api/account/delete.ts, api/account/holds.ts), its rules one by one over
 * HTTP on one API: who may, Stripe first for every subscription status that can still bill
 * (statuses × outcomes), Stripe's failures, what goes and what stays, and the username held
 * 30 days in every case. Small and fast on purpose: StrykerJS runs it once per mutant of the
 * deletion (docs/mutation-testing.md), so it starts from a migrated PGlite copy. The whole flow, with the
 * subscribe flow and late webhooks, is in tests/api/account-delete.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { accounts, rateLimits, sessions, supplements, usernameHolds, users, verifications } from "../../db/schema";
import { DELETE_CONFIRM_WORD, SETTINGS_MESSAGES } from "../../src/lib/account";
import { MESSAGES } from "../../src/lib/account-messages";
import { type FakeStripe, startFakeStripe } from "../fakes/stripe-server";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, insertSupplements, uniqueName, userRow } from "../support/users";

let fake: FakeStripe;
let api: TestApi;
beforeAll(async () => {
  fake = await startFakeStripe({ autoDeliver: false });
  api = await startApi(fake.env(), { database: await migratedDatabase() });
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

const del = (to: TestApi, user: ApiUser, body: Record<string, unknown>) =>
  to.fetch("/api/account", { method: "DELETE", headers: { cookie: user.cookie }, body });
const deleteOwn = (user: ApiUser) => del(api, user, { password: user.password, confirm: user.username });
const exists = async (user: ApiUser) =>
  (await api.ctx.database.db.select({ id: users.id }).from(users).where(eq(users.id, user.id))).length === 1;
/** The subscriptions the app asked Stripe to cancel since `mark` (an index into the fake's requests). */
const cancelled = (mark: number) =>
  fake.requests
    .slice(mark)
    .filter((r) => r.method === "DELETE" && r.path.startsWith("/v1/subscriptions/"))
    .map((r) => r.path.slice("/v1/subscriptions/".length));

const customer = () => fake.createCustomer({ email: `${uniqueName("c")}@example.com` }).id;

/** A subscription of `customerId` at the fake Stripe, in `status`. */
function subscription(customerId: string, status: Stripe.Subscription.Status): string {
  const made = fake.createSubscription({
    customer: customerId,
    items: [{ price: fake.priceId }],
    payment_behavior: "default_incomplete",
  });
  if (status === "active") fake.pay(made.id);
  else if (status === "canceled") fake.cancelSubscription(made.id);
  else if (status !== "incomplete") fake.updateSubscription(made.id, { status });
  return made.id;
}

/** A signed-up member whose row links `customerId` and `subscriptionId`, as the webhook leaves it. */
async function member(link: { customerId?: string; subscriptionId?: string; status?: string; premium?: boolean }) {
  const user = await createUser(api, { username: uniqueName("del") });
  await api.ctx.database.db
    .update(users)
    .set({
      stripeCustomerId: link.customerId ?? null,
      stripeSubscriptionId: link.subscriptionId ?? null,
      subscriptionStatus: link.status ?? null,
      isPremium: link.premium ?? false,
    })
    .where(eq(users.id, user.id));
  return user;
}

describe("who may: refused with 400/403 and nothing changes", () => {
  let user: ApiUser;
  beforeAll(async () => {
    user = await createUser(api, { username: uniqueName("Who") });
  });
  test.each<[string, () => Record<string, unknown>, number, string, string | null]>([
    [
      "the username in another case",
      () => ({ password: user.password, confirm: user.username?.toLowerCase() }),
      400,
      SETTINGS_MESSAGES.confirmMismatch,
      "confirm",
    ],
    [
      "DELETE instead of the username",
      () => ({ password: user.password, confirm: DELETE_CONFIRM_WORD }),
      400,
      SETTINGS_MESSAGES.confirmMismatch,
      "confirm",
    ],
    ["no password", () => ({ confirm: user.username }), 400, SETTINGS_MESSAGES.passwordRequired, "password"],
    [
      "an empty password",
      () => ({ password: "", confirm: user.username }),
      400,
      SETTINGS_MESSAGES.passwordRequired,
      "password",
    ],
    [
      "a wrong password",
      () => ({ password: `${user.password}!`, confirm: user.username }),
      400,
      SETTINGS_MESSAGES.passwordIncorrect,
      "password",
    ],
  ])("%s", async (_label, body, status, message, field) => {
    const res = await del(api, user, body());
    expect(res.status).toBe(status);
    const answer = (await res.json()) as ErrorBody;
    expect(answer.message).toBe(message);
    if (field) expect(answer.errors?.[field]).toEqual([message]);
    expect(await exists(user)).toBe(true);
  });

  test("the username typed with spaces around it is accepted", async () => {
    const other = await createUser(api, { username: uniqueName("Trim") });
    const res = await del(api, other, { password: other.password, confirm: `  ${other.username}  ` });
    expect(res.status).toBe(200);
    expect(await exists(other)).toBe(false);
  });

  test("without a username: DELETE, and only DELETE, confirms", async () => {
    const plain = await createUser(api);
    const wrong = await del(api, plain, { password: plain.password, confirm: "delete" });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as ErrorBody).message).toBe(SETTINGS_MESSAGES.confirmMismatchNoUsername);
    expect((await del(api, plain, { password: plain.password, confirm: DELETE_CONFIRM_WORD })).status).toBe(200);
    expect(await exists(plain)).toBe(false);
  });

  test("an account without a password: a sign-in within the last 10 minutes, no password asked", async () => {
    const oauth = await createUser(api, { username: uniqueName("oauth") });
    await api.ctx.database.db.delete(accounts).where(eq(accounts.userId, oauth.id));
    const [session] = await api.ctx.database.db.select().from(sessions).where(eq(sessions.userId, oauth.id));
    const signedIn = session?.createdAt.getTime() ?? 0;
    freezeClock(signedIn + 10 * 60_000 + 1000);
    const stale = await del(api, oauth, { confirm: oauth.username });
    expect(stale.status).toBe(403);
    expect(((await stale.json()) as ErrorBody).message).toBe(SETTINGS_MESSAGES.signInAgain);
    expect(await exists(oauth)).toBe(true);
    freezeClock(signedIn + 10 * 60_000); // exactly 10 minutes: still fresh
    expect((await del(api, oauth, { confirm: oauth.username })).status).toBe(200);
    expect(await exists(oauth)).toBe(false);
  });
});

describe("Stripe first: every subscription that can still bill is cancelled (statuses × outcomes)", () => {
  // [status at Stripe and on the row, premium on the row, cancelled at Stripe]
  test.each<[Stripe.Subscription.Status, boolean, boolean]>([
    ["active", true, true],
    ["trialing", true, true],
    ["past_due", false, true],
    ["unpaid", false, true],
    ["incomplete", false, true],
    ["paused", false, true],
    ["canceled", false, false],
    ["incomplete_expired", false, false],
  ])("%s (premium %p): cancelled at Stripe %p, then the account goes", async (status, premium, cancels) => {
    const customerId = customer();
    const subscriptionId = subscription(customerId, status);
    const user = await member({ customerId, subscriptionId, status, premium });
    const mark = fake.requests.length;
    const res = await deleteOwn(user);
    expect(res.status).toBe(200);
    expect(cancelled(mark)).toEqual(cancels ? [subscriptionId] : []);
    expect(fake.subscriptions.get(subscriptionId)?.status).toBe(cancels ? "canceled" : status);
    expect(await exists(user)).toBe(false);
    expect(fake.customers.has(customerId)).toBe(true);
  });

  test("a row that has fallen behind (it says canceled; Stripe still bills): found through the customer, cancelled", async () => {
    const customerId = customer();
    const subscriptionId = subscription(customerId, "past_due");
    const user = await member({ customerId, subscriptionId, status: "canceled" });
    const mark = fake.requests.length;
    expect((await deleteOwn(user)).status).toBe(200);
    expect(cancelled(mark)).toEqual([subscriptionId]);
  });

  test("every subscription of the customer that still runs, linked or not; the ended ones and other customers' are left alone", async () => {
    const stranger = subscription(customer(), "active");
    const customerId = customer();
    const linked = subscription(customerId, "active");
    const other = subscription(customerId, "unpaid");
    const ended = subscription(customerId, "incomplete_expired");
    const gone = subscription(customerId, "canceled");
    const user = await member({ customerId, subscriptionId: linked, status: "active", premium: true });
    const mark = fake.requests.length;
    expect((await deleteOwn(user)).status).toBe(200);
    expect(cancelled(mark).sort()).toEqual([linked, other].sort());
    expect(fake.subscriptions.get(ended)?.status).toBe("incomplete_expired");
    expect(fake.subscriptions.get(gone)?.status).toBe("canceled");
    expect(fake.subscriptions.get(stranger)?.status).toBe("active");
  });

  test("a subscription on the row but no customer: that one is cancelled, and nobody else's", async () => {
    const stranger = subscription(customer(), "active");
    const subscriptionId = subscription(customer(), "past_due");
    const user = await member({ subscriptionId, status: "past_due" });
    const mark = fake.requests.length;
    expect((await deleteOwn(user)).status).toBe(200);
    expect(cancelled(mark)).toEqual([subscriptionId]);
    expect(fake.subscriptions.get(stranger)?.status).toBe("active");
  });

  test("a customer with no subscription id on the row: its running one is still cancelled", async () => {
    const customerId = customer();
    const running = subscription(customerId, "trialing");
    const user = await member({ customerId });
    const mark = fake.requests.length;
    expect((await deleteOwn(user)).status).toBe(200);
    expect(cancelled(mark)).toEqual([running]);
  });

  test("no customer and no subscription: Stripe is not called at all", async () => {
    const user = await member({});
    const mark = fake.requests.length;
    expect((await deleteOwn(user)).status).toBe(200);
    expect(fake.requests.slice(mark)).toEqual([]);
  });
});

describe("Stripe failing or gone", () => {
  test.each<[string, string, number]>([
    ["cancelling fails", "DELETE /v1/subscriptions", 500],
    ["listing the customer's subscriptions fails", "GET /v1/subscriptions", 500],
    ["cancelling is refused (400) while the subscription still runs", "DELETE /v1/subscriptions", 400],
  ])("%s: 502 with a clear message, nothing deleted; a retry then deletes", async (_label, prefix, status) => {
    const customerId = customer();
    const subscriptionId = subscription(customerId, "active");
    const user = await member({ customerId, subscriptionId, status: "active", premium: true });
    await insertSupplements(api, user, 1);
    fake.failures.set(prefix, { status, message: "Stripe is having a bad day" });
    const res = await deleteOwn(user);
    expect(res.status).toBe(502);
    expect(((await res.json()) as ErrorBody).message).toBe(SETTINGS_MESSAGES.stripeUnreachable);
    expect(await exists(user)).toBe(true);
    expect((await userRow(api, user)).isPremium).toBe(true);
    expect(await api.ctx.database.db.select().from(supplements).where(eq(supplements.userId, user.id))).toHaveLength(1);
    expect(fake.subscriptions.get(subscriptionId)?.status).toBe("active");
    fake.failures.clear();
    expect((await deleteOwn(user)).status).toBe(200);
    expect(fake.subscriptions.get(subscriptionId)?.status).toBe("canceled");
  });

  test("already cancelled at Stripe (a retry after a lost database): counts as done", async () => {
    const customerId = customer();
    const subscriptionId = subscription(customerId, "active");
    const user = await member({ customerId, subscriptionId, status: "active", premium: true });
    fake.cancelSubscription(subscriptionId);
    expect((await deleteOwn(user)).status).toBe(200);
    expect(await exists(user)).toBe(false);
  });

  test("a subscription or customer Stripe no longer knows: counts as done", async () => {
    const user = await member({ customerId: "cus_gone", subscriptionId: "sub_gone", status: "active", premium: true });
    const mark = fake.requests.length;
    expect((await deleteOwn(user)).status).toBe(200);
    expect(cancelled(mark)).toEqual(["sub_gone"]);
    expect(await exists(user)).toBe(false);
  });

  test("payments not configured: a subscription that still runs stops it with 503; without one, the account goes", async () => {
    const bare = await startApi({}, { database: await migratedDatabase() });
    try {
      const live = await createUser(bare, { username: uniqueName("bare") });
      const customerOnly = await createUser(bare, { username: uniqueName("bare") });
      const ended = await createUser(bare, { username: uniqueName("bare") });
      const set = (user: ApiUser, fields: Partial<typeof users.$inferInsert>) =>
        bare.ctx.database.db.update(users).set(fields).where(eq(users.id, user.id));
      await set(live, { stripeCustomerId: "cus_x", stripeSubscriptionId: "sub_x", subscriptionStatus: "past_due" });
      await set(customerOnly, { stripeCustomerId: "cus_y" });
      await set(ended, { stripeCustomerId: "cus_z", stripeSubscriptionId: "sub_z", subscriptionStatus: "canceled" });
      const res = await del(bare, live, { password: live.password, confirm: live.username });
      expect(res.status).toBe(503);
      expect(((await res.json()) as ErrorBody).message).toBe(SETTINGS_MESSAGES.paymentsNotConfigured);
      for (const user of [customerOnly, ended]) {
        expect((await del(bare, user, { password: user.password, confirm: user.username })).status).toBe(200);
      }
      const left = await bare.ctx.database.db.select({ id: users.id }).from(users);
      expect(left.map((u) => u.id).sort()).toEqual([live.id]);
    } finally {
      await bare.close();
    }
  });
});

describe("what goes, and what stays", () => {
  test("the user's rows, verification tokens and counters go; another user's stay; the session and profile stop at once", async () => {
    const user = await createUser(api, { username: uniqueName("Gone") });
    const other = await createUser(api, { username: uniqueName("Stay") });
    await insertSupplements(api, user, 2);
    await insertSupplements(api, other, 1);
    const db = api.ctx.database.db;
    const expiresAt = new Date(Date.now() + 3600_000);
    await db.insert(verifications).values([
      { id: uniqueName("v"), identifier: "reset-password:a", value: user.id, expiresAt },
      { id: uniqueName("v"), identifier: "reset-password:b", value: other.id, expiresAt },
    ]);
    const counters = [`delete:${user.id}`, `upload:${user.id}`, `delete:${other.id}`, `${user.id}:ip`];
    await db.insert(rateLimits).values(counters.map((key) => ({ key, windowStart: 0, count: 1 })));
    // Warm the caches: the profile and the session.
    expect((await api.fetch(`/api/profile/${user.username}`)).status).toBe(200);
    expect((await api.fetch("/api/auth/user", { headers: { cookie: user.cookie } })).status).toBe(200);

    expect((await deleteOwn(user)).status).toBe(200);
    const named = (await db.execute(
      sql`select count(*)::int as n from users where id = ${user.id}
        union all select count(*)::int from sessions where user_id = ${user.id}
        union all select count(*)::int from accounts where user_id = ${user.id}
        union all select count(*)::int from supplements where user_id = ${user.id}
        union all select count(*)::int from verifications where value = ${user.id}`,
    )) as unknown;
    const rows = (Array.isArray(named) ? named : (named as { rows: { n: number }[] }).rows) as { n: number }[];
    expect(rows.map((r) => r.n)).toEqual([0, 0, 0, 0, 0]);
    const keys = (await db.select({ key: rateLimits.key }).from(rateLimits)).map((r) => r.key);
    expect(keys).not.toContain(`delete:${user.id}`);
    expect(keys).not.toContain(`upload:${user.id}`);
    expect(keys).toContain(`delete:${other.id}`);
    expect(keys).toContain(`${user.id}:ip`);
    expect(await db.select().from(verifications).where(eq(verifications.value, other.id))).toHaveLength(1);
    expect(await db.select().from(supplements).where(eq(supplements.userId, other.id))).toHaveLength(1);
    expect(await exists(other)).toBe(true);
    expect((await api.fetch(`/api/profile/${user.username}`)).status).toBe(404);
    expect((await api.fetch("/api/auth/user", { headers: { cookie: user.cookie } })).status).toBe(401);
    expect((await api.fetch("/api/auth/user", { headers: { cookie: other.cookie } })).status).toBe(200);
  });
});

describe("the username is held 30 days, in every case (a table of case variants)", () => {
  const DAY = 24 * 3600_000;
  const TYPED = "Maya_Runs";
  const VARIANTS = [TYPED, "maya_runs", "MAYA_RUNS", "mAYA_rUNS", "Maya_runs"];
  let start: number;
  let taker: ApiUser;
  const take = (username: string) =>
    api.fetch("/api/profile", { method: "PUT", headers: { cookie: taker.cookie }, body: { username } });

  beforeAll(async () => {
    const owner = await createUser(api, { username: TYPED });
    taker = await createUser(api);
    start = Date.now();
    freezeClock(start);
    expect((await deleteOwn(owner)).status).toBe(200);
    resetClock();
  });

  test("held once, in lower case, until 30 days from the deletion", async () => {
    const holds = await api.ctx.database.db.select().from(usernameHolds);
    const held = holds.filter((h) => h.name.toLowerCase() === TYPED.toLowerCase());
    expect(held.map((h) => [h.name, h.heldUntil.getTime()])).toEqual([[TYPED.toLowerCase(), start + 30 * DAY]]);
  });

  test.each(VARIANTS.flatMap((variant) => [1000, 30 * DAY - 1000].map((after) => [variant, after] as const)))(
    "%s at +%pms: 409 'Username is already taken'",
    async (variant, after) => {
      freezeClock(start + after);
      const res = await take(variant);
      expect(res.status).toBe(409);
      expect(((await res.json()) as ErrorBody).message).toBe(MESSAGES.usernameTaken);
      expect((await userRow(api, taker)).username).toBeNull();
    },
  );

  test.each(VARIANTS)("%s after the 30 days: free again", async (variant) => {
    freezeClock(start + 30 * DAY + 1000);
    const res = await take(variant);
    expect(res.status).toBe(200);
    expect((await userRow(api, taker)).username).toBe(variant);
  });

  test("the name taken back after the hold and deleted again: held anew, 30 days from then", async () => {
    const later = start + 31 * DAY;
    freezeClock(later);
    const taken = (await userRow(api, taker)).username;
    expect(taken?.toLowerCase()).toBe(TYPED.toLowerCase());
    const res = await del(api, taker, { password: taker.password, confirm: taken });
    expect(res.status).toBe(200);
    const holds = await api.ctx.database.db.select().from(usernameHolds);
    const held = holds.filter((h) => h.name.toLowerCase() === TYPED.toLowerCase());
    expect(held.map((h) => [h.name, h.heldUntil.getTime()])).toEqual([[TYPED.toLowerCase(), later + 30 * DAY]]);
  });
});
