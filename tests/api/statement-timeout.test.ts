/**
 * Issue 36: every statement the app sends runs under Postgres' statement_timeout
 * (DATABASE_STATEMENT_TIMEOUT_MS, here 1 s), so a long one is cancelled: the request answers a
 * clean 503 JSON (no hung request, nothing half written), and nothing it started is still
 * running on the server a moment later, also when the client hung up first. Postgres only:
 * PGlite has no timer to cancel a statement with (SECURITY.md "Bounds on work per request").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { STATEMENT_TIMEOUT_MESSAGE } from "../../api/lib/http";
import { createTestDatabase, type TestDatabase, usingPostgres } from "../support/db";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser } from "../support/users";

const TIMEOUT_MS = 1000;
/** How long a cancelled statement may take to go: the timeout and a margin for a loaded machine. */
const GONE_WITHIN_MS = TIMEOUT_MS + 2000;

describe.skipIf(!usingPostgres())("statement_timeout (Postgres)", () => {
  let database: TestDatabase;
  let api: TestApi;
  let admin: postgres.Sql;
  let user: ApiUser;
  let supplementId: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    api = await startApi({ DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS) }, { database });
    admin = postgres(database.env.DATABASE_URL as string, { max: 2, onnotice: () => {} });
    user = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const res = await api.fetch("/api/supplements", {
      method: "POST",
      headers: { cookie: user.cookie },
      body: { name: "X", quantityType: "Capsule(s)", frequency: "daily" },
    });
    supplementId = ((await res.json()) as { id: number }).id;
  });
  afterAll(async () => {
    resetClock();
    await admin?.end({ timeout: 1 });
    await api?.close();
  });

  /** The app's statements still running on the server. */
  const running = async () =>
    Number(
      (
        await admin<{ n: number }[]>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and application_name = 'stacktrack' and state = 'active'`
      )[0]?.n,
    );

  /** Holds an ACCESS EXCLUSIVE lock on `table` while `run` goes: every statement touching it waits. */
  async function whileLocked<T>(table: string, run: () => Promise<T>): Promise<T> {
    const holder = await admin.reserve();
    try {
      await holder`begin`;
      await holder.unsafe(`lock table ${table} in access exclusive mode`);
      return await run();
    } finally {
      await holder`rollback`;
      holder.release();
    }
  }

  test("a statement through the app's own client is cancelled at the timeout", async () => {
    const started = performance.now();
    const error = await api.ctx.database.db.execute(sql`select pg_sleep(10)`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeNull();
    expect(performance.now() - started).toBeLessThan(GONE_WITHIN_MS);
    expect(await running()).toBe(0);
  });

  const requests = [
    ["GET /api/history", "schedule_versions", "/api/history?from=2026-01-01&to=2026-11-23", "GET"],
    ["GET /api/today", "schedule_versions", "/api/today?date=2026-11-22", "GET"],
    ["PUT an intake", "schedule_versions", "/api/intakes/2026-11-23/{id}/anytime", "PUT"],
    ["GET /api/supplements/{id}", "supplements", "/api/supplements/{id}", "GET"],
  ] as const;

  test.each(requests)(
    "%s waiting on a lock answers 503 JSON at the timeout, nothing left running",
    async (_name, table, path, method) => {
      const started = performance.now();
      const res = await whileLocked(table, async () => {
        const answer = await api.fetch(path.replace("{id}", String(supplementId)), {
          method,
          headers: { cookie: user.cookie },
          body: method === "PUT" ? { status: "taken" } : undefined,
          signal: AbortSignal.timeout(GONE_WITHIN_MS + 3000),
        });
        expect(await running()).toBe(0);
        return answer;
      });
      expect(performance.now() - started).toBeLessThan(GONE_WITHIN_MS);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBeNull();
      expect(await res.json()).toEqual({ message: STATEMENT_TIMEOUT_MESSAGE });
      const written = await admin`select 1 from intakes where supplement_id = ${supplementId}`;
      expect(written.length).toBe(0);
    },
  );

  test("a request the client hung up on leaves nothing running past the timeout", async () => {
    await whileLocked("schedule_versions", async () => {
      const gone = api
        .fetch("/api/history?from=2026-01-01&to=2026-11-23", {
          headers: { cookie: user.cookie },
          signal: AbortSignal.timeout(200),
        })
        .catch(() => null);
      expect(await gone).toBeNull();
      expect(await running()).toBe(1);
      await Bun.sleep(GONE_WITHIN_MS);
      expect(await running()).toBe(0);
    });
  });
});
