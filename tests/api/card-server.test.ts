/**
 * Issue 16: the social card through the built server (server.ts), where a card the instance
 * holds is answered by the host's response cache (server/cache.ts, like an avatar). A warm
 * answer must be the cold one exactly: status, every header (the security headers included)
 * and bytes; HEAD without a body; 304 on If-None-Match; and an old version, a missing name or
 * a malformed version still go to the routes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServerProcess, skipWithoutBuild, startServer } from "../support/process";
import { type ApiRequestInit, buildRequest, type TestApi } from "../support/server";
import { type ApiUser, createUser, uniqueName } from "../support/users";

const skip = skipWithoutBuild("card-server.test.ts");

/** Every header but Date, sorted: what two answers must share. */
const headersOf = (res: Response) =>
  [...res.headers.entries()].filter(([k]) => k !== "date").sort(([a], [b]) => a.localeCompare(b));

describe.skipIf(skip)("the social card through server.ts", () => {
  let dir: string;
  let server: ServerProcess;
  let api: TestApi;
  let user: ApiUser;
  let name: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "card-server-"));
    server = await startServer({ DATA_DIR: join(dir, "data") });
    const url = server.url;
    // Only fetch is used here (createUser without premium never touches ctx).
    api = {
      url,
      origin: url,
      ctx: undefined as unknown as TestApi["ctx"],
      fetch: (path: string, init?: ApiRequestInit) => fetch(buildRequest(url, url, path, init)),
      close: async () => {},
    };
    name = uniqueName("srv");
    user = await createUser(api, { username: name });
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const cardUrl = async () => {
    const page = await (await api.fetch(`/${name}`)).text();
    const image = /<meta property="og:image" content="([^"]+)"/.exec(page)?.[1];
    expect(image).toMatch(/\/og\/[^/]+\/[A-Za-z0-9_-]{16}\.png$/);
    return new URL(image as string).pathname;
  };

  test("a warm card is the cold answer exactly; HEAD has no body; If-None-Match is a 304", async () => {
    const path = await cardUrl();
    const cold = await api.fetch(path);
    expect([cold.status, cold.headers.get("content-type")]).toEqual([200, "image/png"]);
    const coldBody = Buffer.from(await cold.arrayBuffer());
    const etag = cold.headers.get("etag");
    expect(etag).toBe(`"${path.slice(-20, -4)}"`);
    expect(cold.headers.get("content-security-policy")).toBeTruthy();
    for (let i = 0; i < 3; i++) {
      const warm = await api.fetch(path);
      expect([warm.status, headersOf(warm)]).toEqual([200, headersOf(cold)]);
      expect(Buffer.from(await warm.arrayBuffer()).equals(coldBody)).toBe(true);
    }
    const head = await api.fetch(path, { method: "HEAD" });
    expect([head.status, head.headers.get("etag"), (await head.arrayBuffer()).byteLength]).toEqual([200, etag, 0]);
    const variants = [
      { ifNoneMatch: etag as string, status: 304, bytes: 0 },
      { ifNoneMatch: '"AAAAAAAAAAAAAAAA"', status: 200, bytes: coldBody.byteLength },
      { ifNoneMatch: `W/${etag}`, status: 200, bytes: coldBody.byteLength },
    ];
    for (const v of variants) {
      const res = await api.fetch(path, { headers: { "if-none-match": v.ifNoneMatch } });
      const bytes = (await res.arrayBuffer()).byteLength;
      expect([v.ifNoneMatch, res.status, bytes]).toEqual([v.ifNoneMatch, v.status, v.bytes]);
      expect(res.headers.get("etag")).toBe(etag);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    }
  });

  test("after an edit: the old URL keeps its picture, the new one is served; others are 404", async () => {
    const before = await cardUrl();
    const old = Buffer.from(await (await api.fetch(before)).arrayBuffer());
    const edit = await api.fetch("/api/profile", {
      method: "PUT",
      body: { bio: "Edited" },
      headers: { cookie: user.cookie },
    });
    expect(edit.status).toBe(200);
    const after = await cardUrl();
    expect(after).not.toBe(before);
    for (let i = 0; i < 2; i++) {
      const [a, b] = await Promise.all([api.fetch(before), api.fetch(after)]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const [oldAgain, fresh] = [Buffer.from(await a.arrayBuffer()), Buffer.from(await b.arrayBuffer())];
      expect([oldAgain.equals(old), fresh.equals(old)]).toEqual([true, false]);
    }
    const version = after.slice(-20, -4);
    for (const path of [
      `/og/nobody_here_xyz/${version}.png`,
      `/og/admin/${version}.png`,
      `/og/${name}/AAAAAAAAAAAAAAAA.png`,
      `/og/${name}/${version}.webp`,
    ]) {
      for (let i = 0; i < 2; i++) expect([path, (await api.fetch(path)).status]).toEqual([path, 404]);
    }
  });
});
