/**
 * api/lib/ttl.ts: entries of the caches with a time to live expire at a random moment of its last
 * quarter, never later, so that what one start fills does not expire, and come back from
 * Postgres, all at once every 5 minutes.
 */
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { Caches, Store } from "../../api/lib/cache";
import { spreadTtl, TTL_SPREAD } from "../../api/lib/ttl";
import type { User } from "../../db/schema";

describe("spreadTtl", () => {
  test.each([
    [0, 60_000],
    [0.5, 60_000 * (1 - TTL_SPREAD / 2)],
    [0.999999, 60_000 * (1 - TTL_SPREAD * 0.999999)],
  ])("random %p: %p", (random, expected) => {
    expect(spreadTtl(60_000, random)).toBeCloseTo(expected, 6);
  });

  test("always within the last quarter of the time to live", () => {
    for (let i = 0; i < 10_000; i++) {
      const ttl = spreadTtl(300_000);
      expect(ttl).toBeGreaterThan(225_000);
      expect(ttl).toBeLessThanOrEqual(300_000);
    }
  });
});

describe("the caches' entries filled at one moment expire spread over the last quarter", () => {
  const TTL = 300_000;
  const T0 = 1_800_000_000_000;
  const N = 1000;
  let clock: ReturnType<typeof spyOn> | undefined;
  afterEach(() => clock?.mockRestore());
  const at = (ms: number) => {
    clock?.mockRestore();
    clock = spyOn(Date, "now").mockReturnValue(ms);
  };
  const user = (id: string) => ({ id, username: `name_${id}` }) as unknown as User;

  // Each kind: fill entry i, and whether entry i is still held.
  const kinds: [string, () => Promise<(i: number) => boolean>][] = [
    [
      "kept answers (pages, JSON, cards, /go)",
      async () => {
        const store = new Store<{ n: number }>(64 * 1024 * 1024, TTL);
        for (let i = 0; i < N; i++)
          store.set(`/user_${i}`, { n: i }, { tags: [`u:u${i}`], size: 100, since: store.begin() });
        return (i) => store.get(`/user_${i}`) !== undefined;
      },
    ],
    [
      "users",
      async () => {
        const caches = new Caches({ ttlMs: TTL });
        for (let i = 0; i < N; i++) caches.setUser(user(`u${i}`), caches.begin());
        return (i) => caches.getUser(`u${i}`) !== undefined;
      },
    ],
  ];

  test.each(kinds)("%s", async (_, fill) => {
    at(T0);
    const held = await fill();
    const count = () => Array.from({ length: N }, (_, i) => i).filter(held).length;
    at(T0 + TTL * (1 - TTL_SPREAD) - 1);
    expect(count()).toBe(N);
    // A fifth of the quarter later about a fifth are gone (200 expected; 1000 uniform draws).
    at(T0 + TTL * (1 - TTL_SPREAD * 0.8));
    const left = count();
    expect(left).toBeGreaterThan(N * 0.65);
    expect(left).toBeLessThan(N * 0.95);
    at(T0 + TTL);
    expect(count()).toBe(0);
  });
});
