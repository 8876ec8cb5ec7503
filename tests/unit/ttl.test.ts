/**
 * api/ttl.ts: entries of the caches with a time to live expire at a random moment of its last
 * quarter, never later, so that what one start fills does not expire, and come back from
 * Postgres, all at once every 5 minutes.
 */
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { Caches, toCachedBody } from "../../api/cache";
import { LinkCache } from "../../api/link-cache";
import { expiresAfter, TTL_SPREAD } from "../../api/ttl";
import type { User } from "../../db/schema";

describe("expiresAfter", () => {
  test.each([
    [0, 1_000 + 60_000],
    [0.5, 1_000 + 60_000 * (1 - TTL_SPREAD / 2)],
    [0.999999, 1_000 + 60_000 * (1 - TTL_SPREAD * 0.999999)],
  ])("random %p: %p", (random, expected) => {
    expect(expiresAfter(60_000, 1_000, random)).toBeCloseTo(expected, 6);
  });

  test("always within the last quarter of the time to live", () => {
    for (let i = 0; i < 10_000; i++) {
      const at = expiresAfter(300_000, 0);
      expect(at).toBeGreaterThan(225_000);
      expect(at).toBeLessThanOrEqual(300_000);
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
  const body = () => toCachedBody(new Response("{}", { headers: { "content-type": "application/json" } }));
  const user = (id: string) => ({ id, username: `name_${id}` }) as unknown as User;

  // Each kind: fill entry i, and whether entry i is still held.
  const kinds: [string, () => Promise<(i: number) => boolean>][] = [
    [
      "profile pages",
      async () => {
        const caches = new Caches({ ttlMs: TTL });
        const b = await body();
        for (let i = 0; i < N; i++) caches.setProfile(`user_${i}`, "page", `u${i}`, b, caches.begin());
        return (i) => caches.getProfile(`user_${i}`, "page") !== undefined;
      },
    ],
    [
      "'View Product' links",
      async () => {
        const links = new LinkCache(undefined, TTL);
        for (let i = 0; i < N; i++) links.set(i, `u${i}`, "https://shop.example/x", links.begin());
        return (i) => links.get(i) !== undefined;
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
    [
      "supplement lists",
      async () => {
        const caches = new Caches({ ttlMs: TTL });
        const b = await body();
        for (let i = 0; i < N; i++) caches.setList(`u${i}`, false, b, caches.begin());
        return (i) => caches.getList(`u${i}`, false) !== undefined;
      },
    ],
    [
      "Today answers",
      async () => {
        const caches = new Caches({ ttlMs: TTL });
        const b = await body();
        for (let i = 0; i < N; i++) caches.setToday(`u${i}`, "2026-11-27", b, caches.begin());
        return (i) => caches.getToday(`u${i}`, "2026-11-27") !== undefined;
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
