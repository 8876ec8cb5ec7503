/**
 * api/lib/rate-limit.ts against a real (migrated) database: the exact boundary of each limit,
 * its window, its Retry-After, what a second instance sees, and that "off" counts nothing.
 * The clock is set (bun's setSystemTime), so every window and Retry-After is exact.
 * Written to kill the mutants StrykerJS makes of the module (docs/mutation-testing.md).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setSystemTime, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Config } from "../../api/lib/config";
import { HttpError } from "../../api/lib/http";
import { BatchedLimiter, hit, LIMITS, type Limit } from "../../api/lib/rate-limit";
import { type Database, openDatabase } from "../../db/client";
import type { TestDatabase } from "../support/db";
import { migratedDatabase } from "../support/pglite-template";

let testDb: TestDatabase;
let database: Database;
const statements: string[] = [];

/** 1_700_000_010 s: 30 s into a 60 s window that starts at 1_699_999_980. */
const NOW_S = 1_700_000_010;
const WINDOW_START = 1_699_999_980;

const ctx = (mode: "on" | "off") => ({ config: { RATE_LIMIT: mode } as Config, database });

beforeAll(async () => {
  testDb = await migratedDatabase();
  database = await openDatabase({
    url: testDb.env.DATABASE_URL,
    dataDir: testDb.env.DATA_DIR ?? ":memory:",
    onQuery: (q) => statements.push(q),
  });
});

afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});

beforeEach(async () => {
  setSystemTime(new Date(NOW_S * 1000));
  await database.db.execute(sql`delete from rate_limits`);
  statements.length = 0;
});

afterEach(() => {
  setSystemTime();
});

async function rows(): Promise<{ key: string; window_start: number; count: number }[]> {
  const result = (await database.db.execute(sql`select key, window_start, count from rate_limits order by key`)) as
    | { rows: { key: string; window_start: string | number; count: number }[] }
    | { key: string; window_start: string | number; count: number }[];
  const list = Array.isArray(result) ? result : result.rows;
  return list.map((r) => ({ key: r.key, window_start: Number(r.window_start), count: Number(r.count) }));
}

/** The 429 a call throws (fails the test when it does not). */
async function refusal(call: () => unknown): Promise<HttpError> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return error as HttpError;
  }
  throw new Error("the call was not refused");
}

function expect429(error: HttpError, retryAfter: string) {
  expect(error.status).toBe(429);
  expect(error.message).toBe("Too many requests. Please wait a moment and try again.");
  expect(error.errors).toBeUndefined();
  expect(error.headers).toEqual({ "Retry-After": retryAfter });
}

describe("LIMITS", () => {
  test("uploads: 10 a minute; the public profile API: 300 a minute; test reminders: 5 an hour; password checks 10 a minute (issue 36)", () => {
    expect(LIMITS).toMatchObject({
      upload: { max: 10, windowSeconds: 60 },
      publicProfile: { max: 300, windowSeconds: 60 },
      reminderTest: { max: 5, windowSeconds: 3600 },
      password: { max: 10, windowSeconds: 60 },
    });
  });
});

describe("hit (one statement per request)", () => {
  const limit: Limit = { max: 3, windowSeconds: 60 };

  test("the max-th request passes, the next is refused with the rest of the window as Retry-After", async () => {
    for (let i = 0; i < 3; i++) await hit(ctx("on"), "k", limit);
    expect(await rows()).toEqual([{ key: "k", window_start: WINDOW_START, count: 3 }]);
    expect429(await refusal(() => hit(ctx("on"), "k", limit)), "30");
    // Refused requests are still counted.
    expect(await rows()).toEqual([{ key: "k", window_start: WINDOW_START, count: 4 }]);
    setSystemTime(new Date((WINDOW_START + 59) * 1000 + 999));
    expect429(await refusal(() => hit(ctx("on"), "k", limit)), "1");
  });

  test("a new window starts the count again; other keys are counted apart", async () => {
    for (let i = 0; i < 3; i++) await hit(ctx("on"), "a", limit);
    await hit(ctx("on"), "b", limit);
    setSystemTime(new Date((WINDOW_START + 60) * 1000));
    await hit(ctx("on"), "a", limit);
    expect(await rows()).toEqual([
      { key: "a", window_start: WINDOW_START + 60, count: 1 },
      { key: "b", window_start: WINDOW_START, count: 1 },
    ]);
  });

  test("a one-second window: Retry-After is never below 1", async () => {
    const perSecond: Limit = { max: 1, windowSeconds: 1 };
    await hit(ctx("on"), "s", perSecond);
    expect429(await refusal(() => hit(ctx("on"), "s", perSecond)), "1");
  });

  test("with RATE_LIMIT=off nothing is counted or refused", async () => {
    for (let i = 0; i < 5; i++) await hit(ctx("off"), "k", { max: 1, windowSeconds: 60 });
    expect(statements).toEqual([]);
    expect(await rows()).toEqual([]);
  });
});

describe("BatchedLimiter (counts locally, shares once a second)", () => {
  const limit: Limit = { max: 3, windowSeconds: 60 };
  const limiters: BatchedLimiter[] = [];
  const make = (mode: "on" | "off" = "on", flushMs = 3_600_000) => {
    const limiter = new BatchedLimiter(ctx(mode), "profile", limit, { flushMs });
    limiters.push(limiter);
    return limiter;
  };
  afterEach(() => {
    for (const l of limiters.splice(0)) l.stop();
  });

  test("the max-th request passes, the next is refused, before any flush", async () => {
    const limiter = make();
    for (let i = 0; i < 3; i++) limiter.hit("1.2.3.4");
    expect429(await refusal(() => limiter.hit("1.2.3.4")), "30");
    limiter.hit("5.6.7.8");
    expect(statements).toEqual([]);
  });

  test("a flush shares the counts; another instance then refuses at the shared total", async () => {
    const a = make();
    const b = make();
    a.hit("ip");
    a.hit("ip");
    await a.flush();
    expect(await rows()).toEqual([{ key: "profile:ip", window_start: WINDOW_START, count: 2 }]);
    b.hit("ip"); // b knows nothing yet: 1
    await b.flush(); // the shared total is now 3, and b learns it
    expect(await rows()).toEqual([{ key: "profile:ip", window_start: WINDOW_START, count: 3 }]);
    expect429(await refusal(() => b.hit("ip")), "30");
    // a still knows its own 2 and counts 1 more; at its next flush it learns the total.
    a.hit("ip");
    await a.flush();
    expect(await rows()).toEqual([{ key: "profile:ip", window_start: WINDOW_START, count: 4 }]);
    expect429(await refusal(() => a.hit("ip")), "30");
  });

  test("a flush with nothing counted sends no statement", async () => {
    const limiter = make();
    await limiter.flush();
    expect(statements).toEqual([]);
    limiter.hit("x");
    await limiter.flush();
    expect(statements).toHaveLength(1);
    await limiter.flush();
    expect(statements).toHaveLength(1);
  });

  test("keys with quotes, commas and braces are stored as they are", async () => {
    const limiter = make();
    const keys = ['a"b', "c,d", "{e}", "f\\g", "::1"];
    for (const key of keys) limiter.hit(key);
    await limiter.flush();
    expect((await rows()).map((r) => r.key).sort()).toEqual(keys.map((k) => `profile:${k}`).sort());
  });

  test("a new window forgets the totals learnt in the old one", async () => {
    const limiter = make();
    for (let i = 0; i < 3; i++) limiter.hit("ip");
    await limiter.flush();
    expect429(await refusal(() => limiter.hit("ip")), "30");
    setSystemTime(new Date((WINDOW_START + 60) * 1000));
    for (let i = 0; i < 3; i++) limiter.hit("ip");
    expect429(await refusal(() => limiter.hit("ip")), "60");
    await limiter.flush();
    expect(await rows()).toEqual([{ key: "profile:ip", window_start: WINDOW_START + 60, count: 3 }]);
  });

  test("totals that come back after the window changed are not applied to the new window", async () => {
    const limiter = make();
    for (let i = 0; i < 3; i++) limiter.hit("ip");
    const flushing = limiter.flush();
    setSystemTime(new Date((WINDOW_START + 60) * 1000));
    limiter.hit("other"); // moves the limiter into the new window while the flush is under way
    await flushing;
    for (let i = 0; i < 3; i++) limiter.hit("ip");
  });

  test("the timer flushes on its own", async () => {
    setSystemTime();
    const limiter = make("on", 5);
    limiter.hit("timed");
    const deadline = Date.now() + 10_000;
    while ((await rows()).length === 0) {
      if (Date.now() > deadline) throw new Error("no flush within 10 s");
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    expect((await rows())[0]?.key).toBe("profile:timed");
  });

  test("with RATE_LIMIT=off nothing is counted, refused or flushed", async () => {
    const limiter = make("off", 5);
    for (let i = 0; i < 10; i++) limiter.hit("ip");
    await limiter.flush();
    expect(statements).toEqual([]);
  });
});
