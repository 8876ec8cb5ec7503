/**
 * The rate limits' counting (api/lib/rate-limit.ts) at their exact bounds, on a set clock: the
 * public profile API's limiter allows the 300th request of a window and refuses the 301st,
 * counts each window on its own, and, on a shared database, counts other instances' requests
 * as soon as it has flushed (PGlite in memory: no Postgres server needed).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseConfig } from "../../api/lib/config";
import { HttpError } from "../../api/lib/http";
import { allowed, BatchedLimiter, LIMITS, windowOf } from "../../api/lib/rate-limit";
import { type Database, openDatabase } from "../../db/client";

const LIMIT = LIMITS.publicProfile;
const WINDOW_MS = LIMIT.windowSeconds * 1000;
/** 20 s into a window. */
const T0 = 1_800_000_000_000 - (1_800_000_000_000 % WINDOW_MS) + 20_000;

const config = parseConfig({ RATE_LIMIT: "on" });

/** A limiter on a set clock that never flushes by itself (no database unless given). */
function limiter(clock: { now: number }, database?: Database) {
  return new BatchedLimiter({ config, database: database as Database }, "profile", LIMIT, {
    flushMs: 0,
    now: () => clock.now,
  });
}

/** The status of one request counted by `hit` (200 when allowed). */
function status(hit: () => void): number {
  try {
    hit();
    return 200;
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
}

/** The statuses of `n` requests for one key. */
const statuses = (l: BatchedLimiter, key: string, n: number) =>
  Array.from({ length: n }, () => status(() => l.hit(key)));

describe("allowed / windowOf: the bound itself", () => {
  test("the max-th request of a window is allowed, the next one is not", () => {
    expect(LIMIT.max).toBe(300);
    expect([allowed(299, LIMIT), allowed(300, LIMIT), allowed(301, LIMIT)]).toEqual([true, true, false]);
    expect([allowed(10, LIMITS.upload), allowed(11, LIMITS.upload)]).toEqual([true, false]);
  });

  test("windows are fixed, aligned to the window length", () => {
    const start = T0 - 20_000;
    expect(windowOf(start, LIMIT) * 1000).toBe(start);
    expect(windowOf(start + WINDOW_MS - 1, LIMIT) * 1000).toBe(start);
    expect(windowOf(start + WINDOW_MS, LIMIT) * 1000).toBe(start + WINDOW_MS);
    expect(windowOf(start - 1, LIMIT) * 1000).toBe(start - WINDOW_MS);
  });
});

describe("the public profile API limiter (one instance)", () => {
  test("requests 1 to 300 of a window are allowed; the 301st and later are 429", () => {
    const l = limiter({ now: T0 });
    const got = statuses(l, "203.0.113.7", 305);
    expect(got.slice(0, 300).every((s) => s === 200)).toBe(true);
    expect(got.slice(300)).toEqual([429, 429, 429, 429, 429]);
  });

  test("a refusal says when the window ends (Retry-After) and is not counted", () => {
    const clock = { now: T0 };
    const l = limiter(clock);
    statuses(l, "a", 300);
    let refusal: HttpError | undefined;
    try {
      l.hit("a");
    } catch (error) {
      refusal = error as HttpError;
    }
    expect(refusal?.status).toBe(429);
    expect(refusal?.headers?.["Retry-After"]).toBe("40"); // 20 s into a 60 s window
    clock.now = T0 + 39_500;
    expect(status(() => l.hit("a"))).toBe(429);
    // Next window: a fresh allowance, exactly 300 again (refusals did not count).
    clock.now = T0 + 40_000;
    expect(statuses(l, "a", 301).filter((s) => s === 200)).toHaveLength(300);
  });

  test("each key has its own allowance", () => {
    const l = limiter({ now: T0 });
    expect(statuses(l, "a", 301).at(-1)).toBe(429);
    expect(statuses(l, "b", 301).filter((s) => s === 200)).toHaveLength(300);
    expect(status(() => l.hit("a"))).toBe(429);
  });

  test("at a window's edge: 300 in its last millisecond, then 300 more from the next one's first", () => {
    const clock = { now: T0 - 20_000 + WINDOW_MS - 1 };
    const l = limiter(clock);
    expect(statuses(l, "a", 301).filter((s) => s === 200)).toHaveLength(300);
    clock.now += 1;
    // Not yet flushed: the last window's counts must not spill into this one.
    const next = statuses(l, "a", 301);
    expect(next.slice(0, 300).every((s) => s === 200)).toBe(true);
    expect(next[300]).toBe(429);
  });

  test("RATE_LIMIT=off counts nothing", () => {
    const l = new BatchedLimiter(
      { config: parseConfig({ RATE_LIMIT: "off" }), database: undefined as never },
      "p",
      LIMIT,
    );
    expect(statuses(l, "a", 400).every((s) => s === 200)).toBe(true);
  });
});

describe("the public profile API limiter across instances (shared counters, PGlite)", () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ dataDir: ":memory:", poolSize: 1 });
  });
  afterAll(async () => {
    await database?.close();
  });

  test("after each has flushed, the shared total is what counts: 300 allowed between them, not 300 each", async () => {
    const clock = { now: T0 };
    const [a, b] = [limiter(clock, database), limiter(clock, database)];
    const key = `shared-${crypto.randomUUID()}`;
    expect(statuses(a, key, 200).every((s) => s === 200)).toBe(true);
    await a.flush();
    expect(statuses(b, key, 100).every((s) => s === 200)).toBe(true);
    await b.flush(); // b now knows 300 in all
    expect(status(() => b.hit(key))).toBe(429);
    // a last learned 200: until its next flush it allows what it cannot know about (the
    // documented slack, at most a flush interval's traffic); the flush corrects it.
    expect(status(() => a.hit(key))).toBe(200);
    await a.flush();
    expect(status(() => a.hit(key))).toBe(429);
    expect(status(() => b.hit(key))).toBe(429);
  });

  test("another window starts from zero in the shared counters too", async () => {
    const clock = { now: T0 };
    const [a, b] = [limiter(clock, database), limiter(clock, database)];
    const key = `shared-${crypto.randomUUID()}`;
    statuses(a, key, 300);
    await a.flush();
    clock.now = T0 + WINDOW_MS;
    expect(statuses(b, key, 150).every((s) => s === 200)).toBe(true);
    await b.flush();
    expect(statuses(b, key, 151).filter((s) => s === 200)).toHaveLength(150);
  });

  test("memory is capped whatever the number of addresses: a full local map flushes, the known totals keep the newest", async () => {
    const clock = { now: T0 };
    const make = () =>
      new BatchedLimiter({ config, database }, "profile", LIMIT, { flushMs: 0, now: () => clock.now, maxKeys: 100 });
    const [a, b] = [make(), make()];
    const run = crypto.randomUUID();
    for (let i = 0; i < 1_000; i++) {
      expect(status(() => a.hit(`many-${run}-${i}`))).toBe(200);
      expect(a.heldKeys.local).toBeLessThanOrEqual(100);
    }
    await a.flush();
    await b.flush();
    expect(a.heldKeys.known).toBeLessThanOrEqual(100);
    expect(a.heldKeys.known).toBeGreaterThan(0);
    // The limit still holds for one key among the many, on this instance and across instances.
    const key = `hot-${run}`;
    expect(statuses(a, key, 200).every((s) => s === 200)).toBe(true);
    for (let i = 1_000; i < 1_300; i++) a.hit(`many-${run}-${i}`); // pushes the hot key out of local
    await a.flush();
    expect(statuses(b, key, 101).filter((s) => s === 200)).toHaveLength(101); // b has not flushed: 200 + 101
    await b.flush();
    expect(status(() => b.hit(key))).toBe(429);
    // a has dropped the hot key's total (100 newer keys since): it counts it from zero until
    // its next flush tells the total again (the documented slack), then refuses it.
    expect(status(() => a.hit(key))).toBe(200);
    await a.flush();
    expect(status(() => a.hit(key))).toBe(429);
    expect(a.heldKeys.known).toBeLessThanOrEqual(100);
  });
});
