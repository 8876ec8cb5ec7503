/**
 * After an outage, no connection of the old pool serves a later request (db/client.ts
 * `recover`, server/database-trouble.ts). postgres.js can leave a pooled connection stuck
 * across a restart, its queries never sent; tests/api/faults.test.ts saw requests wait on one
 * after recovery. Here a TCP proxy between the pool and a real Postgres plays the network:
 * it leaves its open connections hanging (bytes go nowhere, nothing is closed) and refuses
 * new ones (closed at once, as a server that is starting up does), then lets new ones through.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { type Database, openDatabase } from "../../db/client";
import { postgresDatabase, skipWithoutPostgres } from "../support/pg-cluster";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";

/** The promise's outcome, or "pending" when it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<"answered" | "failed" | "pending"> {
  return Promise.race([
    promise.then(
      () => "answered" as const,
      () => "failed" as const,
    ),
    Bun.sleep(ms).then(() => "pending" as const),
  ]);
}

describe.skipIf(skipWithoutPostgres("pool-recovery.test.ts"))("the pool after an outage (Postgres)", () => {
  let server: Awaited<ReturnType<typeof postgresDatabase>>;
  let proxy: TcpProxy;
  let database: Database;

  beforeAll(async () => {
    server = await postgresDatabase();
    const url = new URL(server.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
    url.hostname = proxy.host;
    url.port = String(proxy.port);
    database = await openDatabase({ url: url.toString(), dataDir: ":memory:", poolSize: 4 });
  }, 90_000);

  afterAll(async () => {
    await database?.close().catch(() => {});
    proxy?.stop();
    await server?.release();
  });

  // Drizzle's query promises run their query again on every `then`: one real promise each.
  const selectOne = () => Promise.resolve(database.db.execute(sql`select 1 as one`));

  test("while the server refuses connections, recover() says so and replaces nothing; a stuck pool is replaced once it answers", async () => {
    // Every connection of the pool open and used.
    await Promise.all(Array.from({ length: 8 }, selectOne));

    // The outage: the pool's connections hang, new ones are refused.
    proxy.hang();
    const stuck = Array.from({ length: 4 }, selectOne);
    for (const query of stuck) expect(await within(query, 300)).toBe("pending");
    expect(await database.recover?.(500)).toBe(false);
    expect(await within(selectOne(), 300)).toBe("pending"); // still the old, stuck pool

    // The server answers again: the old pool's connections are still stuck.
    proxy.restore();
    expect(await within(selectOne(), 500)).toBe("pending");
    expect(await database.recover?.(2000)).toBe(true);

    // Every later query goes to a fresh pool and is answered at once.
    for (let i = 0; i < 3; i++) {
      const results = await Promise.all(Array.from({ length: 8 }, () => within(selectOne(), 2000)));
      expect(results).toEqual(Array(8).fill("answered"));
    }
    // The stuck queries end when the old pool's grace (5 s) is over: failed, not hanging for ever.
    const ended = await Promise.all(stuck.map((query) => within(query, 8000)));
    expect(ended).toEqual(Array(4).fill("failed"));
  }, 30_000);

  test("recover() on a healthy pool lets its queries finish", async () => {
    const running = Promise.resolve(database.db.execute(sql`select pg_sleep(0.5), 1 as one`));
    expect(await database.recover?.(2000)).toBe(true);
    expect(await within(running, 4000)).toBe("answered");
    expect(await within(selectOne(), 2000)).toBe("answered");
  }, 15_000);
});
