/**
 * GET /api/today is served from memory (api/lib/cache.ts) and 'today' is the user's date in their
 * zone (api/lib/clock.ts, src/lib/dates.ts, which keeps a zone's last date for the second it was
 * asked in). The answer kept in memory must never outlive the user's midnight: with the clock
 * moved to the last millisecond of the day and then to midnight, in zones whose offsets are
 * not whole hours; and on two instances of the app (in this process, so they share the moved
 * clock; Postgres only, for the notifications between them), where a tick on A shows on B's
 * Today, and B moves to the new day at the user's midnight.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { freezeClock, resetClock } from "../../api/lib/clock";
import type { TodayJson } from "../../src/lib/schedule";
import { createTestDatabase, usingPostgres } from "../support/db";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser } from "../support/users";

const started: TestApi[] = [];
afterEach(() => resetClock());
afterAll(async () => {
  resetClock();
  for (const api of started.reverse()) await api.close();
});

/** The next day's local midnight (2026-11-24 00:00:00.000) in each zone, as an instant. */
const MIDNIGHTS: [string | null, string][] = [
  [null, "2026-11-24T00:00:00.000Z"], // no zone set: UTC
  ["Asia/Kathmandu", "2026-11-23T18:15:00.000Z"], // +05:45
  ["America/St_Johns", "2026-11-24T03:30:00.000Z"], // -03:30
  ["Pacific/Chatham", "2026-11-23T10:15:00.000Z"], // +13:45
];
const BEFORE = "2026-11-23";
const AFTER = "2026-11-24";

const call = (
  api: TestApi,
  user: ApiUser,
  path: string,
  init: { method?: string; body?: Record<string, unknown> } = {},
) => api.fetch(path, { method: init.method ?? "GET", body: init.body, headers: { cookie: user.cookie } });

async function todayOn(api: TestApi, user: ApiUser): Promise<TodayJson> {
  const res = await call(api, user, "/api/today");
  expect(res.status).toBe(200);
  return (await res.json()) as TodayJson;
}

const seen = (day: TodayJson) => [day.date, day.doses.map((d) => d.status)];

/** A user in `zone` with one supplement due once a day, added now. */
async function trackedUser(api: TestApi, zone: string | null) {
  const user = await createUser(api);
  if (zone)
    expect((await call(api, user, "/api/profile", { method: "PUT", body: { timeZone: zone } })).status).toBe(200);
  const created = await call(api, user, "/api/supplements", {
    method: "POST",
    body: { name: "Magnesium", quantityType: "Capsule(s)", frequency: "daily" },
  });
  expect(created.status).toBe(201);
  return { user, id: ((await created.json()) as { id: number }).id };
}

async function tick(api: TestApi, user: ApiUser, date: string, id: number, status: string) {
  const res = await call(api, user, `/api/intakes/${date}/${id}/anytime`, { method: "PUT", body: { status } });
  expect(res.status).toBe(200);
}

/** Reads B's Today until `expected` (B learns A's write from Postgres), for up to two seconds. */
async function until(api: TestApi, user: ApiUser, expected: unknown[]): Promise<unknown[]> {
  const deadline = performance.now() + 2000;
  let last = seen(await todayOn(api, user));
  while (JSON.stringify(last) !== JSON.stringify(expected) && performance.now() < deadline) {
    await Bun.sleep(10);
    last = seen(await todayOn(api, user));
  }
  return last;
}

describe("the Today answer kept in memory ends at the user's midnight", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
    started.push(api);
  }, 60_000);

  test.each(MIDNIGHTS)(
    "%p: 23:59:59.999 is still the day (from memory), 00:00:00.000 is the next",
    async (zone, at) => {
      const midnight = Date.parse(at);
      const move = freezeClock(midnight - 60_000);
      const { user, id } = await trackedUser(api, zone);
      await tick(api, user, BEFORE, id, "taken");
      for (const ms of [midnight - 60_000, midnight - 1000, midnight - 1, midnight - 1]) {
        move(ms);
        expect([ms, ...seen(await todayOn(api, user))]).toEqual([ms, BEFORE, ["taken"]]);
      }
      move(midnight);
      expect(seen(await todayOn(api, user))).toEqual([AFTER, [null]]);
      expect(seen(await todayOn(api, user))).toEqual([AFTER, [null]]);
      move(midnight + 999);
      expect(seen(await todayOn(api, user))).toEqual([AFTER, [null]]);
      // The clock put back: yesterday's answer again (the key has the date).
      move(midnight - 1);
      expect(seen(await todayOn(api, user))).toEqual([BEFORE, ["taken"]]);
    },
  );
});

describe.skipIf(!usingPostgres())("two instances, one Postgres, the clock moved across the user's midnight", () => {
  test.each(MIDNIGHTS)(
    "%p: a tick on A shows on B's Today; B moves to the new day at midnight",
    async (zone, at) => {
      const database = await createTestDatabase();
      const a = await startApi({}, { database });
      started.push(a);
      const b = await startApi({}, { database: { env: database.env, drop: async () => {} } });
      started.push(b); // closed before A, which drops the database
      const midnight = Date.parse(at);
      const move = freezeClock(midnight - 60_000);
      const { user, id } = await trackedUser(a, zone);
      // B's Today, twice: the second from B's memory.
      expect(seen(await todayOn(b, user))).toEqual([BEFORE, [null]]);
      expect(seen(await todayOn(b, user))).toEqual([BEFORE, [null]]);
      await tick(a, user, BEFORE, id, "taken");
      expect(await until(b, user, [BEFORE, ["taken"]])).toEqual([BEFORE, ["taken"]]);
      move(midnight - 1);
      expect(seen(await todayOn(b, user))).toEqual([BEFORE, ["taken"]]);
      move(midnight);
      expect(seen(await todayOn(b, user))).toEqual([AFTER, [null]]);
      await tick(a, user, AFTER, id, "skipped");
      expect(await until(b, user, [AFTER, ["skipped"]])).toEqual([AFTER, ["skipped"]]);
      move(midnight - 1);
      expect(seen(await todayOn(b, user))).toEqual([BEFORE, ["taken"]]);
    },
    60_000,
  );
});
