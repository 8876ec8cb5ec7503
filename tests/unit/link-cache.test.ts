/**
 * api/link-cache.ts: where /go/{id} leads, kept per supplement id. Its caps (bytes and
 * entries, least recently used first), its expiry, its drops (an owner, which also drops every
 * unknown id; everything) and the fill race (a read that began before a drop that concerns it
 * is not kept), and the change notifications that reach it through api/cache.ts.
 */
import { describe, expect, test } from "bun:test";
import { Caches } from "../../api/cache";
import { LinkCache } from "../../api/link-cache";

const URL_100 = `https://shop.example/${"x".repeat(79)}`;

describe("caps and expiry", () => {
  test("holds links up to the byte cap, dropping the least recently used first", () => {
    const cache = new LinkCache(1500);
    for (const id of [1, 2, 3]) cache.set(id, "u1", URL_100, cache.begin());
    cache.get(1); // 1 is now the most recently used
    for (const id of [4, 5]) cache.set(id, "u2", URL_100, cache.begin());
    expect(cache.bytes).toBeLessThanOrEqual(1500);
    expect(cache.get(1)?.target).toBe(URL_100);
    expect(cache.get(2)).toBeUndefined();
    expect(cache.get(5)?.target).toBe(URL_100);
  });

  test("holds at most 50,000 ids, whatever their size", () => {
    const cache = new LinkCache(1024 * 1024 * 1024);
    for (let id = 1; id <= 50_010; id++) cache.set(id, null, null, cache.begin());
    expect(cache.size).toBe(50_000);
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(50_010)).toBeDefined();
  });

  test("an entry older than the expiry is read again", () => {
    const cache = new LinkCache(undefined, -1); // every entry is past it at once
    cache.set(1, "u1", URL_100, cache.begin());
    expect(cache.get(1)).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});

describe("drops", () => {
  test("an owner's change drops their links and every unknown id, nobody else's", () => {
    const cache = new LinkCache();
    cache.set(1, "u1", URL_100, cache.begin());
    cache.set(2, "u1", null, cache.begin()); // u1's supplement without a link
    cache.set(3, "u2", URL_100, cache.begin());
    cache.set(99, null, null, cache.begin()); // no such supplement (yet)
    cache.dropUser("u1");
    expect([1, 2, 3, 99].map((id) => cache.get(id) !== undefined)).toEqual([false, false, true, false]);
  });

  test("a fill that began before a drop concerning it is not kept; one that began after is", () => {
    const cache = new LinkCache();
    const before = cache.begin();
    cache.dropUser("u1");
    expect(cache.set(1, "u1", URL_100, before).target).toBe(URL_100); // answered, not kept
    expect(cache.get(1)).toBeUndefined();
    cache.set(99, null, null, before); // an unknown id read before any owner's change
    expect(cache.get(99)).toBeUndefined();
    cache.set(3, "u2", URL_100, before); // another owner: kept
    expect(cache.get(3)).toBeDefined();
    cache.set(1, "u1", URL_100, cache.begin());
    expect(cache.get(1)).toBeDefined();
  });

  test("clear() drops everything, and fills begun before it", () => {
    const cache = new LinkCache();
    cache.set(1, "u1", URL_100, cache.begin());
    const before = cache.begin();
    cache.clear();
    expect(cache.get(1)).toBeUndefined();
    cache.set(2, "u2", URL_100, before);
    expect(cache.get(2)).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });
});

describe("through api/cache.ts", () => {
  test.each([
    ["a user or supplement change", '{"u":"u1","n":["name"]}', false],
    ["an ended session", '{"s":"u1"}', true],
    ["a Today change", '{"t":"u1"}', true],
    ["an image deleted", '{"i":"abc"}', true],
    ["an unreadable payload (everything dropped)", "not json", false],
  ])("%s: kept = %p", (_what, payload, kept) => {
    const caches = new Caches();
    caches.links.set(1, "u1", URL_100, caches.links.begin());
    caches.applyNotification(payload);
    expect(caches.links.get(1) !== undefined).toBe(kept);
  });

  test("the changing instance's own invalidate() and a lost listening connection drop them too", () => {
    const caches = new Caches();
    caches.links.set(1, "u1", URL_100, caches.links.begin());
    caches.invalidate({ userId: "u1" });
    expect(caches.links.get(1)).toBeUndefined();
    caches.links.set(2, "u2", URL_100, caches.links.begin());
    caches.clear();
    expect(caches.links.get(2)).toBeUndefined();
  });
});
