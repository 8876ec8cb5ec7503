/**
 * Issue 17: avatars served from memory (the host's response cache, server/cache.ts).
 * - once an image has been read, GET, HEAD and a matching If-None-Match cost no SQL statement;
 * - a cold conditional request for a stored id is a 304 (after reading it), an unknown id a 404
 *   whatever If-None-Match says; the ETag is the id, strong (no W/);
 * - every way an image is deleted (avatar replaced, cleared, an unused upload cleaned up, the
 *   account deleted) stops it being served at once, warm or not;
 * - an edit that leaves the avatar in place (the profile, a supplement added, edited, reordered
 *   or deleted) keeps it warm, on this instance and once every change notification is applied;
 * - IMAGE_CACHE_MB=0 keeps nothing (each request reads Postgres) and still serves.
 * Two instances: tests/api/instances.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { images } from "../../db/schema";
import { notificationBarrier } from "../support/notifications";
import { type QueryLoggingApi, startApiWithQueryLog } from "../support/query-log";
import { type ApiUser, createUser, setAvatar as saveAvatar, uniqueName, uploadAvatar } from "../support/users";

let api: QueryLoggingApi;
beforeAll(async () => {
  api = await startApiWithQueryLog();
});
afterAll(async () => {
  await api.close();
});

let shade = 0;
/** A colour no other upload in this file has (far apart: WebP would make near ones the same bytes). */
const colour = () => ({ r: (++shade * 53) % 256, g: (shade * 97) % 256, b: 90 });

const upload = (who: ApiUser) => uploadAvatar(api, who, colour(), 48);
const setAvatar = (who: ApiUser, url: string) => saveAvatar(api, who, url);

/** Status, and the statements the request sent. */
async function get(path: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  api.queries.length = 0;
  const res = await api.fetch(path, { method: init.method ?? "GET", headers: init.headers ?? {} });
  const body = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body, statements: api.queries.length };
}

/**
 * The statements of a GET once `url` is warm. Saving an avatar changes the user's row, whose
 * change notification drops the user's cached images when it arrives, asynchronously: it can
 * land after the first GET has filled the cache (a CI run saw 1 statement here). So the image
 * is asked for again, a few times at most, until the notification has been applied; a cache
 * that never keeps it answers 1 every time.
 */
async function warmStatements(url: string): Promise<number> {
  let statements = Number.NaN;
  for (let attempt = 0; attempt < 10; attempt++) {
    statements = (await get(url)).statements;
    if (statements === 0) break;
    await Bun.sleep(50);
  }
  return statements;
}

describe("warm avatars cost no statement", () => {
  let owner: ApiUser;
  let url: string;
  beforeAll(async () => {
    owner = await createUser(api, { username: uniqueName("img") });
    url = await upload(owner);
    await setAvatar(owner, url);
  });

  test("the first GET reads Postgres once; then GET, HEAD and If-None-Match read nothing", async () => {
    const id = url.slice("/images/".length, -".webp".length);
    const [row] = await api.ctx.database.db.select({ data: images.data }).from(images).where(eq(images.id, id));
    api.ctx.caches.images.clear();

    const cold = await get(url);
    expect(cold.status).toBe(200);
    expect(cold.statements).toBeGreaterThan(0);
    expect(cold.body).toEqual(new Uint8Array(row?.data ?? []));

    const variants = [
      { name: "GET", init: {}, status: 200 },
      { name: "HEAD", init: { method: "HEAD" }, status: 200 },
      { name: "If-None-Match", init: { headers: { "if-none-match": `"${id}"` } }, status: 304 },
      { name: "another ETag", init: { headers: { "if-none-match": '"other"' } }, status: 200 },
    ];
    for (const variant of variants) {
      const warm = await get(url, variant.init);
      expect({ variant: variant.name, status: warm.status, statements: warm.statements }).toEqual({
        variant: variant.name,
        status: variant.status,
        statements: 0,
      });
      expect(warm.headers.get("etag")).toBe(`"${id}"`);
      expect(warm.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      if (variant.status === 200) {
        expect(warm.headers.get("content-type")).toBe("image/webp");
        expect(warm.headers.get("content-length")).toBe(String(cold.body.byteLength));
        expect(warm.body.byteLength).toBe(variant.name === "HEAD" ? 0 : cold.body.byteLength);
      } else expect(warm.body.byteLength).toBe(0);
    }
  });

  test("a cold conditional request for a stored id is a 304; an unknown id is a 404, ETag or not", async () => {
    const id = url.slice("/images/".length, -".webp".length);
    api.ctx.caches.images.clear();
    const cold = await get(url, { headers: { "if-none-match": `"${id}"` } });
    expect(cold.status).toBe(304);
    expect(cold.statements).toBeGreaterThan(0);
    expect((await get(url, { headers: { "if-none-match": `"${id}"` } })).statements).toBe(0);

    const unknown = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    const conditions: Record<string, string>[] = [{}, { "if-none-match": `"${unknown}"` }];
    for (const headers of conditions) {
      expect((await get(`/images/${unknown}.webp`, { headers })).status).toBe(404);
    }
  });
});

describe("edits that leave the avatar in place keep it warm", () => {
  /** Resolves once this instance has applied every change notification sent before the call. */
  let notificationsApplied: () => Promise<void>;
  beforeAll(async () => {
    notificationsApplied = await notificationBarrier(api.ctx.database);
  });

  const json = (who: ApiUser, method: string, path: string, body?: Record<string, unknown>) =>
    api.fetch(path, { method, headers: { cookie: who.cookie }, body });

  test("a profile edit and supplements added, edited, reordered and deleted: the next GET reads nothing", async () => {
    const who = await createUser(api, { username: uniqueName("warm") });
    const url = await upload(who);
    await setAvatar(who, url);
    expect(await warmStatements(url)).toBe(0);

    const supplement = (name: string) => ({ name, quantityType: "Other", frequency: "daily" });
    const ids: number[] = [];
    const edits: [string, () => Promise<Response>][] = [
      ["bio edited", () => json(who, "PUT", "/api/profile", { bio: "Still the same face" })],
      ["supplement added", () => json(who, "POST", "/api/supplements", supplement("Zinc"))],
      ["another added", () => json(who, "POST", "/api/supplements", supplement("Iron"))],
      ["supplement edited", () => json(who, "PUT", `/api/supplements/${ids[0]}`, supplement("Zinc 15 mg"))],
      ["reordered", () => json(who, "PUT", "/api/supplements/reorder", { supplementIds: [ids[1], ids[0]] })],
      ["supplement deleted", () => json(who, "DELETE", `/api/supplements/${ids[1]}`)],
    ];
    for (const [what, edit] of edits) {
      const res = await edit();
      if (res.status === 201) ids.push(((await res.json()) as { id: number }).id);
      expect({ what, ok: res.ok }).toEqual({ what, ok: true });
      await notificationsApplied();
      expect({ what, statements: (await get(url)).statements }).toEqual({ what, statements: 0 });
    }
  });
});

describe("a deleted image stops being served at once, warm or cold", () => {
  /** Makes the user's stored images older than the hour an unused upload is kept. */
  const age = (who: ApiUser) =>
    api.ctx.database.db
      .update(images)
      .set({ createdAt: new Date(Date.now() - 2 * 60 * 60 * 1000) })
      .where(eq(images.userId, who.id));

  const ways: { name: string; shown: boolean; remove: (who: ApiUser) => Promise<void> }[] = [
    { name: "the avatar is replaced", shown: true, remove: async (who) => setAvatar(who, await upload(who)) },
    { name: "the avatar is cleared", shown: true, remove: async (who) => setAvatar(who, "") },
    {
      name: "an upload never saved as the avatar is cleaned up by the next upload",
      shown: false,
      remove: async (who) => {
        await age(who);
        await upload(who);
      },
    },
    {
      name: "the account is deleted",
      shown: true,
      remove: async (who) => {
        const res = await api.fetch("/api/account", {
          method: "DELETE",
          headers: { cookie: who.cookie },
          body: { password: who.password, confirm: who.username },
        });
        expect(res.status).toBe(200);
      },
    },
  ];

  for (const way of ways) {
    test(`${way.name}: 404 on the next request`, async () => {
      const who = await createUser(api, { username: uniqueName("gone") });
      const url = await upload(who);
      if (way.shown) await setAvatar(who, url);
      expect((await get(url)).status).toBe(200);
      expect(await warmStatements(url)).toBe(0);
      await way.remove(who);
      const after = await get(url);
      expect(after.status).toBe(404);
      const id = url.slice("/images/".length, -".webp".length);
      expect((await get(url, { headers: { "if-none-match": `"${id}"` } })).status).toBe(404);
    });
  }
});

describe("IMAGE_CACHE_MB=0", () => {
  test("keeps nothing: each request reads Postgres, and is served", async () => {
    const small = await startApiWithQueryLog({ IMAGE_CACHE_MB: "0" });
    try {
      const who = await createUser(small, { username: uniqueName("nocache") });
      const imageUrl = await uploadAvatar(small, who, colour(), 48);
      for (let i = 0; i < 2; i++) {
        small.queries.length = 0;
        const res = await small.fetch(imageUrl, { headers: {} });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        expect(small.queries.length).toBe(1);
      }
      expect(small.ctx.caches.images.bytes).toBe(0);
    } finally {
      await small.close();
    }
  });
});
