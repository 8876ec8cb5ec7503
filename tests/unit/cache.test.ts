/**
 * The in-memory caches' rules (api/cache.ts): a fill that raced with an invalidation is
 * not stored, a fill after one is; notifications from Postgres drop what they name.
 */
import { describe, expect, test } from "bun:test";
import { type CachedBody, Caches, cachedBodyBytes, toCachedBody } from "../../api/cache";
import type { User } from "../../db/schema";

/** A user row as the session check caches it (only the id matters to the cache). */
const userRow = (id: string) => ({ id, username: `name_${id}` }) as unknown as User;

const body = () => toCachedBody(new Response("[]", { headers: { "content-type": "application/json" } }));

describe("Caches", () => {
  test("a fill that began after an invalidation is stored", async () => {
    const caches = new Caches();
    caches.invalidate({ userId: "u1" });
    const since = caches.begin();
    caches.setList("u1", false, await body(), since);
    expect(caches.getList("u1", false)).toBeDefined();
  });

  test("a fill that raced with an invalidation of its user is not stored", async () => {
    const caches = new Caches();
    const since = caches.begin();
    caches.invalidate({ userId: "u1" });
    caches.setList("u1", false, await body(), since);
    expect(caches.getList("u1", false)).toBeUndefined();
    // Another user's invalidation does not spoil it.
    const later = caches.begin();
    caches.invalidate({ userId: "u2" });
    caches.setList("u1", false, await body(), later);
    expect(caches.getList("u1", false)).toBeDefined();
  });

  test("a list is kept for the premium state it was rendered for", async () => {
    const caches = new Caches();
    caches.setList("u1", true, await body(), caches.begin());
    expect(caches.getList("u1", false)).toBeUndefined();
    expect(caches.getList("u1", true)).toBeUndefined(); // the mismatch dropped it
  });

  test("a change to the user drops their list, user row and profile, and the names it names; nothing else", async () => {
    const caches = new Caches();
    for (const id of ["u1", "u2"]) {
      caches.setUser(userRow(id), caches.begin());
      caches.setList(id, false, await body(), caches.begin());
    }
    caches.setProfile("alice", "json", "u1", await body(), caches.begin());
    caches.setProfile("alice", "page", "u1", await body(), caches.begin());
    // A name that was not found (cached as a 404, no user): the user is renamed to it.
    caches.setProfile("alicia", "json", null, await body(), caches.begin());
    caches.setProfile("bob", "json", "u2", await body(), caches.begin());
    expect(caches.getUser("u1")?.id).toBe("u1");

    caches.applyNotification(JSON.stringify({ u: "u1", n: ["alice", "Alicia"] }));
    expect(caches.getUser("u1")).toBeUndefined();
    expect(caches.getList("u1", false)).toBeUndefined();
    expect(caches.getProfile("alice", "json")).toBeUndefined();
    expect(caches.getProfile("ALICE", "page")).toBeUndefined();
    expect(caches.getProfile("alicia", "json")).toBeUndefined();
    // Another user's copies stay.
    expect(caches.getUser("u2")?.id).toBe("u2");
    expect(caches.getList("u2", false)).toBeDefined();
    expect(caches.getProfile("bob", "json")).toBeDefined();
  });

  test("a user row read while its user changed is not stored; one read after is", () => {
    const caches = new Caches();
    const since = caches.begin();
    caches.invalidate({ userId: "u1" });
    caches.setUser(userRow("u1"), since);
    expect(caches.getUser("u1")).toBeUndefined();
    caches.setUser(userRow("u1"), caches.begin());
    expect(caches.getUser("u1")?.id).toBe("u1");
  });

  test("verified sessions: kept for the window, dropped when one of the user's sessions ends", () => {
    const caches = new Caches();
    caches.setSession("token=a.sig", "u1", Date.now() + 60_000, caches.begin());
    caches.setSession("token=b.sig", "u1", Date.now() + 60_000, caches.begin());
    caches.setSession("token=c.sig", "u2", Date.now() + 60_000, caches.begin());
    expect(caches.getSession("token=a.sig", 30_000)).toBe("u1");
    expect(caches.getSession("token=a.sig", -1)).toBeUndefined(); // past the window
    caches.applyNotification(JSON.stringify({ s: "u1" }));
    expect(caches.getSession("token=b.sig", 30_000)).toBeUndefined();
    expect(caches.getSession("token=c.sig", 30_000)).toBe("u2");
  });

  test("a session verified while one of the user's sessions ended is not remembered", () => {
    const caches = new Caches();
    const since = caches.begin();
    caches.dropSessionsOf("u1");
    caches.setSession("token=a.sig", "u1", Date.now() + 60_000, since);
    expect(caches.getSession("token=a.sig", 30_000)).toBeUndefined();
  });

  test("an expired session is never served, whatever the window", () => {
    const caches = new Caches();
    caches.setSession("token=a.sig", "u1", Date.now() - 1, caches.begin());
    expect(caches.getSession("token=a.sig", 30_000)).toBeUndefined();
  });

  test("a lost listening connection (clear) drops everything, and fills begun before it", async () => {
    const caches = new Caches();
    caches.setSession("token=a.sig", "u1", Date.now() + 60_000, caches.begin());
    const since = caches.begin();
    caches.clear();
    caches.setList("u1", false, await body(), since);
    expect(caches.getList("u1", false)).toBeUndefined();
    expect(caches.getSession("token=a.sig", 30_000)).toBeUndefined();
  });

  test("an unreadable notification drops everything", async () => {
    const caches = new Caches();
    caches.setList("u1", false, await body(), caches.begin());
    caches.applyNotification("not json");
    expect(caches.getList("u1", false)).toBeUndefined();
  });

  describe("the profile cache's limits", () => {
    const sized = (bytes: number): CachedBody => ({
      status: 200,
      body: new Uint8Array(bytes),
      headers: [["content-type", "text/html"]],
      etag: '"x"',
    });

    test("never holds more bytes than its cap, dropping the least recently used first", () => {
      const one = cachedBodyBytes(sized(10_000));
      // Room for about five such pages.
      const caches = new Caches({ profileBytes: one * 5 + 1_000 });
      for (const name of ["a_1", "a_2", "a_3", "a_4", "a_5"]) {
        caches.setProfile(name, "page", null, sized(10_000), caches.begin());
      }
      expect(caches.profileCacheEntries).toBe(5);
      // a_1 is used again: a_2 is now the least recently used.
      expect(caches.getProfile("a_1", "page")).toBeDefined();
      caches.setProfile("a_6", "page", null, sized(10_000), caches.begin());
      expect(caches.profileCacheBytes).toBeLessThanOrEqual(caches.maxProfileBytes);
      expect(caches.getProfile("a_2", "page")).toBeUndefined();
      for (const name of ["a_1", "a_3", "a_4", "a_5", "a_6"]) expect(caches.getProfile(name, "page")).toBeDefined();
      // Many more: the bytes stay under the cap however many names come.
      for (let i = 0; i < 200; i++) {
        caches.setProfile(`b_${i}`, "json", null, sized(1_000 + (i % 7) * 3_000), caches.begin());
        expect(caches.profileCacheBytes).toBeLessThanOrEqual(caches.maxProfileBytes);
      }
    });

    test("counts what it drops: bytes go back to zero when everything is invalidated or cleared", () => {
      const caches = new Caches({ profileBytes: 1_000_000 });
      caches.setProfile("alice", "page", "u1", sized(5_000), caches.begin());
      caches.setProfile("alice", "json", "u1", sized(500), caches.begin());
      caches.setProfile("alice", "json", "u1", sized(700), caches.begin()); // replaced, not added
      caches.setProfile("bob_1", "json", null, sized(300), caches.begin());
      const expected = cachedBodyBytes(sized(5_000)) + cachedBodyBytes(sized(700)) + cachedBodyBytes(sized(300));
      expect(caches.profileCacheBytes).toBeGreaterThanOrEqual(expected);
      expect(caches.profileCacheBytes).toBeLessThan(expected + 1_000);
      caches.invalidate({ userId: "u1" });
      caches.invalidate({ names: ["bob_1"] });
      expect(caches.profileCacheEntries).toBe(0);
      expect(caches.profileCacheBytes).toBe(0);
      caches.setProfile("carol", "page", null, sized(100), caches.begin());
      caches.clear();
      expect(caches.profileCacheBytes).toBe(0);
    });

    test("a body larger than the whole cap is not kept (and keeps nothing else out)", () => {
      const caches = new Caches({ profileBytes: 50_000 });
      caches.setProfile("small", "page", null, sized(1_000), caches.begin());
      caches.setProfile("huge_1", "page", null, sized(60_000), caches.begin());
      expect(caches.getProfile("huge_1", "page")).toBeUndefined();
      expect(caches.getProfile("small", "page")).toBeDefined();
    });

    test.each([
      ["15 KB of letters", "a".repeat(15_000)],
      ["51 characters", "a".repeat(51)],
      ["two characters", "ab"],
      ["a space", "ali ce"],
      ["leading spaces", `   alice`],
      ["a dot", "alice.bob"],
      ["non-ASCII", "àlice"],
      ["encoded", "alice%20"],
    ])("a name that fails the username rule (%s) is never kept", (_label, name) => {
      const caches = new Caches();
      caches.setProfile(name, "json", null, sized(100), caches.begin());
      expect(caches.getProfile(name, "json")).toBeUndefined();
      expect(caches.profileCacheEntries).toBe(0);
      expect(caches.profileCacheBytes).toBe(0);
    });
  });
  describe("the per-user answers' byte cap (USER_CACHE_MB: supplement lists and Today)", () => {
    const sized = (bytes: number): CachedBody => ({
      status: 200,
      body: new Uint8Array(bytes),
      headers: [["content-type", "application/json"]],
      etag: '"x"',
    });
    const one = cachedBodyBytes(sized(10_000));

    test.each([
      ["lists only", (c: Caches, i: number) => c.setList(`u${i}`, false, sized(10_000), c.begin())],
      ["Todays only", (c: Caches, i: number) => c.setToday(`u${i}`, "2026-01-01", sized(10_000), c.begin())],
      [
        "lists and Todays mixed",
        (c: Caches, i: number) =>
          i % 2
            ? c.setList(`u${i}`, false, sized(10_000), c.begin())
            : c.setToday(`u${i}`, `2026-01-0${(i % 8) + 1}`, sized(10_000), c.begin()),
      ],
    ])("never holds more bytes than its cap (%s), however many users come", (_label, fill) => {
      const caches = new Caches({ answerBytes: one * 5 + 2_000 });
      for (let i = 0; i < 300; i++) {
        fill(caches, i);
        expect(caches.answerCacheBytes).toBeLessThanOrEqual(caches.maxAnswerBytes);
      }
      expect(caches.answerCacheBytes).toBeGreaterThan(one * 4); // it does keep what fits
    });

    test("drops the least recently used answer first, a list or a Today", () => {
      const caches = new Caches({ answerBytes: one * 3 + 2_000 });
      caches.setList("u1", false, sized(10_000), caches.begin());
      caches.setToday("u2", "2026-01-01", sized(10_000), caches.begin());
      caches.setList("u3", true, sized(10_000), caches.begin());
      expect(caches.getList("u1", false)).toBeDefined(); // u1 used again: u2's Today is the oldest now
      caches.setList("u4", false, sized(10_000), caches.begin());
      expect(caches.getToday("u2", "2026-01-01")).toBeUndefined();
      expect(caches.getList("u1", false)).toBeDefined();
      expect(caches.getList("u3", true)).toBeDefined();
      expect(caches.getList("u4", false)).toBeDefined();
    });

    test("an answer larger than the whole cap is not kept (and drops nothing)", () => {
      const caches = new Caches({ answerBytes: 50_000 });
      caches.setList("small", false, sized(1_000), caches.begin());
      caches.setList("huge", false, sized(60_000), caches.begin());
      caches.setToday("huge", "2026-01-01", sized(60_000), caches.begin());
      expect(caches.getList("huge", false)).toBeUndefined();
      expect(caches.getToday("huge", "2026-01-01")).toBeUndefined();
      expect(caches.getList("small", false)).toBeDefined();
    });

    test("counts what it drops: replaced, invalidated, expired by a premium change, cleared", () => {
      const caches = new Caches({ answerBytes: 1_000_000 });
      caches.setList("u1", false, sized(5_000), caches.begin());
      caches.setList("u1", false, sized(700), caches.begin()); // replaced, not added
      caches.setToday("u1", "2026-01-01", sized(300), caches.begin());
      caches.setToday("u2", "2026-01-01", sized(400), caches.begin());
      caches.setList("u3", false, sized(100), caches.begin());
      const expected = [700, 300, 400, 100].reduce((sum, n) => sum + cachedBodyBytes(sized(n)), 0);
      expect(caches.answerCacheBytes).toBeGreaterThanOrEqual(expected);
      expect(caches.answerCacheBytes).toBeLessThan(expected + 1_000);
      caches.invalidate({ userId: "u1" });
      caches.dropTodays("u2");
      expect(caches.getList("u3", true)).toBeUndefined(); // rendered for free: dropped
      expect(caches.answerCacheBytes).toBe(0);
      caches.setList("u4", false, sized(100), caches.begin());
      caches.clear();
      expect(caches.answerCacheBytes).toBe(0);
    });
  });
});
