/**
 * The host's response cache (server/cache.ts) on a table of answers a route gives: what is
 * kept, what never is, that the keep declaration never reaches a client, and that a change
 * to a tag drops the entry.
 */
import { describe, expect, test } from "bun:test";
import { Caches, KEEP_HEADER, kept } from "../../api/lib/cache";
import type { AppContext, HostEnv } from "../../api/lib/types";
import { responseCache } from "../../server/cache";

const env = { clientAddress: () => undefined } as unknown as HostEnv;

/** A cache in front of a route that answers `make()` and counts how often it is asked. */
function front(make: () => Response) {
  const caches = new Caches();
  const cached = responseCache({ caches } as AppContext);
  let asked = 0;
  const route = () => {
    asked++;
    return make();
  };
  const fetch = async (method = "GET", headers: Record<string, string> = {}) =>
    cached(new Request("http://x/p", { method, headers }), "/p", env, route);
  return { caches, fetch, asked: () => asked };
}

const keep = { tags: ["u:1"] };

describe("the host's response cache", () => {
  test.each([
    ["a 200", true, () => kept(new Response("hi"), keep)],
    ["a 302", true, () => kept(new Response(null, { status: 302, headers: { location: "https://x.example/" } }), keep)],
    ["a 404", true, () => kept(Response.json({ message: "Not found" }, { status: 404 }), keep)],
    ["a 500", false, () => kept(new Response("oops", { status: 500 }), keep)],
    ["a 429", false, () => kept(new Response("slow", { status: 429 }), keep)],
    ["an answer with Set-Cookie", false, () => kept(new Response("hi", { headers: { "set-cookie": "a=b" } }), keep)],
    ["an answer not declared", false, () => new Response("hi")],
  ])("%s: kept %p; the declaration never reaches the client", async (_label, keptIt, make) => {
    const cache = front(make);
    for (const method of ["HEAD", "GET", "GET", "POST"]) {
      const res = await cache.fetch(method);
      expect([method, res.headers.has(KEEP_HEADER)]).toEqual([method, false]);
    }
    // HEAD (cold), GET (fills), GET (from memory if kept), POST (never from memory).
    expect(cache.asked()).toBe(keptIt ? 3 : 4);
  });

  test("a kept answer: its ETag answers 304, HEAD has no body, a drop of its tag sends the next GET to the route", async () => {
    const cache = front(() => kept(new Response("hello"), keep));
    const first = await cache.fetch();
    const etag = first.headers.get("etag") ?? "";
    expect([first.status, await first.text(), etag !== ""]).toEqual([200, "hello", true]);
    const again = await cache.fetch("GET", { "if-none-match": etag });
    expect([again.status, await again.text()]).toEqual([304, ""]);
    const head = await cache.fetch("HEAD");
    expect([head.status, await head.text(), head.headers.get("content-length")]).toEqual([200, "", "5"]);
    expect(cache.asked()).toBe(1);
    cache.caches.applyNotification(JSON.stringify({ u: "1" }));
    await cache.fetch();
    expect(cache.asked()).toBe(2);
  });
});
