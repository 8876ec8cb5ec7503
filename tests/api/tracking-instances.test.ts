/**
 * Tracking across instances (issue 19): two built servers on one Postgres. GET /api/today is
 * served from each instance's memory; a tick on A, or a row written behind the app's back
 * (psql), must show on B's Today within a second, through migration 0007's notifications.
 * Separate processes: the clock cannot be frozen, so the real today (UTC, no zone set) is used.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Database, openDatabase } from "../../db/client";
import { intakes } from "../../db/schema";
import { dateIn } from "../../src/lib/dates";
import type { TodayJson } from "../../src/lib/schedule";
import { type Instance, startInstance } from "../support/instances";
import { postgresDatabase, skipWithoutPostgres } from "../support/pg-cluster";
import { skipWithoutBuild } from "../support/process";

const ORIGIN = "http://stacktrack.test";
const skip =
  skipWithoutBuild("tracking-instances.test.ts") || skipWithoutPostgres("the tracking tests across instances");

describe.skipIf(skip)("tracking on two instances", () => {
  let pg: Awaited<ReturnType<typeof postgresDatabase>>;
  let a: Instance;
  let b: Instance;
  let direct: Database;

  beforeAll(async () => {
    pg = await postgresDatabase();
    const env = {
      DATABASE_URL: pg.url,
      PUBLIC_ORIGIN: ORIGIN,
      BETTER_AUTH_SECRET: "one-secret-shared-by-every-instance-0123456789",
      RATE_LIMIT: "off",
    };
    [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
    direct = await openDatabase({ url: pg.url, dataDir: ":memory:", poolSize: 2 });
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await direct?.close();
    await pg?.release();
  });

  const call = (on: Instance, path: string, init: { method?: string; body?: unknown; cookie?: string } = {}) =>
    fetch(`${on.url}${path}`, {
      method: init.method ?? "GET",
      headers: {
        origin: ORIGIN,
        ...(init.cookie ? { cookie: init.cookie } : {}),
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  async function signUp(): Promise<{ id: string; cookie: string }> {
    const res = await call(a, "/api/auth/sign-up/email", {
      method: "POST",
      body: {
        email: `track-${crypto.randomUUID().slice(0, 8)}@example.com`,
        password: "correct horse battery",
        name: "T",
      },
    });
    expect(res.status).toBe(200);
    const { user } = (await res.json()) as { user: { id: string } };
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    return { id: user.id, cookie };
  }

  /** Polls B's Today (served from B's memory once warm) until `done`, for up to a second. */
  async function seenOnB(cookie: string, done: (day: TodayJson) => boolean): Promise<number> {
    const at = performance.now();
    while (performance.now() - at < 1000) {
      const day = (await (await call(b, "/api/today", { cookie })).json()) as TodayJson;
      if (done(day)) return performance.now() - at;
      await Bun.sleep(20);
    }
    return Number.POSITIVE_INFINITY;
  }

  test("a tick on A, then an undo on A, show on B's cached Today within a second", async () => {
    const user = await signUp();
    const created = await call(a, "/api/supplements", {
      method: "POST",
      cookie: user.cookie,
      body: { name: "Omega 3", quantityType: "Soft Gel", frequency: "daily" },
    });
    const { id } = (await created.json()) as { id: number };
    // Warm B's cache, twice (the second is served from memory).
    for (let i = 0; i < 2; i++) {
      const day = (await (await call(b, "/api/today", { cookie: user.cookie })).json()) as TodayJson;
      expect(day.doses.map((d) => d.status)).toEqual([null]);
    }
    const date = dateIn(null, new Date());
    const put = await call(a, `/api/intakes/${date}/${id}/anytime`, {
      method: "PUT",
      cookie: user.cookie,
      body: { status: "taken" },
    });
    expect(put.status).toBe(200);
    expect(await seenOnB(user.cookie, (day) => day.doses[0]?.status === "taken")).toBeLessThan(1000);
    const undo = await call(a, `/api/intakes/${date}/${id}/anytime`, { method: "DELETE", cookie: user.cookie });
    expect(undo.status).toBe(204);
    expect(await seenOnB(user.cookie, (day) => day.doses[0]?.status === null)).toBeLessThan(1000);
  });

  test("a dose written behind the app's back (psql) shows on B's cached Today within a second", async () => {
    const user = await signUp();
    const created = await call(a, "/api/supplements", {
      method: "POST",
      cookie: user.cookie,
      body: { name: "Zinc", quantityType: "Tablet(s)", frequency: "daily" },
    });
    const { id } = (await created.json()) as { id: number };
    await call(b, "/api/today", { cookie: user.cookie });
    await call(b, "/api/today", { cookie: user.cookie });
    await direct.db.insert(intakes).values({
      userId: user.id,
      date: dateIn(null, new Date()),
      supplementId: id,
      time: "anytime",
      status: "skipped",
      name: "Zinc",
      at: new Date(),
    });
    expect(await seenOnB(user.cookie, (day) => day.summary.skipped === 1)).toBeLessThan(1000);
  });
});
