/**
 * GET /api/health: 200 while the database answers, 503 with a message when it does not,
 * and 200 again once it is back, without restarting the app.
 *
 * The outage is real on Postgres: the app reaches the server through a TCP proxy that
 * the test cuts and restores. PGlite lives inside the process and cannot come back once
 * closed, so there only the "down" answer is checked; the recovery test needs
 * TEST_DATABASE_URL (CI sets it).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createTestDatabase, usingPostgres } from "../support/db";
import { startApi, type TestApi } from "../support/server";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";

let api: TestApi | undefined;
let proxy: TcpProxy | undefined;

afterEach(async () => {
  await api?.close();
  proxy?.stop();
  api = undefined;
  proxy = undefined;
});

async function health(api: TestApi) {
  const res = await api.fetch("/api/health");
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, headers: res.headers };
}

describe("GET /api/health", () => {
  test("answers 200 {status: 'ok'} when the database is up", async () => {
    api = await startApi();
    const { status, body, headers } = await health(api);
    expect(status).toBe(200);
    expect(body.status).toBe("ok");
    expect(headers.get("content-type")).toContain("application/json");
    expect(headers.get("cache-control")).toBe("no-store");
  });

  test.skipIf(usingPostgres())("PGlite: answers 503 JSON with a message once the database is closed", async () => {
    api = await startApi();
    expect((await health(api)).status).toBe(200);
    await api.ctx.database.close();
    const { status, body } = await health(api);
    expect(status).toBe(503);
    expect(body.status).not.toBe("ok");
    expect(typeof body.message).toBe("string");
    expect(String(body.message).length).toBeGreaterThan(0);
  });

  test.skipIf(!usingPostgres())(
    "Postgres: 503 with a message while the database is unreachable, 200 again when it is back",
    async () => {
      const database = await createTestDatabase();
      const direct = new URL(database.env.DATABASE_URL as string);
      proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      const viaProxy = new URL(direct);
      viaProxy.hostname = proxy.host;
      viaProxy.port = String(proxy.port);
      api = await startApi({ DATABASE_URL: viaProxy.toString() }, { database });

      const up = await health(api);
      expect(up.status).toBe(200);
      expect(up.body.status).toBe("ok");
      expect(proxy.connections).toBeGreaterThan(0); // the app really goes through the proxy

      proxy.cut();
      const started = performance.now();
      const down = await health(api);
      expect(down.status).toBe(503);
      expect(down.headers.get("content-type")).toContain("application/json");
      expect(typeof down.body.message).toBe("string");
      expect(String(down.body.message).length).toBeGreaterThan(0);
      expect(performance.now() - started).toBeLessThan(5000); // answers, does not hang
      // Still down on a second look (no lucky cached answer).
      expect((await health(api)).status).toBe(503);

      proxy.restore();
      let again = await health(api);
      for (let i = 0; i < 20 && again.status !== 200; i++) {
        await Bun.sleep(100);
        again = await health(api);
      }
      expect(again.status).toBe(200);
      expect(again.body.status).toBe("ok");
    },
  );
});
