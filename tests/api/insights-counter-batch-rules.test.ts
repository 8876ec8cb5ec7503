/**
 * The insights counter's batches (api/insights/counter.ts), through its public methods only
 * (view, click, track, pending, flush, stop, batchedVisitors, counterOf) on a migrated database of
 * its own and a clock the test moves; results read back from the count tables. Tables of:
 * visitors × salt known or not, exact totals, once per visitor per UTC day, the salt's rotation at
 * UTC midnight, one statement a flush, nothing lost on a failed flush or on stop. StrykerJS runs it
 * per mutant of the counter (docs/mutation-testing.md), with tests/unit/insights-counter-rules.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, sql } from "drizzle-orm";
import {
  batchedVisitors,
  counterOf,
  InsightsCounter,
  MAX_FLUSH_VISITS,
  MAX_KEYS,
  profileDays,
} from "../../api/insights/counter";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { instanceRegistry } from "../../api/lib/context";
import type { AppContext } from "../../api/lib/types";
import { type Database, type Db, openDatabase } from "../../db/client";
import { profileDailyCounts, supplementDailyClicks, supplements, users, visitorBatches } from "../../db/schema";
import type { TestDatabase } from "../support/db";
import { migratedDatabase } from "../support/pglite-template";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148";

let store: TestDatabase;
let database: Database;
let db: Db;
/** The SQL statements sent, for the statement counts. */
let statements: string[] = [];
const counters: InsightsCounter[] = [];

beforeAll(async () => {
  store = await migratedDatabase();
  database = await openDatabase({
    url: store.env.DATABASE_URL,
    dataDir: store.env.DATA_DIR ?? ":memory:",
    poolSize: 2,
    onQuery: (query) => statements.push(query),
  });
  db = database.db;
}, 60_000);
afterAll(async () => {
  resetClock();
  await database?.close();
  await store?.drop();
});
afterEach(() => {
  for (const c of counters.splice(0)) c.stop();
  resetClock();
});

/** A counter of this test (stopped after it). */
function counterOn(on: Db = db, options: { flushMs?: number; maxHeldHashes?: number } = { flushMs: 0 }) {
  const c = new InsightsCounter(on, options);
  counters.push(c);
  return c;
}

let made = 0;
/** A member (a users row); `id` may be given to test odd ids. */
async function member(id = `user-${++made}-${crypto.randomUUID().slice(0, 8)}`): Promise<string> {
  await db.insert(users).values({ id, email: `${crypto.randomUUID()}@example.com` });
  return id;
}

async function supplement(userId: string): Promise<number> {
  const [row] = await db
    .insert(supplements)
    .values({ userId, name: "Creatine", quantityType: "Capsule(s)", frequency: "daily" })
    .returning({ id: supplements.id });
  return row?.id as number;
}

/** A profile's day as the owner sees it: views, and visitors added up plus those still in batches. */
async function dayOf(userId: string, date: string): Promise<{ views: number; visitors: number }> {
  const [row] = await db
    .select()
    .from(profileDailyCounts)
    .where(and(eq(profileDailyCounts.userId, userId), eq(profileDailyCounts.day, date)));
  const batched = (await batchedVisitors(db, userId)).get(date) ?? 0;
  return { views: row?.views ?? 0, visitors: (row?.visitors ?? 0) + batched };
}

async function clicksOf(supplementId: number, date: string): Promise<number> {
  const [row] = await db
    .select()
    .from(supplementDailyClicks)
    .where(and(eq(supplementDailyClicks.supplementId, supplementId), eq(supplementDailyClicks.day, date)));
  return row?.clicks ?? 0;
}

/** Hashes stored for a profile (16 bytes each), over all its batches. */
async function storedHashes(userId: string): Promise<number> {
  const rows = await db.select().from(visitorBatches).where(eq(visitorBatches.userId, userId));
  return rows.reduce((n, b) => n + (b.hashes as Uint8Array).length / 16, 0);
}

/** The test database behind a switch: while `down`, every statement fails (after `failAfterMs`: a slow outage). */
function switchable() {
  const state = {
    down: false,
    failAfterMs: 0,
    /** Statements to fail next (then up again), when not `down`. */
    failNext: 0,
    db: {
      execute: async (query: Parameters<Db["execute"]>[0]) => {
        if (state.failNext > 0) {
          state.failNext -= 1;
          throw new Error("the database is down for a moment");
        }
        if (!state.down) return db.execute(query);
        if (state.failAfterMs > 0) await Bun.sleep(state.failAfterMs);
        throw new Error("the database is down");
      },
    } as unknown as Db,
  };
  return state;
}

type Visit = [profile: 0 | 1, address: string | undefined, agent: string];
/** [what, the views (profile index, address, User-Agent), expected per profile [views, visitors]] */
const BATCHES: [string, Visit[], [number, number][]][] = [
  [
    "one view",
    [[0, "10.0.0.1", BROWSER]],
    [
      [1, 1],
      [0, 0],
    ],
  ],
  [
    "the same visitor three times",
    [
      [0, "10.0.0.1", BROWSER],
      [0, "10.0.0.1", BROWSER],
      [0, "10.0.0.1", BROWSER],
    ],
    [
      [3, 1],
      [0, 0],
    ],
  ],
  [
    "same address, two browsers",
    [
      [0, "10.0.0.1", BROWSER],
      [0, "10.0.0.1", PHONE],
    ],
    [
      [2, 2],
      [0, 0],
    ],
  ],
  [
    "same browser, two addresses",
    [
      [0, "10.0.0.1", BROWSER],
      [0, "10.0.0.2", BROWSER],
    ],
    [
      [2, 2],
      [0, 0],
    ],
  ],
  [
    "one visitor on two profiles",
    [
      [0, "10.0.0.1", BROWSER],
      [1, "10.0.0.1", BROWSER],
    ],
    [
      [1, 1],
      [1, 1],
    ],
  ],
  [
    "no address, twice",
    [
      [1, undefined, PHONE],
      [1, undefined, PHONE],
    ],
    [
      [0, 0],
      [2, 1],
    ],
  ],
  [
    "no address and an empty one: the same visitor",
    [
      [1, undefined, PHONE],
      [1, "", PHONE],
    ],
    [
      [0, 0],
      [2, 1],
    ],
  ],
  [
    "a mix over both profiles",
    [
      [0, "10.0.0.1", BROWSER],
      [0, "10.0.0.2", BROWSER],
      [1, "10.0.0.2", BROWSER],
      [0, "10.0.0.1", BROWSER],
      [0, "10.0.0.3", PHONE],
      [1, "10.0.0.2", BROWSER],
      [1, "10.0.0.9", BROWSER],
    ],
    [
      [4, 3],
      [3, 2],
    ],
  ],
];

describe("a batch's exact totals (views × visitors), with the day's salt read before or not yet", () => {
  test.each(
    (["salt read first", "views before the salt"] as const).flatMap((salt) =>
      BATCHES.map(([what, visits, expected]) => [salt, what, visits, expected] as const),
    ),
  )("%s: %s", async (salt, _what, visits, expected) => {
    freezeClock("2026-06-01T09:00:00Z");
    const profiles = [await member(), await member()];
    const c = counterOn();
    if (salt === "salt read first") await c.flush();
    for (const [p, address, agent] of visits) c.view(profiles[p] as string, { address, agent });
    expect(c.pending).toEqual({ views: visits.length, clicks: 0 });
    await c.flush();
    expect(c.pending).toEqual({ views: 0, clicks: 0 });
    for (const [p, [views, visitors]] of expected.entries()) {
      expect(await dayOf(profiles[p] as string, "2026-06-01")).toEqual({ views, visitors });
    }
    // The same visitors again, in a later batch: views only.
    for (const [p, address, agent] of visits) c.view(profiles[p] as string, { address, agent });
    await c.flush();
    for (const [p, [views, visitors]] of expected.entries()) {
      expect(await dayOf(profiles[p] as string, "2026-06-01")).toEqual({ views: 2 * views, visitors });
      expect(await storedHashes(profiles[p] as string)).toBe(visitors);
    }
  });

  test("a profile id with quotes, backslashes, commas and braces is counted like any other", async () => {
    freezeClock("2026-06-01T09:00:00Z");
    const odd = await member(`odd "one" \\ , {x} ${crypto.randomUUID().slice(0, 6)}`);
    const plain = await member();
    const c = counterOn();
    await c.flush();
    c.view(odd, { address: "10.0.0.1", agent: BROWSER });
    c.view(plain, { address: "10.0.0.1", agent: BROWSER });
    c.view(odd, { address: "10.0.0.2", agent: BROWSER });
    await c.flush();
    expect(c.pending.views).toBe(0);
    expect(await dayOf(odd, "2026-06-01")).toEqual({ views: 2, visitors: 2 });
    expect(await dayOf(plain, "2026-06-01")).toEqual({ views: 1, visitors: 1 });
  });

  test("views of a profile that does not exist are dropped; the others in the same flush are written", async () => {
    freezeClock("2026-06-01T09:00:00Z");
    const real = await member();
    const owner = await member();
    const linked = await supplement(owner);
    const c = counterOn();
    await c.flush();
    c.view("no-such-user", { address: "10.0.0.1", agent: BROWSER });
    c.view(real, { address: "10.0.0.1", agent: BROWSER });
    c.click(987_654_321);
    c.click(linked);
    await c.flush();
    expect(c.pending).toEqual({ views: 0, clicks: 0 });
    expect(await dayOf(real, "2026-06-01")).toEqual({ views: 1, visitors: 1 });
    expect(await dayOf("no-such-user", "2026-06-01")).toEqual({ views: 0, visitors: 0 });
    expect(await clicksOf(linked, "2026-06-01")).toBe(1);
  });
});

describe("clicks: exact totals per supplement and UTC day", () => {
  /** [what, clicks as [supplement index, instant], expected [supplement index, day, clicks]] */
  const ROWS: [string, [number, string][], [number, string, number][]][] = [
    [
      "one click",
      [[0, "2026-06-02T10:00:00Z"]],
      [
        [0, "2026-06-02", 1],
        [1, "2026-06-02", 0],
      ],
    ],
    [
      "three on one, one on another",
      [
        [0, "2026-06-02T10:00:00Z"],
        [1, "2026-06-02T10:00:01Z"],
        [0, "2026-06-02T10:00:02Z"],
        [0, "2026-06-02T10:00:03Z"],
      ],
      [
        [0, "2026-06-02", 3],
        [1, "2026-06-02", 1],
      ],
    ],
    [
      "either side of UTC midnight",
      [
        [0, "2026-06-01T23:59:59.999Z"],
        [0, "2026-06-02T00:00:00.000Z"],
        [0, "2026-06-02T00:00:00.001Z"],
      ],
      [
        [0, "2026-06-01", 1],
        [0, "2026-06-02", 2],
      ],
    ],
  ];

  test.each(ROWS)("%s", async (_what, clicks, expected) => {
    freezeClock("2026-06-02T12:00:00Z");
    const owner = await member();
    const ids = [await supplement(owner), await supplement(owner)];
    const c = counterOn();
    for (const [i, at] of clicks) c.click(ids[i] as number, Date.parse(at));
    expect(c.pending).toEqual({ views: 0, clicks: clicks.length });
    await c.flush();
    expect(c.pending).toEqual({ views: 0, clicks: 0 });
    for (const [i, day, n] of expected) expect(await clicksOf(ids[i] as number, day)).toBe(n);
    // Again: added to the stored counts, not instead of them.
    for (const [i, at] of clicks) c.click(ids[i] as number, Date.parse(at));
    await c.flush();
    for (const [i, day, n] of expected) expect(await clicksOf(ids[i] as number, day)).toBe(2 * n);
  });
});

describe("UTC days: once per visitor per day, the salt rotates at UTC midnight", () => {
  test("a view at 23:59:59.999 and one at 00:00 are two days; the same visitor counts on each; the day is added up once", async () => {
    const move = freezeClock("2026-06-14T23:59:50Z");
    const owner = await member();
    const c = counterOn();
    await c.flush();
    const visit = (at: string, address = "10.7.0.1") => c.view(owner, { address, agent: BROWSER }, Date.parse(at));
    visit("2026-06-14T23:59:59.999Z");
    visit("2026-06-14T23:59:59.999Z", "10.7.0.2");
    await c.flush();
    move("2026-06-15T00:00:00Z");
    visit("2026-06-15T00:00:00.000Z");
    visit("2026-06-15T00:00:00.000Z");
    await c.flush(); // the new day's salt: the waiting visitor is hashed with it; the earlier day added up
    expect(await dayOf(owner, "2026-06-14")).toEqual({ views: 2, visitors: 2 });
    expect(await dayOf(owner, "2026-06-15")).toEqual({ views: 2, visitors: 1 });
    // The earlier day is in profile_daily_counts now, its batches gone.
    expect((await batchedVisitors(db, owner)).has("2026-06-14")).toBe(false);
    const [closed] = await db
      .select()
      .from(profileDailyCounts)
      .where(and(eq(profileDailyCounts.userId, owner), eq(profileDailyCounts.day, "2026-06-14")));
    expect(closed).toMatchObject({ views: 2, visitors: 2 });
    // Later flushes of the same day do not add it up again.
    visit("2026-06-15T00:00:01.000Z", "10.7.0.3");
    await c.flush();
    await c.flush();
    expect(await dayOf(owner, "2026-06-14")).toEqual({ views: 2, visitors: 2 });
    expect(await dayOf(owner, "2026-06-15")).toEqual({ views: 3, visitors: 2 });
  });

  test("each day's visitors are hashed with that day's salt: the same visitor is a different hash the next day", async () => {
    const move = freezeClock("2026-06-20T12:00:00Z");
    const owner = await member();
    const c = counterOn();
    const hashesOn = async (day: string) =>
      (
        await db
          .select()
          .from(visitorBatches)
          .where(and(eq(visitorBatches.userId, owner), eq(visitorBatches.day, day)))
      ).map((b) => Buffer.from(b.hashes as Uint8Array).toString("hex"));
    await c.flush();
    c.view(owner, { address: "10.8.0.1", agent: BROWSER });
    await c.flush();
    const first = await hashesOn("2026-06-20");
    move("2026-06-21T00:00:00.500Z");
    await c.flush(); // the new day's salt (and yesterday added up)
    c.view(owner, { address: "10.8.0.1", agent: BROWSER });
    await c.flush();
    const second = await hashesOn("2026-06-21");
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    expect(second[0]).not.toBe(first[0]);
    expect(await dayOf(owner, "2026-06-21")).toEqual({ views: 1, visitors: 1 });
  });

  test("two instances share the day's salt: a visitor seen by both is one visitor, before and after the day is added up", async () => {
    const move = freezeClock("2026-08-01T10:00:00Z");
    const owner = await member();
    const a = counterOn();
    const b = counterOn();
    await a.flush();
    await b.flush();
    for (const c of [a, b]) {
      c.view(owner, { address: "10.1.1.1", agent: BROWSER });
      c.view(owner, { address: "10.1.1.2", agent: BROWSER });
    }
    a.view(owner, { address: "10.1.1.3", agent: BROWSER });
    await Promise.all([a.flush(), b.flush()]);
    b.view(owner, { address: "10.1.1.3", agent: BROWSER });
    await b.flush();
    expect(await dayOf(owner, "2026-08-01")).toEqual({ views: 6, visitors: 3 });
    move("2026-08-02T00:00:02Z");
    await Promise.all([a.flush(), b.flush()]);
    expect(await storedHashes(owner)).toBe(0);
    expect(await dayOf(owner, "2026-08-01")).toEqual({ views: 6, visitors: 3 });
  });

  test("views of a day whose salt was never read count as views only; today's wait for the salt", async () => {
    const move = freezeClock("2026-09-01T23:59:00Z");
    const owner = await member();
    const outage = switchable();
    const c = counterOn(outage.db);
    outage.down = true;
    c.view(owner, { address: "10.2.0.1", agent: BROWSER }); // no salt yet, and none can be read
    c.view(owner, { address: "10.2.0.2", agent: BROWSER });
    await c.flush(); // fails: kept
    expect(c.pending.views).toBe(2);
    move("2026-09-02T00:00:05Z");
    c.view(owner, { address: "10.2.0.1", agent: BROWSER });
    await c.flush(); // still down
    outage.down = false;
    await c.flush(); // today's salt: today's visitor counts, yesterday's never had a salt
    expect(c.pending.views).toBe(0);
    expect(await dayOf(owner, "2026-09-01")).toEqual({ views: 2, visitors: 0 });
    expect(await dayOf(owner, "2026-09-02")).toEqual({ views: 1, visitors: 1 });
  });

  test("a salt read that fails alone: the views are written, the visitors waiting for it are views only; later flushes work", async () => {
    freezeClock("2026-09-03T10:00:00Z");
    const owner = await member();
    const outage = switchable();
    const c = counterOn(outage.db);
    c.view(owner, { address: "10.2.1.1", agent: BROWSER });
    c.view(owner, { address: "10.2.1.2", agent: BROWSER });
    outage.failNext = 1; // the salt's statement
    await c.flush();
    expect(c.pending.views).toBe(0);
    await c.flush(); // the salt now; the waiting visitors' batch is gone
    expect(await dayOf(owner, "2026-09-03")).toEqual({ views: 2, visitors: 0 });
    c.view(owner, { address: "10.2.1.1", agent: BROWSER });
    c.view(owner, { address: "10.2.1.3", agent: BROWSER });
    await c.flush();
    expect(await dayOf(owner, "2026-09-03")).toEqual({ views: 4, visitors: 2 });
  });

  test("a view before midnight flushed after it counts its visitor on its own day; a late view of yesterday, after today's salt, is a view only", async () => {
    const move = freezeClock("2026-09-04T23:59:00Z");
    const owner = await member();
    const c = counterOn();
    await c.flush(); // the day's salt
    c.view(owner, { address: "10.2.2.1", agent: BROWSER }, Date.parse("2026-09-04T23:59:59.999Z"));
    move("2026-09-05T00:00:01Z");
    await c.flush(); // the new day's salt; yesterday's view was hashed with yesterday's
    expect(await dayOf(owner, "2026-09-04")).toEqual({ views: 1, visitors: 1 });
    // Stamped yesterday (its session check ended after midnight): yesterday's salt is gone here.
    c.view(owner, { address: "10.2.2.2", agent: BROWSER }, Date.parse("2026-09-04T23:59:59.999Z"));
    await c.flush();
    expect(await dayOf(owner, "2026-09-04")).toEqual({ views: 2, visitors: 1 });
  });

  test("batchedVisitors: each day apart, within a range's bounds only", async () => {
    const move = freezeClock("2026-10-01T10:00:00Z");
    const owner = await member();
    const other = await member();
    const c = counterOn();
    // Two batches of the day (a visitor in both): each distinct visitor once.
    await c.flush();
    c.view(owner, { address: "10.3.0.1", agent: BROWSER });
    c.view(owner, { address: "10.3.0.2", agent: BROWSER });
    c.view(other, { address: "10.3.0.1", agent: BROWSER });
    await c.flush();
    c.view(owner, { address: "10.3.0.1", agent: BROWSER });
    c.view(owner, { address: "10.3.0.3", agent: BROWSER });
    await c.flush();
    expect([...(await batchedVisitors(db, owner)).entries()]).toEqual([["2026-10-01", 3]]);
    expect([...(await batchedVisitors(db, owner, { from: "2026-10-01", to: "2026-10-01" })).entries()]).toEqual([
      ["2026-10-01", 3],
    ]);
    expect((await batchedVisitors(db, owner, { from: "2026-09-24", to: "2026-09-30" })).size).toBe(0);
    expect((await batchedVisitors(db, owner, { from: "2026-10-02", to: "2026-10-08" })).size).toBe(0);
    expect([...(await batchedVisitors(db, other)).entries()]).toEqual([["2026-10-01", 1]]);
    move("2026-10-02T00:00:01Z");
    await c.flush();
    expect((await batchedVisitors(db, owner)).size).toBe(0);
  });

  test("profileDays: each day's views, its added-up visitors plus its batches', oldest first, within a range's bounds only", async () => {
    const move = freezeClock("2026-10-03T10:00:00Z");
    const owner = await member();
    const c = counterOn();
    await c.flush();
    c.view(owner, { address: "10.3.1.1", agent: BROWSER });
    c.view(owner, { address: "10.3.1.2", agent: BROWSER });
    c.view(owner, { address: "10.3.1.2", agent: BROWSER });
    await c.flush();
    move("2026-10-04T09:00:00Z");
    c.view(owner, { address: "10.3.1.1", agent: BROWSER });
    await c.flush(); // the 3rd added up: its visitors in its total now; the 4th's in a batch
    c.view(owner, { address: "10.3.1.3", agent: BROWSER });
    await c.flush();
    expect(await batchedVisitors(db, owner)).toEqual(new Map([["2026-10-04", 2]]));
    const third = { date: "2026-10-03", views: 3, visitors: 2 };
    const fourth = { date: "2026-10-04", views: 2, visitors: 2 };
    expect(await profileDays(db, owner)).toEqual([third, fourth]);
    expect(await profileDays(db, owner, { from: "2026-10-04", to: "2026-10-10" })).toEqual([fourth]);
    expect(await profileDays(db, owner, { from: "2026-09-27", to: "2026-10-03" })).toEqual([third]);
    expect(await profileDays(db, owner, { from: "2026-10-05", to: "2026-10-11" })).toEqual([]);
  });
});

describe("added up × batched (issue 45 §5): a day's visitors are the sum of both", () => {
  // A day already added up can get new batches: a late view flushed by another instance after
  // this one added the day up. Each distinct hash of the batches counts once, on top.
  const hash = (n: number) => Buffer.alloc(16, n);
  // [what, visitors added up, batches (each a list of hashes), the day's visitors]
  const cases: [string, number, number[][], number][] = [
    ["batches only", 0, [[1, 2]], 2],
    ["added up only", 3, [], 3],
    ["added up, then one late visitor", 3, [[1]], 4],
    [
      "added up, then more late visitors than before",
      1,
      [
        [1, 2],
        [2, 3],
      ],
      4,
    ],
    ["added up, then fewer", 5, [[1, 2, 3]], 8],
  ];
  test.each(cases)("%s: %d + %j = %d", async (_what, addedUp, batches, visitors) => {
    const owner = await member();
    await db.insert(profileDailyCounts).values({ userId: owner, day: "2026-09-01", views: 10, visitors: addedUp });
    for (const hashes of batches) {
      await db
        .insert(visitorBatches)
        .values({ day: "2026-09-01", userId: owner, hashes: Buffer.concat(hashes.map(hash)) });
    }
    expect(await profileDays(db, owner)).toEqual([{ date: "2026-09-01", views: 10, visitors }]);
    expect(await profileDays(db, owner, { from: "2026-09-01", to: "2026-09-01" })).toEqual([
      { date: "2026-09-01", views: 10, visitors },
    ]);
  });
});

describe("one statement a flush", () => {
  test("views and clicks of many profiles go in one statement; an empty flush sends none; the salt and the adding up once a day", async () => {
    const move = freezeClock("2026-11-01T10:00:00Z");
    const profiles = [await member(), await member(), await member()];
    const linked = await supplement(profiles[0] as string);
    const c = counterOn();
    statements = [];
    await c.flush(); // the day's salt, the (empty) write, the earlier days added up
    expect(statements).toHaveLength(3);
    statements = [];
    await c.flush();
    expect(statements).toEqual([]);
    for (const [i, p] of profiles.entries()) {
      for (let n = 0; n <= i; n++) c.view(p, { address: `10.4.${i}.${n}`, agent: BROWSER });
    }
    c.click(linked);
    c.click(linked);
    await c.flush();
    expect(statements).toHaveLength(1);
    for (const [i, p] of profiles.entries()) {
      expect(await dayOf(p, "2026-11-01")).toEqual({ views: i + 1, visitors: i + 1 });
    }
    expect(await clicksOf(linked, "2026-11-01")).toBe(2);
    statements = [];
    c.view(profiles[0] as string, { address: "10.4.0.0", agent: BROWSER });
    await c.flush();
    expect(statements).toHaveLength(1);
    // A new day: its salt, the write, the earlier day added up; then one again.
    move("2026-11-02T00:00:01Z");
    statements = [];
    await c.flush();
    expect(statements).toHaveLength(3);
    statements = [];
    c.view(profiles[0] as string, { address: "10.4.0.0", agent: BROWSER });
    await c.flush();
    expect(statements).toHaveLength(1);
    expect(await dayOf(profiles[0] as string, "2026-11-02")).toEqual({ views: 1, visitors: 1 });
  });
});

describe("nothing lost: a failed flush, the cap on held hashes, checks under way, stop", () => {
  test("a flush that fails keeps every view, visitor and click, added to the later ones", async () => {
    freezeClock("2026-06-13T10:00:00Z");
    const owner = await member();
    const linked = await supplement(owner);
    const second = await supplement(owner);
    const outage = switchable();
    const c = counterOn(outage.db);
    await c.flush();
    outage.down = true;
    c.view(owner, { address: "10.9.0.1", agent: BROWSER });
    c.view(owner, { address: "10.9.0.2", agent: BROWSER });
    c.click(linked);
    await c.flush();
    expect(c.pending).toEqual({ views: 2, clicks: 1 });
    c.view(owner, { address: "10.9.0.1", agent: BROWSER }); // known: no new visitor
    c.view(owner, { address: "10.9.0.3", agent: BROWSER });
    c.click(linked);
    c.click(linked);
    await c.flush();
    expect(c.pending).toEqual({ views: 4, clicks: 3 });
    outage.down = false;
    await c.flush();
    expect(c.pending).toEqual({ views: 0, clicks: 0 });
    expect(await dayOf(owner, "2026-06-13")).toEqual({ views: 4, visitors: 3 });
    expect(await clicksOf(linked, "2026-06-13")).toBe(3);
    // Kept batches merged with a new batch of the same day: nothing counted twice.
    outage.down = true;
    c.view(owner, { address: "10.9.0.4", agent: BROWSER });
    c.click(linked);
    c.click(second);
    await c.flush();
    c.view(owner, { address: "10.9.0.5", agent: BROWSER });
    c.click(linked);
    await c.flush();
    outage.down = false;
    await c.flush();
    expect(await dayOf(owner, "2026-06-13")).toEqual({ views: 6, visitors: 5 });
    expect(await clicksOf(linked, "2026-06-13")).toBe(5);
    expect(await clicksOf(second, "2026-06-13")).toBe(1);
    expect(await storedHashes(owner)).toBe(5);
  });

  test("views and clicks counted while a failing flush runs are merged with what it keeps", async () => {
    freezeClock("2026-06-13T12:00:00Z");
    const owner = await member();
    const linked = await supplement(owner);
    const outage = switchable();
    const c = counterOn(outage.db);
    await c.flush();
    const visit = (i: number) => c.view(owner, { address: `10.16.0.${i}`, agent: BROWSER });
    outage.down = true;
    outage.failAfterMs = 60;
    visit(1);
    visit(2);
    c.click(linked);
    const failing = c.flush();
    await Bun.sleep(20); // the flush has taken the batch and waits on the database
    visit(1); // the same visitor: views only
    visit(3);
    c.click(linked);
    await failing;
    expect(c.pending).toEqual({ views: 4, clicks: 2 });
    outage.down = false;
    await c.flush();
    expect(c.pending).toEqual({ views: 0, clicks: 0 });
    expect(await dayOf(owner, "2026-06-13")).toEqual({ views: 4, visitors: 3 });
    expect(await clicksOf(linked, "2026-06-13")).toBe(2);
  });

  test("past the cap on held hashes a new visitor is a view only until there is room; a known one still counts", async () => {
    freezeClock("2026-06-13T11:00:00Z");
    const owner = await member();
    const outage = switchable();
    const c = counterOn(outage.db, { flushMs: 0, maxHeldHashes: 3 });
    await c.flush();
    const visit = (i: number) => c.view(owner, { address: `10.10.0.${i}`, agent: BROWSER });
    outage.down = true;
    for (let i = 0; i < 5; i++) visit(i); // 3 held, 2 without room
    await c.flush();
    visit(0); // known: fine
    visit(4); // still no room
    await c.flush();
    expect(c.pending.views).toBe(7);
    outage.down = false;
    await c.flush();
    expect(await dayOf(owner, "2026-06-13")).toEqual({ views: 7, visitors: 3 });
    visit(4); // room again: counted now, once
    visit(4);
    visit(3);
    await c.flush();
    expect(await dayOf(owner, "2026-06-13")).toEqual({ views: 10, visitors: 5 });
  });

  test("hashes kept by a failed flush take their own room under the cap, no more", async () => {
    freezeClock("2026-06-13T12:00:00Z");
    const owner = await member();
    const outage = switchable();
    const failing = counterOn(outage.db, { flushMs: 0, maxHeldHashes: 4 });
    await failing.flush(); // the day's salt
    const visit = (on: InsightsCounter, i: number) => on.view(owner, { address: `10.10.1.${i}`, agent: BROWSER });
    visit(failing, 0);
    visit(failing, 1);
    outage.failNext = 1;
    await failing.flush(); // kept: 2 of the 4 places taken
    visit(failing, 2);
    visit(failing, 3); // room for both
    visit(failing, 4); // none left: a view only
    await failing.flush();
    expect(await dayOf(owner, "2026-06-13")).toEqual({ views: 5, visitors: 4 });
  });

  test("a flush waits for the checks under way, so their counts go with it", async () => {
    freezeClock("2026-06-16T10:00:00Z");
    const owner = await member();
    const linked = await supplement(owner);
    const c = counterOn();
    await c.flush();
    c.track(Bun.sleep(30).then(() => c.view(owner, { address: "10.11.0.1", agent: BROWSER })));
    c.track(Bun.sleep(40).then(() => c.click(linked)));
    await c.flush();
    expect(c.pending).toEqual({ views: 0, clicks: 0 });
    expect(await dayOf(owner, "2026-06-16")).toEqual({ views: 1, visitors: 1 });
    expect(await clicksOf(linked, "2026-06-16")).toBe(1);
  });

  test("the timer flushes by itself; after stop it does not, and a last flush writes everything", async () => {
    freezeClock("2026-06-17T10:00:00Z");
    const owner = await member();
    const c = counterOn(db, { flushMs: 20 });
    c.view(owner, { address: "10.12.0.1", agent: BROWSER });
    for (let waited = 0; c.pending.views > 0 && waited < 5000; waited += 20) await Bun.sleep(20);
    await c.flush();
    expect(await dayOf(owner, "2026-06-17")).toEqual({ views: 1, visitors: 1 });
    c.stop();
    c.view(owner, { address: "10.12.0.2", agent: BROWSER });
    c.view(owner, { address: "10.12.0.2", agent: BROWSER });
    await Bun.sleep(150);
    expect(c.pending.views).toBe(2);
    expect(await dayOf(owner, "2026-06-17")).toEqual({ views: 1, visitors: 1 });
    await c.flush();
    expect(await dayOf(owner, "2026-06-17")).toEqual({ views: 3, visitors: 2 });
  });

  test("without a timer nothing flushes until asked", async () => {
    freezeClock("2026-06-17T11:00:00Z");
    const owner = await member();
    const c = counterOn(db, { flushMs: 0 });
    c.view(owner, { address: "10.13.0.1", agent: BROWSER });
    await Bun.sleep(100);
    expect(c.pending.views).toBe(1);
    expect(await dayOf(owner, "2026-06-17")).toEqual({ views: 0, visitors: 0 });
  });

  test("every MAX_FLUSH_VISITS views start a flush early with a timer; without one they wait", async () => {
    freezeClock("2026-06-18T10:00:00Z");
    const owner = await member();
    const early = counterOn(db, { flushMs: 3_600_000 });
    const asked = counterOn(db, { flushMs: 0 });
    // Not flushed before: the first early flush of a new counter starts too.
    for (let i = 0; i < MAX_FLUSH_VISITS - 1; i++) early.view(owner, { address: `10.14.0.${i % 50}`, agent: BROWSER });
    for (let i = 0; i < MAX_FLUSH_VISITS + 1; i++) asked.view(owner, { address: `10.14.1.${i % 50}`, agent: PHONE });
    await Bun.sleep(30);
    expect(early.pending.views).toBe(MAX_FLUSH_VISITS - 1);
    expect(asked.pending.views).toBe(MAX_FLUSH_VISITS + 1);
    early.view(owner, { address: "10.14.0.0", agent: BROWSER });
    for (let waited = 0; early.pending.views > 0 && waited < 10_000; waited += 20) await Bun.sleep(20);
    expect(early.pending.views).toBe(0);
    // And again, for the next MAX_FLUSH_VISITS views.
    for (let i = 0; i < MAX_FLUSH_VISITS; i++) early.view(owner, { address: `10.14.0.${i % 50}`, agent: BROWSER });
    for (let waited = 0; early.pending.views > 0 && waited < 10_000; waited += 20) await Bun.sleep(20);
    expect(early.pending.views).toBe(0);
    await early.flush();
    expect(await dayOf(owner, "2026-06-18")).toEqual({ views: 2 * MAX_FLUSH_VISITS, visitors: 50 });
    expect(asked.pending.views).toBe(MAX_FLUSH_VISITS + 1);
  });
});

describe("counterOf: the instance's one counter", () => {
  test("the same counter for the same context, flushing every INSIGHTS_FLUSH_MS", async () => {
    freezeClock("2026-06-19T10:00:00Z");
    const owner = await member();
    const ctx = {
      instance: instanceRegistry(),
      database,
      config: { INSIGHTS_FLUSH_MS: 20 },
    } as unknown as Pick<AppContext, "instance" | "database" | "config">;
    const c = counterOf(ctx);
    counters.push(c);
    expect(counterOf(ctx)).toBe(c);
    c.view(owner, { address: "10.15.0.1", agent: BROWSER });
    for (let waited = 0; (await dayOf(owner, "2026-06-19")).views === 0 && waited < 2000; waited += 20) {
      await Bun.sleep(20);
    }
    expect(await dayOf(owner, "2026-06-19")).toEqual({ views: 1, visitors: 1 });
  });
});

describe("the bounds of what a counter holds (a database outage)", () => {
  test("MAX_KEYS profile days held: a view of one more is dropped; views of those held still count", () => {
    const c = counterOn();
    const at = Date.parse("2026-06-23T10:00:00Z");
    for (let i = 0; i < MAX_KEYS; i++) c.view(`ghost-${i}`, { address: "10.17.0.1", agent: BROWSER }, at);
    expect(c.pending.views).toBe(MAX_KEYS);
    c.view("ghost-one-more", { address: "10.17.0.1", agent: BROWSER }, at);
    expect(c.pending.views).toBe(MAX_KEYS);
    c.view("ghost-0", { address: "10.17.0.2", agent: BROWSER }, at);
    expect(c.pending.views).toBe(MAX_KEYS + 1);
  });

  test("MAX_KEYS supplement days held: a click on one more is dropped; clicks on those held still count", () => {
    const c = counterOn();
    const at = Date.parse("2026-06-23T10:00:00Z");
    for (let i = 1; i <= MAX_KEYS; i++) c.click(i, at);
    expect(c.pending.clicks).toBe(MAX_KEYS);
    c.click(MAX_KEYS + 1, at);
    expect(c.pending.clicks).toBe(MAX_KEYS);
    c.click(1, at);
    expect(c.pending.clicks).toBe(MAX_KEYS + 1);
  });

  test("before the day's salt, MAX_FLUSH_VISITS new visitors wait; one more is a view only until seen again", async () => {
    freezeClock("2026-06-25T10:00:00Z");
    const owner = await member();
    const c = counterOn();
    const visit = (i: number) => c.view(owner, { address: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, agent: PHONE });
    for (let i = 0; i <= MAX_FLUSH_VISITS; i++) visit(i);
    await c.flush();
    expect(await dayOf(owner, "2026-06-25")).toEqual({ views: MAX_FLUSH_VISITS + 1, visitors: MAX_FLUSH_VISITS });
    visit(MAX_FLUSH_VISITS);
    await c.flush();
    expect(await dayOf(owner, "2026-06-25")).toEqual({ views: MAX_FLUSH_VISITS + 2, visitors: MAX_FLUSH_VISITS + 1 });
  });
});

test("the count tables hold no address and no User-Agent", async () => {
  freezeClock("2026-06-22T10:00:00Z");
  const owner = await member();
  const c = counterOn();
  c.view(owner, { address: "198.51.100.77", agent: BROWSER });
  await c.flush();
  const dump = JSON.stringify(
    await db.execute(
      sql`select (select json_agg(v) from visitor_batches v)::text as h, (select json_agg(p) from profile_daily_counts p)::text as p`,
    ),
  );
  expect(dump).not.toContain("198.51.100.77");
  expect(dump).not.toContain("Chrome");
});
