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
import { sql } from "drizzle-orm";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { createTestDatabase, usingPostgres } from "../support/db";
import { startApi, type TestApi } from "../support/server";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";

let api: TestApi | undefined;
let proxy: TcpProxy | undefined;

afterEach(async () => {
  resetClock();
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

describe("GET /api/health and the reminder loop (issue 45)", () => {
  const T = Date.parse("2026-06-01T06:00:00Z");
  const MIN = 60_000;
  /** Asks until the answer's status is `want` (a round of the loop may have to pass first). */
  async function until(api: TestApi, want: string) {
    let got = await health(api);
    for (let i = 0; i < 100 && got.body.status !== want; i++) {
      await Bun.sleep(50);
      got = await health(api);
    }
    return got;
  }

  test.each([
    // [what, REMINDER_TICK_MS, rounds fail, minutes later, status]
    ["loop off: ok, however long", "0", false, 60, "ok"],
    ["loop on, not yet a round, 4 minutes after the start: ok", "600000", false, 4, "ok"],
    ["loop on, no round finished in 5 minutes: degraded", "600000", false, 5, "degraded"],
    ["loop on, rounds finishing: ok an hour later", "20", false, 60, "ok"],
    ["loop on, every round failing for 6 minutes: degraded", "20", true, 6, "degraded"],
  ] as const)("%s", async (_, tick, failing, minutes, status) => {
    const move = freezeClock(T);
    api = await startApi({ REMINDER_TICK_MS: tick });
    const db = api.ctx.database.db;
    if (failing) await db.execute(sql`alter table reminder_outbox rename to reminder_outbox_away`);
    await Bun.sleep(100); // rounds in flight end (failing ones fail)
    move(T + minutes * MIN);
    const answer = await until(api, status);
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe(status);
    if (status === "degraded") {
      expect(answer.body.database).toBe("up");
      expect(String(answer.body.message)).toMatch(/^The reminder loop has not finished a round/);
    }
    if (failing) {
      // Back to normal: the next round finishes, and the instance is ok again.
      await db.execute(sql`alter table reminder_outbox_away rename to reminder_outbox`);
      const again = await until(api, "ok");
      expect([again.status, again.body.status]).toEqual([200, "ok"]);
    }
  });
});
