/**
 * What every API call shares: JSON 404s, the origin rule for state-changing requests,
 * and the security headers the real server adds to every response.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { type ServerProcess, skipWithoutBuild, startServer } from "../support/process";
import { startApi, type TestApi } from "../support/server";

describe("API basics (in-process app over HTTP)", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(async () => {
    await api.close();
  });

  test("an unknown /api path answers 404 JSON with a message", async () => {
    const res = await api.fetch("/api/nope");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = (await res.json()) as { message?: unknown };
    expect(typeof body.message).toBe("string");
  });

  test("a POST from another origin is refused with 403 JSON", async () => {
    const res = await api.fetch("/api/health", { method: "POST", origin: "https://evil.example", body: {} });
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(typeof ((await res.json()) as { message?: unknown }).message).toBe("string");
  });

  test("a POST without an Origin header is refused with 403 JSON", async () => {
    const res = await api.fetch("/api/health", { method: "POST", origin: null, body: {} });
    expect(res.status).toBe(403);
    expect(typeof ((await res.json()) as { message?: unknown }).message).toBe("string");
  });

  test("the same POST from the site's own origin passes the origin check (no route: 404, not 403)", async () => {
    const res = await api.fetch("/api/health", { method: "POST", body: {} });
    expect(res.status).toBe(404);
  });

  test("GET needs no Origin header", async () => {
    const res = await api.fetch("/api/health", { origin: null });
    expect(res.status).toBe(200);
  });
});

describe.skipIf(skipWithoutBuild("platform.test.ts: security headers from the real server"))(
  "security headers from the real server (bun server.ts)",
  () => {
    let database: TestDatabase;
    let server: ServerProcess;
    beforeAll(async () => {
      database = await createTestDatabase({ pgliteDir: true });
      server = await startServer(database.env);
    }, 40_000);
    afterAll(async () => {
      await server?.stop();
      await database?.drop();
    });

    // [name, path, init, is an API response]
    const cases: [string, string, RequestInit, boolean][] = [
      ["GET /api/health (200)", "/api/health", {}, true],
      ["GET /api/nope (404)", "/api/nope", {}, true],
      [
        "POST /api/health from another origin (403)",
        "/api/health",
        { method: "POST", headers: { Origin: "https://evil.example" } },
        true,
      ],
      ["GET / (a page)", "/", {}, false],
    ];

    for (const [name, path, init, api] of cases) {
      test(name, async () => {
        const res = await fetch(`${server.url}${path}`, { ...init, redirect: "manual" });
        await res.arrayBuffer();
        const csp = res.headers.get("content-security-policy") ?? "";
        expect(csp).toContain("frame-ancestors 'none'");
        // An API answer is data, never a document: it may load nothing.
        if (api) expect(csp).toMatch(/(^|;)\s*default-src '(none|self)'/);
        expect(res.headers.get("x-content-type-options")).toBe("nosniff");
        expect(res.headers.get("referrer-policy")).toBeTruthy();
      });
    }
  },
);
