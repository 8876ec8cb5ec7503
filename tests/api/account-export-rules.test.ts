/**
 * The account export (api/account/export.ts), its rules one by one: the sections and their
 * order, which columns go where and which are withheld, only the user's own rows in every
 * section (clicks and daily counts seeded for two users), live sessions only, the period end
 * read from Stripe, and the CSV's quoting as a table. Small and fast on purpose: StrykerJS runs
 * it once per mutant of the export (docs/mutation-testing.md), so it starts from a migrated PGlite copy and
 * seeds rows directly. The export end to end (download headers, every column compared with
 * the database) is in tests/api/account-export.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq, getTableColumns } from "drizzle-orm";
import { buildExport, type ExportDocument, signInMethod, WITHHELD_SUPPLEMENT_COLUMNS } from "../../api/account/export";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { HttpError } from "../../api/lib/http";
import {
  accounts,
  cardVersions,
  intakes,
  profileDailyCounts,
  sessions,
  supplementDailyClicks,
  supplements,
  users,
} from "../../db/schema";
import { EXPORT_FORMAT } from "../../src/lib/account";
import { type FakeStripe, startFakeStripe } from "../fakes/stripe-server";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { insertSupplements, uniqueName } from "../support/users";

let fake: FakeStripe;
let api: TestApi;
/** A user as rows (the export needs no session): the user and a password sign-in. */
interface Row {
  id: string;
  email: string;
  username: string | null;
}
let mine: Row;
let theirs: Row;

async function newUser(username: string | null = null): Promise<Row> {
  const id = uniqueName("u");
  const user = { id, email: `${id}@example.com`, username };
  await api.ctx.database.db.insert(users).values({ ...user, name: "Test User" });
  await api.ctx.database.db
    .insert(accounts)
    .values({ id: `${id}-credential`, accountId: id, providerId: "credential", userId: id, password: "x" });
  return user;
}
/** Supplement ids: mine [a, b], theirs [c]. */
let ids: { a: number; b: number; c: number };

beforeAll(async () => {
  fake = await startFakeStripe({ autoDeliver: false });
  api = await startApi(fake.env(), { database: await migratedDatabase() });
  [mine, theirs] = await Promise.all([newUser(uniqueName("Mine")), newUser(uniqueName("Theirs"))]);
  const [a, b] = await insertSupplements(api, mine, 2);
  const [c] = await insertSupplements(api, theirs, 1);
  ids = { a: a?.id ?? 0, b: b?.id ?? 0, c: c?.id ?? 0 };
});
afterAll(async () => {
  await fake?.close();
  await api?.close();
});
afterEach(() => {
  resetClock();
  fake.failures.clear();
});

type Doc = ExportDocument & {
  account: Record<string, unknown>;
  profile: Record<string, unknown>;
  billing: Record<string, unknown>;
  supplements: Record<string, unknown>[];
  sessions: Record<string, unknown>[];
};
const db = () => api.ctx.database.db;
const exportOf = async (user: Row) => (await buildExport(api.ctx, user.id)) as Doc;

describe("the document", () => {
  test("its sections in order, the format and the time it was made", async () => {
    freezeClock("2031-02-03T04:05:06.007Z");
    const doc = await exportOf(mine);
    expect(Object.keys(doc)).toEqual([
      "format",
      "exportedAt",
      "account",
      "profile",
      "billing",
      "supplements",
      "sessions",
      "insights",
      "intakes",
      "socialCards",
      "reminders",
      "stock",
      "calendar",
    ]);
    expect(doc.format).toBe(EXPORT_FORMAT);
    expect(doc.exportedAt).toBe("2031-02-03T04:05:06.007Z");
  });

  test("a user that does not exist: 404 'User not found'", async () => {
    const error = await buildExport(api.ctx, "no-such-user").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(404);
    expect((error as HttpError).message).toBe("User not found");
  });

  test("account, profile and billing: each column of the user's row in exactly one of them; Stripe's ids in none", async () => {
    await db()
      .update(users)
      .set({ stripeCustomerId: "cus_HIDDEN1", stripeSubscriptionId: "sub_HIDDEN1", subscriptionStatus: "past_due" })
      .where(eq(users.id, mine.id));
    fake.failures.set("GET /v1/subscriptions", { status: 404, message: "No such subscription" });
    try {
      const doc = await exportOf(mine);
      expect(Object.keys(doc.account)).toEqual([
        "id",
        "email",
        "emailVerified",
        "createdAt",
        "updatedAt",
        "signInMethods",
      ]);
      expect(Object.keys(doc.billing)).toEqual(["plan", "isPremium", "subscriptionStatus", "currentPeriodEnd"]);
      const columns = Object.keys(getTableColumns(users));
      const account = ["id", "email", "emailVerified", "createdAt", "updatedAt"];
      const billing = ["isPremium", "subscriptionStatus"];
      const withheld = ["stripeCustomerId", "stripeSubscriptionId"];
      expect(Object.keys(doc.profile)).toEqual(
        columns.filter((c) => !account.includes(c) && !billing.includes(c) && !withheld.includes(c)),
      );
      const [row] = await db().select().from(users).where(eq(users.id, mine.id));
      expect(doc.account.id).toBe(mine.id);
      expect(doc.account.email).toBe(mine.email);
      expect(doc.account.createdAt).toBe(row?.createdAt.toISOString());
      expect(doc.profile.username).toBe(mine.username);
      expect(doc.billing).toEqual({
        plan: "free",
        isPremium: false,
        subscriptionStatus: "past_due",
        currentPeriodEnd: null,
      });
      expect(JSON.stringify(doc)).not.toMatch(/HIDDEN1/);
    } finally {
      await db()
        .update(users)
        .set({ stripeCustomerId: null, stripeSubscriptionId: null, subscriptionStatus: null })
        .where(eq(users.id, mine.id));
    }
  });

  test("sign-in methods, oldest first, named as the user knows them", async () => {
    await db()
      .insert(accounts)
      .values({
        id: uniqueName("acc"),
        accountId: "gh-1",
        providerId: "github",
        userId: mine.id,
        createdAt: new Date("2099-01-01T00:00:00Z"),
        updatedAt: new Date("2099-01-01T00:00:00Z"),
      });
    const doc = await exportOf(mine);
    expect(doc.account.signInMethods).toEqual([
      { method: "password", since: expect.any(String) },
      { method: "github", since: "2099-01-01T00:00:00.000Z" },
    ]);
    expect(signInMethod("credential")).toBe("password");
    expect(signInMethod("google")).toBe("google");
  });
});

describe("billing: the period end from Stripe", () => {
  test("no subscription on the row: null, and Stripe is not asked", async () => {
    const mark = fake.requests.length;
    expect((await exportOf(theirs)).billing).toEqual({
      plan: "free",
      isPremium: false,
      subscriptionStatus: null,
      currentPeriodEnd: null,
    });
    expect(fake.requests.slice(mark)).toEqual([]);
  });

  test("premium with a subscription at Stripe: its current period end; Stripe failing: null", async () => {
    const user = await newUser();
    const customer = fake.createCustomer({ email: user.email });
    const sub = fake.createSubscription({
      customer: customer.id,
      items: [{ price: fake.priceId }],
      payment_behavior: "default_incomplete",
    });
    fake.pay(sub.id);
    await db()
      .update(users)
      .set({
        isPremium: true,
        subscriptionStatus: "active",
        stripeCustomerId: customer.id,
        stripeSubscriptionId: sub.id,
      })
      .where(eq(users.id, user.id));
    const end = fake.subscriptions.get(sub.id)?.items.data[0]?.current_period_end ?? 0;
    expect(end).toBeGreaterThan(0);
    const doc = await exportOf(user);
    expect(doc.billing).toEqual({
      plan: "premium",
      isPremium: true,
      subscriptionStatus: "active",
      currentPeriodEnd: new Date(end * 1000).toISOString(),
    });
    fake.failures.set("GET /v1/subscriptions", { status: 400, message: "nope" });
    try {
      expect((await exportOf(user)).billing.currentPeriodEnd).toBeNull();
    } finally {
      fake.failures.clear();
    }
  });
});

describe("only the user's own rows, in every section (seeded for two users)", () => {
  beforeAll(async () => {
    await db()
      .insert(profileDailyCounts)
      .values([
        { userId: mine.id, day: "2026-05-02", views: 7, visitors: 3 },
        { userId: mine.id, day: "2026-05-01", views: 2, visitors: 1 },
        { userId: theirs.id, day: "2026-05-01", views: 50, visitors: 40 },
      ]);
    await db()
      .insert(supplementDailyClicks)
      .values([
        { supplementId: ids.b, day: "2026-05-01", clicks: 4 },
        { supplementId: ids.a, day: "2026-05-02", clicks: 1 },
        { supplementId: ids.a, day: "2026-05-01", clicks: 2 },
        { supplementId: ids.c, day: "2026-05-01", clicks: 99 },
        { supplementId: ids.c, day: "2026-05-03", clicks: 98 },
      ]);
    const at = new Date("2026-05-01T08:00:00Z");
    await db()
      .insert(intakes)
      .values([
        { userId: mine.id, date: "2026-05-01", supplementId: ids.a, time: "anytime", status: "taken", name: "A", at },
        { userId: theirs.id, date: "2026-05-01", supplementId: ids.c, time: "anytime", status: "taken", name: "C", at },
      ]);
  });

  test("insights: my daily counts and my supplements' clicks, by day then supplement; none of theirs", async () => {
    const [a, b] = [ids.a, ids.b].sort((x, y) => x - y) as [number, number];
    const clicksOf = new Map([
      [`2026-05-01:${ids.a}`, 2],
      [`2026-05-01:${ids.b}`, 4],
      [`2026-05-02:${ids.a}`, 1],
    ]);
    const expected = ["2026-05-01", "2026-05-02"].flatMap((date) =>
      [a, b]
        .filter((id) => clicksOf.has(`${date}:${id}`))
        .map((supplementId) => ({ date, supplementId, clicks: clicksOf.get(`${date}:${supplementId}`) })),
    );
    expect((await exportOf(mine)).insights).toEqual({
      profileDays: [
        { date: "2026-05-01", views: 2, visitors: 1 },
        { date: "2026-05-02", views: 7, visitors: 3 },
      ],
      linkClicks: expected,
    });
    expect((await exportOf(theirs)).insights).toEqual({
      profileDays: [{ date: "2026-05-01", views: 50, visitors: 40 }],
      linkClicks: [
        { date: "2026-05-01", supplementId: ids.c, clicks: 99 },
        { date: "2026-05-03", supplementId: ids.c, clicks: 98 },
      ],
    });
  });

  test("social cards: the versions kept of my card, oldest first; none of theirs", async () => {
    const at = new Date("2026-05-01T09:00:00Z");
    await db()
      .insert(cardVersions)
      .values([
        { userId: mine.id, version: "v-mine-1", revision: 1, facts: { bio: "first" }, createdAt: at },
        { userId: theirs.id, version: "v-theirs", revision: 1, facts: { bio: "theirs" }, createdAt: at },
        { userId: mine.id, version: "v-mine-2", revision: 2, facts: { bio: "second" }, createdAt: at },
      ]);
    expect((await exportOf(mine)).socialCards).toEqual([
      { version: "v-mine-1", recordedAt: at.toISOString(), facts: { bio: "first" } },
      { version: "v-mine-2", recordedAt: at.toISOString(), facts: { bio: "second" } },
    ]);
  });

  test("supplements: mine in list order, without the owner's id; intakes: mine", async () => {
    await db().update(supplements).set({ sortOrder: 0 }).where(eq(supplements.id, ids.b));
    await db().update(supplements).set({ sortOrder: 1 }).where(eq(supplements.id, ids.a));
    try {
      const doc = await exportOf(mine);
      const list = doc.supplements;
      expect(list.map((s) => s.id)).toEqual([ids.b, ids.a]);
      const keys = Object.keys(getTableColumns(supplements)).filter((k) => !WITHHELD_SUPPLEMENT_COLUMNS.has(k));
      for (const s of list) expect(Object.keys(s)).toEqual(keys);
      expect(typeof list[0]?.createdAt).toBe("string");
      expect(doc.intakes).toEqual([
        {
          date: "2026-05-01",
          supplementId: ids.a,
          name: "A",
          time: "anytime",
          status: "taken",
          at: "2026-05-01T08:00:00.000Z",
          count: 1,
        },
      ]);
      await db().update(supplements).set({ sortOrder: 0 }).where(eq(supplements.id, ids.a));
      const tie = (await exportOf(mine)).supplements;
      expect(tie.map((s) => s.id)).toEqual([ids.a, ids.b].sort((x, y) => x - y));
    } finally {
      await db().update(supplements).set({ sortOrder: 0 }).where(eq(supplements.id, ids.a));
      await db().update(supplements).set({ sortOrder: 1 }).where(eq(supplements.id, ids.b));
    }
  });

  test("sessions: my live ones only, oldest first, with the device named", async () => {
    const user = await newUser();
    const base = Date.now();
    const rows = [
      {
        ago: 3,
        ahead: 1000,
        agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130.0 Safari/537.36",
      },
      { ago: 2, ahead: -1000, agent: "expired" },
      { ago: 1, ahead: 2000, agent: null },
    ];
    for (const [i, r] of rows.entries()) {
      await db()
        .insert(sessions)
        .values({
          id: `${user.id}-s${i}`,
          token: `${user.id}-t${i}`,
          userId: user.id,
          expiresAt: new Date(base + r.ahead * 3600_000),
          userAgent: r.agent,
          ipAddress: `203.0.113.${i}`,
          createdAt: new Date(base - r.ago * 3600_000),
          updatedAt: new Date(base - r.ago * 1800_000),
        });
    }
    freezeClock(base);
    const list = (await exportOf(user)).sessions;
    const mineOnly = list.filter((s) => String(s.ipAddress).startsWith("203.0.113."));
    expect(list).toHaveLength(2);
    expect(mineOnly).toEqual([
      {
        createdAt: new Date(base - 3 * 3600_000).toISOString(),
        lastActiveAt: new Date(base - 3 * 1800_000).toISOString(),
        expiresAt: new Date(base + 1000 * 3600_000).toISOString(),
        device: "Chrome on Windows",
        userAgent: rows[0]?.agent,
        ipAddress: "203.0.113.0",
      },
      {
        createdAt: new Date(base - 1 * 3600_000).toISOString(),
        lastActiveAt: new Date(base - 1 * 1800_000).toISOString(),
        expiresAt: new Date(base + 2000 * 3600_000).toISOString(),
        device: "Unknown device",
        userAgent: null,
        ipAddress: "203.0.113.2",
      },
    ]);
    expect(list.indexOf(mineOnly[0] as Record<string, unknown>)).toBe(0);
    // A session that ends exactly now is over.
    freezeClock(base + 1000 * 3600_000);
    const later = (await exportOf(user)).sessions;
    expect(later.map((s) => s.ipAddress)).not.toContain("203.0.113.0");
    expect(later.map((s) => s.ipAddress)).toContain("203.0.113.2");
  });
});
