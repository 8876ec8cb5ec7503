/**
 * GET /api/profile/{name} answered from memory by server.ts (api/profile.ts heldProfileJson,
 * issue 17) against the same request answered by the Hono route: the same status, bytes and
 * headers, HEAD and If-None-Match, and one per-address limit (300 a minute) whichever path a
 * request took. The real `bun server.ts` (the fast path lives there), rate limits on, behind
 * a proxy (TRUST_PROXY: each test is its own address).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { supplements, users } from "../../db/schema";
import { COMMON_MESSAGES, PROFILE_MESSAGES } from "../../src/lib/messages";
import { createTestDatabase, seedTestDatabase, type TestDatabase } from "../support/db";
import { type ServerProcess, skipWithoutBuild, startServer } from "../support/process";

const LIMIT = 300;

describe.skipIf(skipWithoutBuild("the held profile JSON suite"))("GET /api/profile/{name} from memory", () => {
  let database: TestDatabase;
  let server: ServerProcess;

  beforeAll(async () => {
    database = await createTestDatabase({ pgliteDir: true });
    await seedTestDatabase(database, async (db) => {
      await db.insert(users).values({
        id: "held-owner",
        name: "Held Owner",
        email: "held-owner@example.com",
        username: "Held_Owner",
        bio: "Morning stack",
      });
      await db.insert(supplements).values([
        { userId: "held-owner", name: "Zinc", quantityType: "Tablet(s)", frequency: "daily", sortOrder: 0 },
        { userId: "held-owner", name: "Magnesium", quantityType: "Capsule(s)", frequency: "at night", sortOrder: 1 },
      ]);
    });
    server = await startServer({ ...database.env, RATE_LIMIT: "on", TRUST_PROXY: "true" });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  let addresses = 0;
  /** A visitor of its own (RFC 5737 documentation range). */
  const visitor = () => `192.0.2.${++addresses}`;
  const get = (path: string, address: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
    fetch(`${server.url}${path}`, {
      method: init.method ?? "GET",
      headers: { "x-forwarded-for": address, ...init.headers },
    });
  /** Headers as a sorted list, without the ones that differ between two answers (the date). */
  const headersOf = (res: Response) =>
    [...res.headers].filter(([name]) => name !== "date").sort(([a], [b]) => (a < b ? -1 : 1));
  /** Waits, when the minute's limit window ends within 15 s, for the next one (a count must not straddle two). */
  const awayFromWindowEnd = async () => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 15_000) await Bun.sleep(left + 50);
  };

  test.each([
    ["a profile", "/api/profile/held_owner", 200],
    ["a profile, in another case", "/api/profile/HELD_OWNER", 200],
    ["a missing profile", "/api/profile/nobody_held_here", 404],
  ])("%s: the held answer is the route's answer, byte for byte", async (_, path, status) => {
    const address = visitor();
    const first = await get(path, address); // not held yet: the Hono route answers and keeps it
    const firstBody = await first.text();
    const second = await get(path, address);
    const secondBody = await second.text();
    expect(first.status).toBe(status);
    expect(second.status).toBe(status);
    expect(secondBody).toBe(firstBody);
    expect(headersOf(second)).toEqual(headersOf(first));
    const body = JSON.parse(secondBody) as { user?: { username: string }; message?: string };
    if (status === 200) expect(body.user?.username).toBe("Held_Owner");
    else expect(body).toEqual({ message: PROFILE_MESSAGES.notFound });

    const head = await get(path, address, { method: "HEAD" });
    expect(head.status).toBe(status);
    expect(await head.text()).toBe("");
    const etag = second.headers.get("etag") ?? "";
    expect(etag).not.toBe("");
    const revalidated = await get(path, address, { headers: { "if-none-match": etag } });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe("");
    expect(revalidated.headers.get("etag")).toBe(etag);
  });

  test.each([
    ["every request held", 0],
    ["the first request through the route (not held), the rest held", 1],
  ])("the limit counts each request once: %s", async (_, viaRoute) => {
    await awayFromWindowEnd();
    const address = visitor();
    // A name nobody asked for yet, for the request that must reach the route.
    const path = viaRoute ? `/api/profile/limit_${addresses}` : "/api/profile/held_owner";
    if (!viaRoute) expect((await get(path, visitor())).status).toBe(200); // held from here on, by another address
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) statuses.push((await get(path, address)).status);
    expect(new Set(statuses)).toEqual(new Set([viaRoute ? 404 : 200]));
    const refused = await get(path, address);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ message: COMMON_MESSAGES.tooManyRequests });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Another visitor is not held back.
    expect((await get(path, visitor())).status).toBe(viaRoute ? 404 : 200);
  });
});
