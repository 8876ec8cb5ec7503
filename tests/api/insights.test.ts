/**
 * GET /api/insights (issue 14) and the counter behind it, on a clock the test moves
 * (api/lib/clock.ts): the answer's shape, zero-filled UTC days, the range's bounds, premium
 * clicks, unique visitors from the day's salt, and the salt and hash clean-up.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { counterOf, InsightsCounter, MAX_FLUSH_VISITS, MAX_SEEN } from "../../api/insights/counter";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { profileDailyCounts, supplementDailyClicks, visitorBatches, visitSalts } from "../../db/schema";
import type { InsightsAnswer } from "../../src/lib/insights";
import { usingPostgres } from "../support/db";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, uniqueName } from "../support/users";
import { storedVisitorHash } from "../support/visitor-hash";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
const OTHER_BROWSER = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148";

let api: TestApi;
beforeAll(async () => {
  api = await startApi({ INSIGHTS_FLUSH_MS: "0" });
});
afterAll(async () => {
  resetClock();
  await api?.close();
});
afterEach(() => resetClock());

const counter = () => counterOf(api.ctx);

async function insights(user: ApiUser, query = ""): Promise<{ status: number; body: InsightsAnswer }> {
  const res = await api.fetch(`/api/insights${query}`, { headers: { cookie: user.cookie } });
  return { status: res.status, body: (await res.json()) as InsightsAnswer };
}

async function addLinked(owner: ApiUser, name: string): Promise<number> {
  const res = await api.fetch("/api/supplements", {
    method: "POST",
    headers: { cookie: owner.cookie },
    body: { name, quantityType: "Capsule(s)", frequency: "daily", affiliateLink: `https://shop.example/${name}` },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

/** The test database behind a switch: while `down`, every statement fails (an outage). */
function switchableDatabase() {
  const real = api.ctx.database.db;
  const state = {
    down: false,
    db: {
      execute: (query: Parameters<typeof real.execute>[0]) =>
        state.down ? Promise.reject(new Error("the database is down")) : real.execute(query),
    } as unknown as typeof real,
  };
  return state;
}

describe("GET /api/insights", () => {
  test("signed out: 401 JSON", async () => {
    const res = await api.fetch("/api/insights");
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: "Unauthorized" });
  });

  test.each(["0", "1", "14", "31", "365", "", "abc", "7.0", "007", "-7", "30x", "90 "])(
    "days=%p is a 400 naming days",
    async (days) => {
      const user = await createUser(api, { username: uniqueName("bad") });
      const res = await api.fetch(`/api/insights?days=${encodeURIComponent(days)}`, {
        headers: { cookie: user.cookie },
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { message: string; errors: Record<string, string[]> };
      expect(body.message).toBe("Days must be 7, 30 or 90");
      expect(body.errors.days).toEqual(["Days must be 7, 30 or 90"]);
    },
  );

  test("days given twice is a 400", async () => {
    const user = await createUser(api, { username: uniqueName("twice") });
    const res = await api.fetch("/api/insights?days=7&days=30", { headers: { cookie: user.cookie } });
    expect(res.status).toBe(400);
  });

  test.each([
    [undefined, 30],
    ["7", 7],
    ["30", 30],
    ["90", 90],
  ] as const)("days=%p: that many UTC days, oldest first, zero days present, to = today", async (days, count) => {
    freezeClock("2026-03-10T23:59:59.999Z");
    const user = await createUser(api, { username: uniqueName("shape") });
    const { status, body } = await insights(user, days ? `?days=${days}` : "");
    expect(status).toBe(200);
    expect(body.to).toBe("2026-03-10");
    expect(body.days).toHaveLength(count);
    expect(body.days[0]?.date).toBe(body.from);
    expect(body.days.at(-1)?.date).toBe("2026-03-10");
    for (let i = 1; i < body.days.length; i++) {
      const step = Date.parse(`${body.days[i]?.date}T00:00:00Z`) - Date.parse(`${body.days[i - 1]?.date}T00:00:00Z`);
      expect(step).toBe(86_400_000);
    }
    expect(body.days.every((d) => d.views === 0 && d.visitors === 0 && d.clicks === 0)).toBe(true);
    expect(body.totals).toEqual({ views: 0, visitors: 0, clicks: 0 });
    expect(body.links).toEqual([]);
    expect(Object.keys(body).sort()).toEqual(["copies", "days", "from", "links", "to", "totals"]);
  });

  test("the range's bounds: its first and last day count, the day before and the day after do not", async () => {
    const owner = await createUser(api, { username: uniqueName("bounds"), premium: true });
    const id = await addLinked(owner, "bounds");
    const db = api.ctx.database.db;
    // 7 days ending 2026-03-10: 03-04 … 03-10.
    const rows = [
      ["2026-03-03", 1000],
      ["2026-03-04", 1],
      ["2026-03-07", 20],
      ["2026-03-10", 300],
      ["2026-03-11", 5000],
    ] as const;
    await db
      .insert(profileDailyCounts)
      .values(rows.map(([day, n]) => ({ userId: owner.id, day, views: n, visitors: Math.ceil(n / 2) })));
    await db.insert(supplementDailyClicks).values(rows.map(([day, n]) => ({ supplementId: id, day, clicks: n })));
    freezeClock("2026-03-10T00:00:00.000Z");
    const { body } = await insights(owner, "?days=7");
    expect(body.from).toBe("2026-03-04");
    expect(body.to).toBe("2026-03-10");
    expect(body.totals).toEqual({ views: 321, visitors: 1 + 10 + 150, clicks: 321 });
    expect(body.days.map((d) => d.views)).toEqual([1, 0, 0, 20, 0, 0, 300]);
    expect(body.days.map((d) => d.clicks)).toEqual([1, 0, 0, 20, 0, 0, 300]);
    expect(body.links).toEqual([{ supplementId: id, name: "bounds", clicks: 321 }]);
    // A day later the range moves with the clock.
    freezeClock("2026-03-11T12:00:00.000Z");
    expect((await insights(owner, "?days=7")).body.totals.views).toBe(20 + 300 + 5000);
  });

  test("clicks are premium: a free member sees views and visitors, no links and no clicks", async () => {
    freezeClock("2026-04-02T10:00:00Z");
    const owner = await createUser(api, { username: uniqueName("free"), premium: true });
    const id = await addLinked(owner, "lapsed");
    await api.ctx.database.db.insert(supplementDailyClicks).values({ supplementId: id, day: "2026-04-02", clicks: 4 });
    counter().view(owner.id, { address: "10.0.0.1", agent: BROWSER });
    await counter().flush();
    expect((await insights(owner)).body.totals).toEqual({ views: 1, visitors: 1, clicks: 4 });
    await api.ctx.database.db.execute(sql`update users set is_premium = false where id = ${owner.id}`);
    api.ctx.caches.invalidate({ userId: owner.id });
    const { body } = await insights(owner);
    expect(body.totals).toEqual({ views: 1, visitors: 1, clicks: 0 });
    expect(body.links).toEqual([]);
  });

  /** The two readers of a member's figures, each as views and clicks in all. */
  const READERS: [string, (owner: ApiUser) => Promise<{ views: number; clicks: number }>][] = [
    ["GET /api/insights", async (owner) => (await insights(owner)).body.totals],
    [
      "the export's insights",
      async (owner) => {
        const res = await api.fetch("/api/account/export?format=json", { headers: { cookie: owner.cookie } });
        const { insights: section } = (await res.json()) as {
          insights: { profileDays: { views: number }[]; linkClicks: { clicks: number }[] };
        };
        return {
          views: section.profileDays.reduce((n, d) => n + d.views, 0),
          clicks: section.linkClicks.reduce((n, c) => n + c.clicks, 0),
        };
      },
    ],
  ];

  // Postgres only: it holds a lock from a second connection, which PGlite (one connection) cannot.
  test.skipIf(!usingPostgres()).each(READERS)(
    "%s reads one snapshot: a flush that commits between its reads shows in none of them",
    async (_reader, read) => {
      freezeClock("2026-05-19T08:00:00Z");
      const owner = await createUser(api, { username: uniqueName("snapshot"), premium: true });
      const id = await addLinked(owner, "snap");
      const db = api.ctx.database.db;
      let answer: ReturnType<typeof read> | undefined;
      // A flush as the counter writes it (views and a click in one transaction), held open on a
      // lock the visitors' read waits for, and committed once the reader waits on it.
      await db.transaction(async (tx) => {
        await tx.execute(sql`lock table visitor_batches in access exclusive mode`);
        answer = read(owner);
        for (let waited = 0; waited < 5000; waited += 20) {
          const rows = (await db.execute(
            sql`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`,
          )) as unknown as { n: number }[];
          if (Number(rows[0]?.n) > 0) break;
          await Bun.sleep(20);
        }
        await tx.insert(profileDailyCounts).values({ userId: owner.id, day: "2026-05-19", views: 3 });
        await tx.insert(supplementDailyClicks).values({ supplementId: id, day: "2026-05-19", clicks: 2 });
      });
      expect(await answer).toMatchObject({ views: 0, clicks: 0 });
      expect(await read(owner)).toMatchObject({ views: 3, clicks: 2 });
    },
  );

  test("links: every supplement with a link, in the list's order, zero clicks included", async () => {
    freezeClock("2026-05-20T08:00:00Z");
    const owner = await createUser(api, { username: uniqueName("links"), premium: true });
    const first = await addLinked(owner, "first");
    const plain = await api.fetch("/api/supplements", {
      method: "POST",
      headers: { cookie: owner.cookie },
      body: { name: "no link", quantityType: "Capsule(s)", frequency: "daily" },
    });
    expect(plain.status).toBe(201);
    const second = await addLinked(owner, "second");
    for (let i = 0; i < 3; i++) counter().click(second);
    await counter().flush();
    const { body } = await insights(owner, "?days=7");
    expect(body.links).toEqual([
      { supplementId: first, name: "first", clicks: 0 },
      { supplementId: second, name: "second", clicks: 3 },
    ]);
    expect(body.days.at(-1)).toEqual({ date: "2026-05-20", views: 0, visitors: 0, clicks: 3 });
  });
});

describe("unique visitors (the day's salt)", () => {
  test("one visitor per (address, User-Agent, profile) per UTC day, across flushes; a new day, new visitors", async () => {
    const move = freezeClock("2026-06-01T09:00:00Z");
    const owner = await createUser(api, { username: uniqueName("uniq") });
    const other = await createUser(api, { username: uniqueName("uniq2") });
    const visit = (user: ApiUser, address: string, agent = BROWSER) => counter().view(user.id, { address, agent });
    await counter().flush(); // the day's salt
    visit(owner, "10.0.0.1");
    visit(owner, "10.0.0.1");
    visit(owner, "10.0.0.1", OTHER_BROWSER);
    visit(owner, "10.0.0.2");
    visit(other, "10.0.0.1");
    await counter().flush();
    visit(owner, "10.0.0.1"); // the same visitor in a later batch
    await counter().flush();
    const today = async (user: ApiUser) => (await insights(user, "?days=7")).body.days.at(-1);
    expect(await today(owner)).toMatchObject({ date: "2026-06-01", views: 5, visitors: 3 });
    expect(await today(other)).toMatchObject({ views: 1, visitors: 1 });
    move("2026-06-02T00:00:01Z");
    visit(owner, "10.0.0.1");
    await counter().flush();
    expect(await today(owner)).toMatchObject({ date: "2026-06-02", views: 1, visitors: 1 });
  });

  test("the stored hash is HMAC-SHA-256(the day's salt, User-Agent, profile, address) cut to 16 bytes, and nothing else", async () => {
    freezeClock("2026-06-10T10:00:00Z");
    const owner = await createUser(api, { username: uniqueName("hmac") });
    const db = api.ctx.database.db;
    await counter().flush(); // the day's salt
    counter().view(owner.id, { address: "192.0.2.44", agent: BROWSER });
    await counter().flush();
    const [salt] = await db.select().from(visitSalts).where(eq(visitSalts.day, "2026-06-10"));
    const stored = await db.select().from(visitorBatches).where(eq(visitorBatches.userId, owner.id));
    const want = storedVisitorHash(salt?.salt as Uint8Array, "192.0.2.44", BROWSER, owner.id);
    expect(stored.map((b) => Buffer.from(b.hashes as Uint8Array).toString("hex"))).toEqual([want]);
  });

  test("a big batch: 3,000 views of 1,000 visitors over two profiles and two flushes count each visitor once", async () => {
    freezeClock("2026-06-11T10:00:00Z");
    const one = await createUser(api, { username: uniqueName("big1") });
    const two = await createUser(api, { username: uniqueName("big2") });
    await counter().flush(); // the day's salt
    const visit = (i: number) =>
      counter().view(i % 2 ? one.id : two.id, { address: `10.${Math.floor(i / 250)}.0.${i % 250}`, agent: BROWSER });
    for (let i = 0; i < 1000; i++) visit(i);
    for (let i = 999; i >= 0; i--) visit(i); // the same visitors again, in the same batch
    await counter().flush();
    for (let i = 0; i < 1000; i++) visit(i); // and in a later one
    await counter().flush();
    const today = async (user: ApiUser) => (await insights(user, "?days=7")).body.days.at(-1);
    expect(await today(one)).toMatchObject({ date: "2026-06-11", views: 1500, visitors: 500 });
    expect(await today(two)).toMatchObject({ date: "2026-06-11", views: 1500, visitors: 500 });
  });

  test("a flush starts early once MAX_FLUSH_VISITS views wait, each new visitor's hash once; known visitors add none", async () => {
    freezeClock("2026-06-12T10:00:00Z");
    const owner = await createUser(api, { username: uniqueName("early") });
    const db = api.ctx.database.db;
    // A timer that never fires within the test: only the early flush can write.
    const early = new InsightsCounter(db, { flushMs: 3_600_000 });
    // Asked only when the test says: as with INSIGHTS_FLUSH_MS=0, nothing starts early.
    const asked = new InsightsCounter(db, { flushMs: 0 });
    // Fewer visitors than the instance remembers (MAX_SEEN), each seen more than once in the batch.
    const VISITORS = Math.min(50_000, MAX_SEEN - 1000, MAX_FLUSH_VISITS - 1);
    try {
      await early.flush(); // the day's salt
      await asked.flush();
      const stored = async () =>
        (await db.select().from(visitorBatches).where(eq(visitorBatches.userId, owner.id))).map(
          (b) => (b.hashes as Uint8Array).length / 16,
        );
      const address = (i: number) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`;
      const visit = (c: InsightsCounter, i: number, agent = BROWSER) =>
        c.view(owner.id, { address: address(i), agent });
      for (let i = 0; i < MAX_FLUSH_VISITS - 1; i++) visit(early, i % VISITORS);
      await Bun.sleep(50);
      expect(await stored()).toEqual([]);
      expect(early.pending.views).toBe(MAX_FLUSH_VISITS - 1);
      visit(early, (MAX_FLUSH_VISITS - 1) % VISITORS); // the limit: the flush starts once this task ends
      await Bun.sleep(0);
      for (let i = 0; i < 10; i++) visit(early, VISITORS + i); // new visitors, while it runs
      for (let waited = 0; (await stored()).length === 0 && waited < 10_000; waited += 20) await Bun.sleep(20);
      expect(await stored()).toEqual([VISITORS]);
      expect(early.pending.views).toBe(10);
      for (let i = 0; i < 10; i++) visit(early, i); // known visitors: views, no new hash
      await early.flush();
      expect((await stored()).sort((a, b) => a - b)).toEqual([10, VISITORS]);

      for (let i = 0; i < MAX_FLUSH_VISITS + 5; i++) visit(asked, i, OTHER_BROWSER);
      await Bun.sleep(50);
      expect((await stored()).sort((a, b) => a - b)).toEqual([10, VISITORS]);
      expect(asked.pending.views).toBe(MAX_FLUSH_VISITS + 5);
      await Promise.all([early.flush(), asked.flush()]);
      expect((await stored()).sort((a, b) => a - b)).toEqual([10, VISITORS, MAX_FLUSH_VISITS + 5]);
      const { body } = await insights(owner, "?days=7");
      expect(body.days.at(-1)).toMatchObject({
        date: "2026-06-12",
        views: 2 * MAX_FLUSH_VISITS + 25,
        visitors: VISITORS + 10 + MAX_FLUSH_VISITS + 5,
      });
    } finally {
      early.stop();
      asked.stop();
    }
  });

  test("a flush that fails keeps its views and visitors for the next; past the cap on held hashes a new visitor waits for room", async () => {
    freezeClock("2026-06-13T10:00:00Z");
    const owner = await createUser(api, { username: uniqueName("outage") });
    const outage = switchableDatabase();
    const c = new InsightsCounter(outage.db, { flushMs: 0, maxHeldHashes: 4 });
    try {
      await c.flush(); // the day's salt
      const visit = (i: number) => c.view(owner.id, { address: `10.9.0.${i}`, agent: BROWSER });
      outage.down = true;
      for (let i = 0; i < 6; i++) visit(i); // 4 hashes held, the last 2 visitors wait
      await c.flush();
      expect(c.pending.views).toBe(6);
      visit(0); // known: no new hash
      visit(5); // still no room
      await c.flush();
      expect(c.pending.views).toBe(8);
      outage.down = false;
      await c.flush();
      expect(c.pending.views).toBe(0);
      const today = async () => (await insights(owner, "?days=7")).body.days.at(-1);
      expect(await today()).toMatchObject({ date: "2026-06-13", views: 8, visitors: 4 });
      visit(5); // room again: counted once now
      visit(4);
      await c.flush();
      expect(await today()).toMatchObject({ date: "2026-06-13", views: 10, visitors: 6 });
    } finally {
      c.stop();
    }
  });

  test("each view counted where it belongs across flushes, midnight, a failed flush and two counters", async () => {
    const move = freezeClock("2026-06-14T23:59:58Z");
    const one = await createUser(api, { username: uniqueName("note1") });
    const two = await createUser(api, { username: uniqueName("note2") });
    const outage = switchableDatabase();
    const a = new InsightsCounter(outage.db, { flushMs: 0 });
    const b = new InsightsCounter(api.ctx.database.db, { flushMs: 0 });
    const users = [one, two];
    const view = (c: InsightsCounter, i: number, address: string) =>
      c.view((users[i] as ApiUser).id, { address, agent: BROWSER });
    try {
      await a.flush(); // the day's salts
      await b.flush();
      for (let i = 0; i < 5; i++) view(a, 0, `10.7.0.${i}`); // one: 5 views, 5 visitors
      view(a, 1, "10.7.1.1");
      view(b, 1, "10.7.1.1"); // the same visitor on another instance: one visitor
      view(a, 1, "10.7.1.1");
      await b.flush();
      expect(a.pending.views).toBe(7);
      await a.flush();
      view(a, 1, "10.7.1.2");
      outage.down = true;
      await a.flush(); // fails: kept
      expect(a.pending.views).toBe(1);
      view(a, 0, "10.7.0.0");
      // Midnight: the same pages' views go to the next day's rows.
      move("2026-06-15T00:00:01Z");
      view(a, 0, "10.7.0.0");
      view(a, 1, "10.7.1.1");
      view(a, 1, "10.7.1.1");
      outage.down = false;
      await a.flush(); // the new day's salt, the kept batch, and the earlier day added up
      const day = async (user: ApiUser, date: string) =>
        (await insights(user, "?days=7")).body.days.find((d) => d.date === date);
      expect(await day(one, "2026-06-14")).toMatchObject({ views: 6, visitors: 5 });
      expect(await day(two, "2026-06-14")).toMatchObject({ views: 4, visitors: 2 });
      expect(await day(one, "2026-06-15")).toMatchObject({ views: 1, visitors: 1 });
      expect(await day(two, "2026-06-15")).toMatchObject({ views: 2, visitors: 1 });
    } finally {
      a.stop();
      b.stop();
    }
  });

  test("nothing stored names an address; hashes of earlier days and salts older than 2 days are deleted", async () => {
    const move = freezeClock("2026-07-01T12:00:00Z");
    const owner = await createUser(api, { username: uniqueName("salt") });
    const db = api.ctx.database.db;
    for (const [day, at] of [
      ["2026-07-01", "2026-07-01T12:00:00Z"],
      ["2026-07-02", "2026-07-02T12:00:00Z"],
      ["2026-07-03", "2026-07-03T12:00:00Z"],
      ["2026-07-04", "2026-07-04T12:00:00Z"],
    ] as const) {
      move(at);
      counter().view(owner.id, { address: "203.0.113.77", agent: BROWSER });
      await counter().flush();
      await counter().flush(); // the salt is read in the first flush of a day, the view hashed in it
      const batches = await db.select().from(visitorBatches);
      expect(batches.every((b) => b.day === day)).toBe(true);
      const salts = (await db.select({ day: visitSalts.day }).from(visitSalts)).map((s) => s.day).sort();
      expect(salts.every((s) => s >= `2026-07-0${Number(day.slice(-1)) - 2}`)).toBe(true);
      expect(salts).toContain(day);
    }
    const dump = JSON.stringify(
      await db.execute(
        sql`select (select json_agg(v) from visitor_batches v)::text as h, (select json_agg(p) from profile_daily_counts p)::text as p`,
      ),
    );
    expect(dump).not.toContain("203.0.113.77");
    expect(dump).not.toContain("Chrome");
    const counts = await db.select().from(profileDailyCounts).where(eq(profileDailyCounts.userId, owner.id));
    // Earlier days' visitors are added up into their rows; today's are still in its batch.
    expect(counts.map((c) => [c.day, c.views, c.visitors]).sort()).toEqual([
      ["2026-07-01", 1, 1],
      ["2026-07-02", 1, 1],
      ["2026-07-03", 1, 1],
      ["2026-07-04", 1, 0],
    ]);
    const { body } = await insights(owner, "?days=7");
    expect(body.days.slice(-4).map((d) => [d.date, d.views, d.visitors])).toEqual([
      ["2026-07-01", 1, 1],
      ["2026-07-02", 1, 1],
      ["2026-07-03", 1, 1],
      ["2026-07-04", 1, 1],
    ]);
  });

  test("a day is added up at the next day's first flush: two instances, each visitor once, batches deleted", async () => {
    const move = freezeClock("2026-08-01T10:00:00Z");
    const owner = await createUser(api, { username: uniqueName("close") });
    const db = api.ctx.database.db;
    const a = new InsightsCounter(db, { flushMs: 0 });
    const b = new InsightsCounter(db, { flushMs: 0 });
    try {
      await a.flush(); // the day's salt, made by one instance
      await b.flush(); // and read by the other
      for (const counter of [a, b]) {
        counter.view(owner.id, { address: "10.1.1.1", agent: BROWSER });
        counter.view(owner.id, { address: "10.1.1.2", agent: BROWSER });
      }
      a.view(owner.id, { address: "10.1.1.3", agent: BROWSER });
      await Promise.all([a.flush(), b.flush()]);
      b.view(owner.id, { address: "10.1.1.3", agent: BROWSER }); // known to a, new to b, in a later batch
      await b.flush();
      const day = async (date: string) =>
        (await insights(owner, "?days=7")).body.days.find((d) => d.date === date) ?? null;
      expect(await day("2026-08-01")).toEqual({ date: "2026-08-01", views: 6, visitors: 3, clicks: 0 });
      const stored = () => db.select().from(visitorBatches).where(eq(visitorBatches.userId, owner.id));
      expect((await stored()).length).toBe(3);

      move("2026-08-02T00:00:02Z");
      await Promise.all([a.flush(), b.flush()]); // both add up the day at once
      expect(await stored()).toEqual([]);
      const rows = await db.select().from(profileDailyCounts).where(eq(profileDailyCounts.userId, owner.id));
      expect(rows.map((r) => [r.day, r.views, r.visitors])).toEqual([["2026-08-01", 6, 3]]);
      expect(await day("2026-08-01")).toEqual({ date: "2026-08-01", views: 6, visitors: 3, clicks: 0 });
      // The new day starts with new visitors (and a new salt).
      a.view(owner.id, { address: "10.1.1.1", agent: BROWSER });
      await a.flush();
      await a.flush();
      expect(await day("2026-08-02")).toEqual({ date: "2026-08-02", views: 1, visitors: 1, clicks: 0 });
    } finally {
      a.stop();
      b.stop();
    }
  });
});
