/**
 * The in-memory caches' rules (api/lib/cache.ts): a fill that raced with an invalidation is
 * not stored, a fill after one is; notifications from Postgres drop what they name; every
 * store is capped in bytes, least recently used dropped first.
 */
import { describe, expect, test } from "bun:test";
import { Caches, profileTags, Store } from "../../api/lib/cache";
import type { User } from "../../db/schema";

/** A user row as the session check caches it (only the id matters to the cache). */
const userRow = (id: string) => ({ id, username: `name_${id}` }) as unknown as User;

describe("Caches", () => {
  test("a fill that began after an invalidation is stored; one that raced with its user's is not", () => {
    const caches = new Caches();
    caches.invalidate({ userId: "u1" });
    caches.setUser(userRow("u1"), caches.begin());
    expect(caches.getUser("u1")).toBeDefined();
    const since = caches.begin();
    caches.invalidate({ userId: "u2" }); // another user's invalidation does not spoil it
    caches.setUser(userRow("u1"), since);
    expect(caches.getUser("u1")).toBeDefined();
  });

  test("a change to the user drops their user row and profile, and the names it names; nothing else", () => {
    const caches = new Caches();
    for (const id of ["u1", "u2"]) caches.setUser(userRow(id), caches.begin());
    const keep = (path: string, name: string, userId: string | null) =>
      caches.responses.set(path, {}, { tags: profileTags(name, userId), size: 100, since: caches.responses.begin() });
    keep("/api/profile/alice", "alice", "u1");
    keep("/ALICE", "ALICE", "u1");
    // A name that was not found (kept as a 404, no user): the user is renamed to it.
    keep("/api/profile/alicia", "alicia", null);
    keep("/api/profile/bob", "bob", "u2");
    expect(caches.getUser("u1")?.id).toBe("u1");

    caches.applyNotification(JSON.stringify({ u: "u1", n: ["alice", "Alicia"] }));
    expect(caches.getUser("u1")).toBeUndefined();
    expect(caches.responses.get("/api/profile/alice")).toBeUndefined();
    expect(caches.responses.get("/ALICE")).toBeUndefined();
    expect(caches.responses.get("/api/profile/alicia")).toBeUndefined();
    // Another user's copies stay.
    expect(caches.getUser("u2")?.id).toBe("u2");
    expect(caches.responses.get("/api/profile/bob")).toBeDefined();
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

  test("a lost listening connection (clear) drops everything, and fills begun before it", () => {
    const caches = new Caches();
    caches.setSession("token=a.sig", "u1", Date.now() + 60_000, caches.begin());
    const since = caches.begin();
    caches.clear();
    caches.setUser(userRow("u1"), since);
    expect(caches.getUser("u1")).toBeUndefined();
    expect(caches.getSession("token=a.sig", 30_000)).toBeUndefined();
  });

  test("an unreadable notification drops everything", () => {
    const caches = new Caches();
    caches.setUser(userRow("u1"), caches.begin());
    caches.applyNotification("not json");
    expect(caches.getUser("u1")).toBeUndefined();
  });

  describe("Store: the one mechanism (the response cache, avatars, user rows and sessions)", () => {
    const fill = (store: Store<object>, key: string, size: number, tags: string[] = []) =>
      store.set(key, { key }, { tags, size, since: store.begin() });

    test("never holds more bytes than its cap, dropping the least recently used first", () => {
      const store = new Store<object>(5 * 10_200, 60_000);
      for (const key of ["a_1", "a_2", "a_3", "a_4", "a_5"]) fill(store, key, 10_000);
      expect(store.size).toBe(5);
      // a_1 is used again: a_2 is now the least recently used.
      expect(store.get("a_1")).toBeDefined();
      fill(store, "a_6", 10_000);
      expect(store.bytes).toBeLessThanOrEqual(store.maxBytes);
      expect(store.get("a_2")).toBeUndefined();
      for (const key of ["a_1", "a_3", "a_4", "a_5", "a_6"]) expect(store.get(key)).toBeDefined();
      for (let i = 0; i < 200; i++) {
        fill(store, `b_${i}`, 1_000 + (i % 7) * 3_000);
        expect(store.bytes).toBeLessThanOrEqual(store.maxBytes);
      }
    });

    test("drops by tag, counts what it drops, and refuses a fill that raced with a drop of one of its tags", () => {
      const store = new Store<object>(1_000_000, 60_000);
      fill(store, "/alice", 5_000, ["u:u1", "n:alice"]);
      fill(store, "/api/profile/alice", 700, ["u:u1", "n:alice"]);
      fill(store, "/bob_1", 300, ["n:bob_1"]);
      expect(store.bytes).toBeGreaterThanOrEqual(6_000);
      store.dropTag("u:u1");
      expect([store.get("/alice"), store.get("/api/profile/alice")]).toEqual([undefined, undefined]);
      store.dropTag("n:bob_1");
      expect([store.size, store.bytes]).toEqual([0, 0]);
      const since = store.begin();
      store.dropTag("u:u2");
      expect(store.set("/carol", {}, { tags: ["u:u2"], size: 10, since })).toBe(false);
      expect(store.set("/carol", {}, { tags: ["u:u3"], size: 10, since })).toBe(true);
      store.clear();
      expect([store.size, store.bytes]).toEqual([0, 0]);
    });

    test("a value larger than the whole cap is not kept (and keeps nothing else out); a cap of 0 keeps nothing", () => {
      const store = new Store<object>(50_000, 60_000);
      fill(store, "small", 1_000);
      fill(store, "huge", 60_000);
      expect(store.get("huge")).toBeUndefined();
      expect(store.get("small")).toBeDefined();
      const none = new Store<object>(0, 60_000);
      fill(none, "small", 1);
      expect([none.get("small"), none.size, none.bytes]).toEqual([undefined, 0, 0]);
    });
  });
});
