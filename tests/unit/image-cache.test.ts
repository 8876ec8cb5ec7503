/**
 * api/image-cache.ts: the avatar cache's byte cap (least recently used dropped first), its
 * drops (an id, a user, everything) and the fill race (a read that began before a drop is
 * not kept), and the change notifications that reach it through api/cache.ts.
 */
import { describe, expect, test } from "bun:test";
import { Caches } from "../../api/cache";
import { ImageCache } from "../../api/image-cache";

const image = (id: string, userId: string, size: number) => ({
  id,
  userId,
  body: new Uint8Array(size),
  contentType: "image/webp",
});

describe("byte cap", () => {
  test("holds images up to the cap, dropping the least recently used first", () => {
    const cache = new ImageCache(10_000);
    cache.set(image("a", "u1", 3000), cache.begin());
    cache.set(image("b", "u1", 3000), cache.begin());
    cache.set(image("c", "u2", 3000), cache.begin());
    expect(cache.size).toBe(3);
    cache.get("a"); // a is now the most recently used
    cache.set(image("d", "u2", 3000), cache.begin());
    expect([cache.get("a"), cache.get("b"), cache.get("c"), cache.get("d")].map((e) => e?.id)).toEqual([
      "a",
      undefined,
      "c",
      "d",
    ]);
    expect(cache.bytes).toBeLessThanOrEqual(10_000);
  });

  test("an image larger than the whole cap is not kept; a cap of 0 keeps nothing", () => {
    const cache = new ImageCache(1000);
    cache.set(image("big", "u", 2000), cache.begin());
    expect(cache.get("big")).toBeUndefined();
    const none = new ImageCache(0);
    none.set(image("x", "u", 1), none.begin());
    expect(none.size).toBe(0);
    expect(none.bytes).toBe(0);
  });

  test("bookkeeping: bytes go back to 0 after every kind of drop", () => {
    const cache = new ImageCache(1_000_000);
    for (let i = 0; i < 10; i++) cache.set(image(`i${i}`, `u${i % 3}`, 1000 + i), cache.begin());
    cache.set(image("i0", "u0", 1000), cache.begin()); // stored again: counted once
    cache.drop("i1");
    cache.dropUser("u0");
    for (const id of ["i2", "i4", "i5", "i7", "i8"]) cache.drop(id);
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
  });
});

describe("drops and the fill race", () => {
  const variants: { name: string; drop: (cache: ImageCache) => void }[] = [
    { name: "the image", drop: (cache) => cache.drop("a") },
    { name: "its user", drop: (cache) => cache.dropUser("u1") },
    { name: "everything", drop: (cache) => cache.clear() },
  ];
  for (const variant of variants) {
    test(`dropping ${variant.name}: gone now, and a read begun before the drop is not kept`, () => {
      const cache = new ImageCache(1_000_000);
      cache.set(image("a", "u1", 100), cache.begin());
      const since = cache.begin(); // a read of a, begun before the drop…
      variant.drop(cache);
      expect(cache.get("a")).toBeUndefined();
      cache.set(image("a", "u1", 100), since); // …and finished after it
      expect(cache.get("a")).toBeUndefined();
      cache.set(image("a", "u1", 100), cache.begin()); // a read begun after it is kept
      expect(cache.get("a")?.id).toBe("a");
    });
  }

  test("dropping one user or one image leaves the others", () => {
    const cache = new ImageCache(1_000_000);
    cache.set(image("a", "u1", 100), cache.begin());
    cache.set(image("b", "u2", 100), cache.begin());
    cache.set(image("c", "u2", 100), cache.begin());
    cache.dropUser("u1");
    cache.drop("b");
    expect([cache.get("a"), cache.get("b"), cache.get("c")].map((e) => e?.id)).toEqual([undefined, undefined, "c"]);
  });
});

describe("change notifications (api/cache.ts)", () => {
  const variants = [
    { name: '{"i": id} (an image deleted)', payload: JSON.stringify({ i: "a" }), gone: ["a"] },
    {
      name: '{"u": user, "d": true} (a user deleted: migration 0009)',
      payload: JSON.stringify({ u: "u1", n: ["x", null], d: true }),
      gone: ["a", "b"],
    },
    {
      name: '{"u": user} (a user or their supplements changed): the avatars stay',
      payload: JSON.stringify({ u: "u1", n: ["x", "x"] }),
      gone: [],
    },
    { name: '{"u": user, "d": false}: the avatars stay', payload: JSON.stringify({ u: "u1", d: false }), gone: [] },
    { name: "an unreadable payload", payload: "{not json", gone: ["a", "b", "c"] },
  ];
  for (const variant of variants) {
    test(variant.name, () => {
      const caches = new Caches({ imageBytes: 1_000_000 });
      caches.images.set(image("a", "u1", 10), caches.images.begin());
      caches.images.set(image("b", "u1", 10), caches.images.begin());
      caches.images.set(image("c", "u2", 10), caches.images.begin());
      caches.applyNotification(variant.payload);
      const left = ["a", "b", "c"].filter((id) => caches.images.get(id));
      expect(left).toEqual(["a", "b", "c"].filter((id) => !variant.gone.includes(id)));
    });
  }

  test("this instance's own drops: an edit keeps the user's images, the account's deletion drops them", () => {
    const caches = new Caches();
    caches.images.set(image("a", "u1", 10), caches.images.begin());
    caches.invalidate({ userId: "u1", names: ["x"] });
    expect(caches.images.get("a")?.id).toBe("a");
    caches.invalidate({ userId: "u1", names: ["x"], deleted: true });
    expect(caches.images.get("a")).toBeUndefined();
  });
});
