/**
 * Daily tracking (issue 19) on an injectable clock (api/lib/clock.ts): the issue's worked example,
 * midnight, clock-change days, far-apart zones, versions keeping the past, the 7-day window,
 * parallel ticks, other users' supplements, and signed-out requests.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, sql } from "drizzle-orm";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { databaseZones } from "../../api/profile/routes";
import { intakes, scheduleVersions, users } from "../../db/schema";
import type { HistoryJson, IntakeJson, TodayJson } from "../../src/lib/schedule";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser } from "../support/users";

let api: TestApi;

beforeAll(async () => {
  api = await startApi({}, { database: await migratedDatabase() });
});
afterAll(async () => {
  resetClock();
  await api?.close();
});
afterEach(() => resetClock());

type Init = Parameters<TestApi["fetch"]>[1];
const as = (user: ApiUser, path: string, init: Init = {}) =>
  api.fetch(path, { ...init, headers: { ...(init?.headers as Record<string, string>), cookie: user.cookie } });

async function addSupplement(user: ApiUser, body: Record<string, unknown>): Promise<number> {
  const res = await as(user, "/api/supplements", {
    method: "POST",
    body: { name: "X", quantityType: "Capsule(s)", frequency: "daily", ...body },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

async function tick(user: ApiUser, date: string, id: number, time: string, status = "taken") {
  const res = await as(user, `/api/intakes/${date}/${id}/${time}`, { method: "PUT", body: { status } });
  expect(res.status).toBe(200);
  return (await res.json()) as IntakeJson;
}

async function today(user: ApiUser, date?: string): Promise<TodayJson> {
  const res = await as(user, `/api/today${date ? `?date=${date}` : ""}`);
  expect(res.status).toBe(200);
  return (await res.json()) as TodayJson;
}

async function history(user: ApiUser, from: string, to: string): Promise<HistoryJson> {
  const res = await as(user, `/api/history?from=${from}&to=${to}`);
  expect(res.status).toBe(200);
  return (await res.json()) as HistoryJson;
}

async function setZone(user: ApiUser, timeZone: string) {
  const res = await as(user, "/api/profile", { method: "PUT", body: { timeZone } });
  expect(res.status).toBe(200);
}

const DAILY = [1, 2, 3, 4, 5, 6, 7];

describe("the worked example (UTC)", () => {
  test("Friday to Monday: 3 ÷ 5, streak 0, longest 2; fixing Sunday on Monday: 5 ÷ 5 and 3", async () => {
    const user = await createUser(api);
    const move = freezeClock("2026-11-20T08:00:00Z"); // Friday
    const x = await addSupplement(user, { schedule: { times: ["evening", "morning"], days: DAILY } });
    await tick(user, "2026-11-20", x, "morning");
    move("2026-11-21T09:00:00Z"); // Saturday
    await tick(user, "2026-11-21", x, "morning");
    await tick(user, "2026-11-21", x, "evening");
    move("2026-11-22T12:00:00Z"); // Sunday: nothing
    move("2026-11-23T07:00:00Z"); // Monday: X becomes morning only
    const put = await as(user, `/api/supplements/${x}`, {
      method: "PUT",
      body: {
        name: "X",
        quantityType: "Capsule(s)",
        frequency: "daily",
        schedule: { times: ["morning"], days: DAILY },
      },
    });
    expect(put.status).toBe(200);

    const before = await history(user, "2026-11-20", "2026-11-23");
    expect(before.days).toEqual([
      { date: "2026-11-20", due: 2, taken: 1, skipped: 0, missed: 0 },
      { date: "2026-11-21", due: 2, taken: 2, skipped: 0, missed: 0 },
      { date: "2026-11-22", due: 2, taken: 0, skipped: 0, missed: 2 },
      { date: "2026-11-23", due: 1, taken: 0, skipped: 0, missed: 0 },
    ]);
    expect(before.adherence).toBe(3 / 5);
    expect(before.currentStreak).toBe(0);
    expect(before.longestStreak).toBe(2);

    await tick(user, "2026-11-22", x, "morning");
    await tick(user, "2026-11-22", x, "evening");
    const after = await history(user, "2026-11-20", "2026-11-23");
    expect(after.adherence).toBe(1);
    expect(after.currentStreak).toBe(3);
    expect(after.longestStreak).toBe(3);
  });
});

describe("supplement schedule and amount", () => {
  test("defaults on POST, canonical order, kept by a PUT without them", async () => {
    const user = await createUser(api);
    const res = await as(user, "/api/supplements", {
      method: "POST",
      body: { name: "D", quantityType: "Tablet(s)", frequency: "daily" },
    });
    const created = (await res.json()) as { id: number; schedule: unknown; doseAmount: unknown };
    expect(created.schedule).toEqual({ times: ["anytime"], days: DAILY });
    expect(created.doseAmount).toBeNull();
    const set = await as(user, `/api/supplements/${created.id}`, {
      method: "PUT",
      body: {
        name: "D",
        quantityType: "Tablet(s)",
        frequency: "daily",
        schedule: { times: ["bedtime", "morning", "afternoon"], days: [7, 1, 3] },
        doseAmount: 0.5,
      },
    });
    expect(await set.json()).toMatchObject({
      schedule: { times: ["morning", "afternoon", "bedtime"], days: [1, 3, 7] },
      doseAmount: 0.5,
    });
    const kept = await as(user, `/api/supplements/${created.id}`, {
      method: "PUT",
      body: { name: "D2", quantityType: "Tablet(s)", frequency: "daily" },
    });
    expect(await kept.json()).toMatchObject({
      name: "D2",
      schedule: { times: ["morning", "afternoon", "bedtime"], days: [1, 3, 7] },
      doseAmount: 0.5,
    });
    const asNeeded = await as(user, `/api/supplements/${created.id}`, {
      method: "PUT",
      body: { name: "D2", quantityType: "Tablet(s)", frequency: "daily", schedule: null, doseAmount: null },
    });
    expect(await asNeeded.json()).toMatchObject({ schedule: null, doseAmount: null });
  });

  const BAD: [string, Record<string, unknown>, string][] = [
    ["times empty", { schedule: { times: [], days: DAILY } }, "schedule.times"],
    ["unknown time", { schedule: { times: ["noon"], days: DAILY } }, "schedule.times.0"],
    ["anytime combined", { schedule: { times: ["anytime", "morning"], days: DAILY } }, "schedule.times"],
    ["duplicate time", { schedule: { times: ["morning", "morning"], days: DAILY } }, "schedule.times"],
    ["times not a list", { schedule: { times: "morning", days: DAILY } }, "schedule.times"],
    ["days empty", { schedule: { times: ["morning"], days: [] } }, "schedule.days"],
    ["day 0", { schedule: { times: ["morning"], days: [0] } }, "schedule.days.0"],
    ["day 8", { schedule: { times: ["morning"], days: [8] } }, "schedule.days.0"],
    ["day 1.5", { schedule: { times: ["morning"], days: [1.5] } }, "schedule.days.0"],
    ["day as text", { schedule: { times: ["morning"], days: ["1"] } }, "schedule.days.0"],
    ["duplicate day", { schedule: { times: ["morning"], days: [1, 1] } }, "schedule.days"],
    ["days missing", { schedule: { times: ["morning"] } }, "schedule.days"],
    ["extra key", { schedule: { times: ["morning"], days: DAILY, often: 2 } }, "schedule"],
    ["schedule a string", { schedule: "daily" }, "schedule"],
    ["schedule a list", { schedule: ["morning"] }, "schedule"],
    ["amount 0", { doseAmount: 0 }, "doseAmount"],
    ["amount negative", { doseAmount: -1 }, "doseAmount"],
    ["amount over 1000", { doseAmount: 1000.01 }, "doseAmount"],
    ["three decimals", { doseAmount: 0.125 }, "doseAmount"],
    ["amount as text", { doseAmount: "2" }, "doseAmount"],
  ];
  test.each(BAD)("%s: 400 keyed %p… on POST and PUT, nothing written", async (_label, extra, key) => {
    const user = await createUser(api);
    const base = { name: "E", quantityType: "Capsule(s)", frequency: "daily" };
    const post = await as(user, "/api/supplements", { method: "POST", body: { ...base, ...extra } });
    expect(post.status).toBe(400);
    const body = (await post.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(body.errors)).toContain(key);
    expect(((await (await as(user, "/api/supplements")).json()) as unknown[]).length).toBe(0);
    const id = await addSupplement(user, { doseAmount: 2 });
    const put = await as(user, `/api/supplements/${id}`, {
      method: "PUT",
      body: { ...base, name: "changed", ...extra },
    });
    expect(put.status).toBe(400);
    expect(await (await as(user, `/api/supplements/${id}`)).json()).toMatchObject({ name: "X", doseAmount: 2 });
  });

  test("amounts: 1000, 0.5 and 2.25 are kept exactly", async () => {
    const user = await createUser(api);
    for (const amount of [1000, 0.5, 2.25, 0.01]) {
      const id = await addSupplement(user, { doseAmount: amount });
      expect(((await (await as(user, `/api/supplements/${id}`)).json()) as { doseAmount: number }).doseAmount).toBe(
        amount,
      );
    }
  });
});

describe("the user's time zone", () => {
  test("null until set; set with PUT /api/profile; returned by GET /api/auth/user", async () => {
    const user = await createUser(api);
    expect(((await (await as(user, "/api/auth/user")).json()) as { timeZone: unknown }).timeZone).toBeNull();
    await setZone(user, "Europe/Berlin");
    expect(await (await as(user, "/api/auth/user")).json()).toMatchObject({ timeZone: "Europe/Berlin" });
  });

  test.each([["Mars/Phobos"], ["+01:00"], ["UTC+2"], [""], ["Europe/Berlin\n"], [null], [42], ["x".repeat(200)]])(
    "%p: 400 errors.timeZone, nothing written",
    async (timeZone) => {
      const user = await createUser(api);
      await setZone(user, "Asia/Tokyo");
      const res = await as(user, "/api/profile", { method: "PUT", body: { timeZone } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { errors: Record<string, unknown> }).errors.timeZone).toBeDefined();
      expect(await (await as(user, "/api/auth/user")).json()).toMatchObject({ timeZone: "Asia/Tokyo" });
    },
  );

  test.each([
    // [sent, stored]: legacy aliases as the zone they link to (issue 45), names in their proper case
    ["US/Pacific-New", "America/Los_Angeles"],
    ["US/Pacific", "America/Los_Angeles"],
    ["Asia/Calcutta", "Asia/Kolkata"],
    ["Europe/Kiev", "Europe/Kyiv"],
    ["America/Buenos_Aires", "America/Argentina/Buenos_Aires"],
    ["Etc/UTC", "UTC"],
    ["europe/berlin", "Europe/Berlin"],
    ["Asia/Tokyo", "Asia/Tokyo"],
  ])("%p is stored as %p, a name the database knows", async (sent, stored) => {
    const user = await createUser(api);
    const res = await as(user, "/api/profile", { method: "PUT", body: { timeZone: sent } });
    expect(res.status).toBe(200);
    expect(await (await as(user, "/api/auth/user")).json()).toMatchObject({ timeZone: stored });
    expect((await databaseZones(api.ctx.database.db)).has(stored)).toBe(true);
  });

  test("a zone Intl knows and the database does not: 400 with the time-zone message, nothing written", async () => {
    const user = await createUser(api);
    await setZone(user, "Asia/Tokyo");
    const known = await databaseZones(api.ctx.database.db);
    known.delete("Pacific/Chatham"); // as a database with older tz data would lack it
    try {
      const res = await as(user, "/api/profile", { method: "PUT", body: { timeZone: "Pacific/Chatham" } });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        message: "Please choose a valid time zone",
        errors: { timeZone: ["Please choose a valid time zone"] },
      });
      expect(await (await as(user, "/api/auth/user")).json()).toMatchObject({ timeZone: "Asia/Tokyo" });
    } finally {
      known.add("Pacific/Chatham");
    }
  });

  test("UTC+14 and UTC−11 have different todays at one instant", async () => {
    const [east, west] = await Promise.all([createUser(api), createUser(api)]);
    await setZone(east, "Pacific/Kiritimati");
    await setZone(west, "Pacific/Pago_Pago");
    freezeClock("2026-11-23T10:30:00Z");
    expect((await today(east)).date).toBe("2026-11-24");
    expect((await today(west)).date).toBe("2026-11-22");
    expect((await history(west, "2026-11-22", "2026-11-22")).to).toBe("2026-11-22");
    const future = await as(west, "/api/history?from=2026-11-23&to=2026-11-23");
    expect(future.status).toBe(400);
  });
});

describe("midnight and clock changes", () => {
  test("a dose ticked at 00:00:30 for the day before lands on the day before", async () => {
    const user = await createUser(api);
    const move = freezeClock("2026-11-22T20:00:00Z");
    const x = await addSupplement(user, { schedule: { times: ["bedtime"], days: DAILY } });
    move("2026-11-23T00:00:30Z");
    const logged = await tick(user, "2026-11-22", x, "bedtime");
    expect(logged.date).toBe("2026-11-22");
    expect(logged.at).toBe("2026-11-23T00:00:30.000Z");
    expect((await today(user, "2026-11-22")).summary).toEqual({ due: 1, taken: 1, skipped: 0 });
    const now = await today(user);
    expect(now.date).toBe("2026-11-23");
    expect(now.summary).toEqual({ due: 1, taken: 0, skipped: 0 });
    const h = await history(user, "2026-11-22", "2026-11-23");
    expect(h.days[0]).toMatchObject({ date: "2026-11-22", taken: 1, missed: 0 });
  });

  test.each([
    ["spring forward (29 March 2026)", "2026-03-27T10:00:00Z", "2026-03-27", "2026-03-31"],
    ["fall back (25 October 2026)", "2026-10-23T10:00:00Z", "2026-10-23", "2026-10-27"],
  ])("Europe/Berlin, %s: each day once, with its own dose", async (_label, start, first, last) => {
    const user = await createUser(api);
    await setZone(user, "Europe/Berlin");
    const move = freezeClock(start);
    const x = await addSupplement(user, { schedule: { times: ["anytime"], days: DAILY } });
    const seen: string[] = [];
    // Every 30 minutes for five days: the page's 'today' each time, and a tick on it.
    for (let t = Date.parse(start); t < Date.parse(start) + 4 * 86_400_000; t += 30 * 60_000) {
      move(t);
      const day = (await today(user)).date;
      if (seen.at(-1) !== day) {
        seen.push(day);
        await tick(user, day, x, "anytime");
      }
    }
    const h = await history(user, first, last);
    expect(seen).toEqual(h.days.map((d) => d.date).filter((d) => seen.includes(d)));
    expect(new Set(seen).size).toBe(seen.length);
    for (const day of h.days.filter((d) => seen.includes(d.date))) {
      expect(day).toMatchObject({ due: 1, taken: 1, missed: 0 });
    }
    expect(h.days.map((d) => d.date)).toEqual(
      first === "2026-03-27"
        ? ["2026-03-27", "2026-03-28", "2026-03-29", "2026-03-30", "2026-03-31"]
        : ["2026-10-23", "2026-10-24", "2026-10-25", "2026-10-26", "2026-10-27"],
    );
  });

  test("Berlin's day boundaries on the clock-change days are local midnights", async () => {
    const user = await createUser(api);
    await setZone(user, "Europe/Berlin");
    const move = freezeClock("2026-03-28T22:59:59Z"); // 23:59:59 CET, 28 March
    expect((await today(user)).date).toBe("2026-03-28");
    move("2026-03-28T23:00:00Z"); // 00:00 CET, 29 March (a 23-hour day)
    expect((await today(user)).date).toBe("2026-03-29");
    move("2026-03-29T21:59:59Z"); // 23:59:59 CEST
    expect((await today(user)).date).toBe("2026-03-29");
    move("2026-03-29T22:00:00Z");
    expect((await today(user)).date).toBe("2026-03-30");
    move("2026-10-24T21:59:59Z"); // 23:59:59 CEST, 24 October
    expect((await today(user)).date).toBe("2026-10-24");
    move("2026-10-24T22:00:00Z"); // 00:00 CEST, 25 October (a 25-hour day)
    expect((await today(user)).date).toBe("2026-10-25");
    move("2026-10-25T22:59:59Z"); // 23:59:59 CET
    expect((await today(user)).date).toBe("2026-10-25");
    move("2026-10-25T23:00:00Z");
    expect((await today(user)).date).toBe("2026-10-26");
  });
});

describe("versions keep the past", () => {
  test("a schedule change, then a deletion: ended days stay as they were, logged doses stay", async () => {
    const user = await createUser(api);
    const move = freezeClock("2026-06-01T08:00:00Z"); // Monday
    const keep = await addSupplement(user, { name: "Keep", schedule: { times: ["morning"], days: DAILY } });
    const y = await addSupplement(user, { name: "Y", schedule: { times: ["morning"], days: DAILY } });
    move("2026-06-02T08:00:00Z");
    await tick(user, "2026-06-02", y, "morning");
    await tick(user, "2026-06-02", keep, "morning");
    move("2026-06-03T08:00:00Z");
    const before = await history(user, "2026-06-01", "2026-06-03");
    const change = await as(user, `/api/supplements/${y}`, {
      method: "PUT",
      body: {
        name: "Y",
        quantityType: "Capsule(s)",
        frequency: "x",
        schedule: { times: ["evening", "bedtime"], days: DAILY },
      },
    });
    expect(change.status).toBe(200);
    const afterChange = await history(user, "2026-06-01", "2026-06-03");
    expect(afterChange.days.slice(0, 2)).toEqual(before.days.slice(0, 2));
    expect(afterChange.days[2]).toMatchObject({ date: "2026-06-03", due: 3 });
    // Yesterday's Today still shows Y's morning dose, ticked.
    const yesterday = await today(user, "2026-06-02");
    expect(yesterday.doses.map((d) => [d.name, d.time, d.status])).toEqual([
      ["Keep", "morning", "taken"],
      ["Y", "morning", "taken"],
    ]);

    move("2026-06-04T08:00:00Z");
    const beforeDelete = await history(user, "2026-06-01", "2026-06-04");
    expect((await as(user, `/api/supplements/${y}`, { method: "DELETE" })).status).toBe(204);
    const afterDelete = await history(user, "2026-06-01", "2026-06-04");
    expect(afterDelete.days.slice(0, 3)).toEqual(beforeDelete.days.slice(0, 3));
    expect(afterDelete.days[3]).toMatchObject({ date: "2026-06-04", due: 1 });
    expect((await today(user)).doses.map((d) => d.name)).toEqual(["Keep"]);
    expect((await today(user, "2026-06-02")).doses.map((d) => d.name)).toEqual(["Keep", "Y"]);
    const logged = await api.ctx.database.db
      .select()
      .from(intakes)
      .where(and(eq(intakes.userId, user.id), eq(intakes.supplementId, y)));
    expect(logged.map((row) => row.name)).toEqual(["Y"]);
    // Gone from today on (404), while a day it existed on can still be corrected, as it shows.
    expect((await as(user, `/api/intakes/2026-06-04/${y}/morning`, { method: "DELETE" })).status).toBe(404);
    expect(
      (await as(user, `/api/intakes/2026-06-03/${y}/evening`, { method: "PUT", body: { status: "taken" } })).status,
    ).toBe(200);
  });

  test("a change on the day of adding replaces that day's version: the new times are due at once", async () => {
    const user = await createUser(api);
    freezeClock("2026-08-03T09:00:00Z");
    const x = await addSupplement(user, {});
    const put = await as(user, `/api/supplements/${x}`, {
      method: "PUT",
      body: {
        name: "X2",
        quantityType: "Capsule(s)",
        frequency: "daily",
        schedule: { times: ["morning", "evening"], days: DAILY },
        doseAmount: 1.5,
      },
    });
    expect(put.status).toBe(200);
    await tick(user, "2026-08-03", x, "evening");
    const day = await today(user);
    expect(day.doses.map((d) => [d.name, d.time, d.status, d.doseAmount])).toEqual([
      ["X2", "morning", null, 1.5],
      ["X2", "evening", "taken", 1.5],
    ]);
  });

  test("on the day a supplement is added, its unlogged doses are not missed", async () => {
    const user = await createUser(api);
    const move = freezeClock("2026-07-01T21:00:00Z");
    await addSupplement(user, { schedule: { times: ["morning", "evening"], days: DAILY } });
    move("2026-07-02T10:00:00Z");
    const h = await history(user, "2026-07-01", "2026-07-02");
    expect(h.days[0]).toEqual({ date: "2026-07-01", due: 2, taken: 0, skipped: 0, missed: 0 });
    expect(h.adherence).toBeNull();
  });

  test("weekdays: a Monday-only dose is due on Mondays alone; a skip lowers adherence, never breaks a streak", async () => {
    const user = await createUser(api);
    const move = freezeClock("2026-11-15T10:00:00Z"); // Sunday
    const x = await addSupplement(user, { schedule: { times: ["morning"], days: [1] } });
    move("2026-11-16T10:00:00Z"); // Monday
    await tick(user, "2026-11-16", x, "morning", "skipped");
    move("2026-11-18T10:00:00Z");
    const h = await history(user, "2026-11-15", "2026-11-18");
    expect(h.days.map((d) => d.due)).toEqual([0, 1, 0, 0]);
    expect(h.days[1]).toMatchObject({ skipped: 1, missed: 0 });
    expect(h.adherence).toBe(0); // a skip is not a take (issue 51), but it breaks no streak
    expect(h.currentStreak).toBe(0);
  });
});

describe("Today", () => {
  test("ordered by time then list order; as-needed apart and outside the summary", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const a = await addSupplement(user, { name: "A", schedule: { times: ["evening"], days: DAILY }, doseAmount: 2 });
    const b = await addSupplement(user, { name: "B", schedule: { times: ["morning", "evening"], days: DAILY } });
    const c = await addSupplement(user, { name: "C", schedule: null });
    await tick(user, "2026-11-23", c, "as-needed");
    await tick(user, "2026-11-23", b, "morning", "skipped");
    const day = await today(user);
    expect(day.timeZone).toBe("UTC");
    expect(day.doses.map((d) => [d.name, d.time, d.status, d.doseAmount])).toEqual([
      ["B", "morning", "skipped", null],
      ["A", "evening", null, 2],
      ["B", "evening", null, null],
    ]);
    expect(day.asNeeded).toEqual([
      expect.objectContaining({ supplementId: c, name: "C", status: "taken", at: "2026-11-23T10:00:00.000Z" }),
    ]);
    expect(day.summary).toEqual({ due: 3, taken: 0, skipped: 1 });
    const skip = await as(user, `/api/intakes/2026-11-23/${c}/as-needed`, {
      method: "PUT",
      body: { status: "skipped" },
    });
    expect(skip.status).toBe(400);
    // Reordered: the list order follows.
    await as(user, "/api/supplements/reorder", { method: "PUT", body: { supplementIds: [b, a, c] } });
    expect((await today(user)).doses.map((d) => d.name)).toEqual(["B", "B", "A"]);
  });

  test("undo: DELETE answers 204, also when nothing was there; the tick is gone", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const x = await addSupplement(user, {});
    await tick(user, "2026-11-23", x, "anytime");
    for (let i = 0; i < 2; i++) {
      expect((await as(user, `/api/intakes/2026-11-23/${x}/anytime`, { method: "DELETE" })).status).toBe(204);
    }
    expect((await today(user)).doses[0]?.status).toBeNull();
  });

  test("parallel identical ticks leave one record with one time", async () => {
    const user = await createUser(api);
    const move = freezeClock("2026-11-23T10:00:00Z");
    const x = await addSupplement(user, {});
    const parallel = () => Promise.all(Array.from({ length: 20 }, () => tick(user, "2026-11-23", x, "anytime")));
    const first = await parallel();
    expect(new Set(first.map((a) => a.at))).toEqual(new Set(["2026-11-23T10:00:00.000Z"]));
    // Repeats later keep the first time: the record is the same, not rewritten.
    move("2026-11-23T10:00:05Z");
    const again = await parallel();
    expect(new Set(again.map((a) => a.at))).toEqual(new Set(["2026-11-23T10:00:00.000Z"]));
    const [{ count }] = (await api.ctx.database.db
      .select({ count: sql<number>`count(*)::int` })
      .from(intakes)
      .where(eq(intakes.userId, user.id))) as [{ count: number }];
    expect(count).toBe(1);
  });

  test("the 7-day window and the path's parts", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const x = await addSupplement(user, {});
    // Present on every day of the window.
    await api.ctx.database.db
      .update(scheduleVersions)
      .set({ validFrom: "2026-11-01" })
      .where(eq(scheduleVersions.userId, user.id));
    const cases: [string, number, string?][] = [
      [`2026-11-23/${x}/anytime`, 200],
      [`2026-11-16/${x}/anytime`, 200],
      [`2026-11-15/${x}/anytime`, 400, "date"],
      [`2026-11-24/${x}/anytime`, 400, "date"],
      [`2026-02-30/${x}/anytime`, 400, "date"],
      [`2026-11-3/${x}/anytime`, 400, "date"],
      [`20261123/${x}/anytime`, 400, "date"],
      [`2026-11-23/${x}/noon`, 400, "time"],
      [`2026-11-23/${x}/morning`, 400, "time"],
      [`2026-11-23/${x}/as-needed`, 400, "time"],
      [`2026-11-23/abc/anytime`, 400, "supplementId"],
      [`2026-11-23/999999/anytime`, 404],
      [`2026-11-23/99999999999/anytime`, 404],
    ];
    for (const [path, status, key] of cases) {
      for (const method of ["PUT", "DELETE"]) {
        const res = await as(user, `/api/intakes/${path}`, { method, body: { status: "taken" } });
        const wanted = method === "DELETE" && status === 200 ? 204 : status;
        expect([path, method, res.status]).toEqual([path, method, wanted]);
        if (key) expect(Object.keys(((await res.json()) as { errors: object }).errors)).toContain(key);
      }
    }
    for (const [query, status] of [
      ["?date=2026-11-16", 200],
      ["?date=2026-11-15", 400],
      ["?date=2026-11-24", 400],
      ["?date=nope", 400],
    ] as const) {
      expect([query, (await as(user, `/api/today${query}`)).status]).toEqual([query, status]);
    }
    for (const body of [{ status: "done" }, {}, { status: null }, []]) {
      const res = await as(user, `/api/intakes/2026-11-23/${x}/anytime`, { method: "PUT", body });
      expect(res.status).toBe(400);
    }
  });

  test("another user's supplement: 404 on PUT and DELETE, nothing written", async () => {
    const [owner, other] = await Promise.all([createUser(api), createUser(api)]);
    freezeClock("2026-11-23T10:00:00Z");
    const x = await addSupplement(owner, {});
    for (const method of ["PUT", "DELETE"]) {
      const res = await as(other, `/api/intakes/2026-11-23/${x}/anytime`, { method, body: { status: "taken" } });
      expect(res.status).toBe(404);
    }
    const rows = await api.ctx.database.db.select().from(intakes).where(eq(intakes.supplementId, x));
    expect(rows).toEqual([]);
  });

  test("signed out: 401 on every tracking route", async () => {
    for (const [method, path] of [
      ["GET", "/api/today"],
      ["GET", "/api/history"],
      ["PUT", "/api/intakes/2026-11-23/1/anytime"],
      ["DELETE", "/api/intakes/2026-11-23/1/anytime"],
    ]) {
      const res = await api.fetch(path as string, { method, body: method === "GET" ? undefined : { status: "taken" } });
      expect([path, res.status]).toEqual([path, 401]);
    }
  });

  test("served from memory after the first read, and fresh after every change", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const x = await addSupplement(user, {});
    const first = await as(user, "/api/today");
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    // Behind the app's back, without a notification (PGlite is one process: the trigger's
    // notification lands too, so this checks the entry, then the notification).
    const second = await as(user, "/api/today", { headers: { "if-none-match": etag as string } });
    expect(second.status).toBe(304);
    await tick(user, "2026-11-23", x, "anytime");
    expect((await today(user)).summary.taken).toBe(1);
    await setZone(user, "Pacific/Kiritimati");
    expect((await today(user)).date).toBe("2026-11-24");
  });
});

describe("history's range", () => {
  test("defaults to 84 days ending today; at most 366; from ≤ to ≤ today", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const def = (await (await as(user, "/api/history")).json()) as HistoryJson;
    expect([def.from, def.to, def.days.length]).toEqual(["2026-09-01", "2026-11-23", 84]);
    expect(def.days.every((d) => d.due === 0)).toBe(true);
    const full = await history(user, "2025-11-23", "2026-11-23");
    expect(full.days.length).toBe(366);
    for (const query of [
      "from=2025-11-22&to=2026-11-23",
      "from=2026-11-20&to=2026-11-19",
      "from=2026-11-20&to=2026-11-24",
      "from=2026-13-01",
      "to=yesterday",
    ]) {
      expect([query, (await as(user, `/api/history?${query}`)).status]).toEqual([query, 400]);
    }
  });
});

describe("deletion", () => {
  test("deleting the account deletes the log and the versions", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const x = await addSupplement(user, {});
    await tick(user, "2026-11-23", x, "anytime");
    await api.ctx.database.db.delete(users).where(eq(users.id, user.id));
    expect(await api.ctx.database.db.select().from(intakes).where(eq(intakes.userId, user.id))).toEqual([]);
    expect(
      await api.ctx.database.db.select().from(scheduleVersions).where(eq(scheduleVersions.userId, user.id)),
    ).toEqual([]);
  });
});

describe("public schedule", () => {
  test("off by default: no schedule or amount in GET /api/profile/{name}; on: both, never what was taken", async () => {
    const name = `sched_${crypto.randomUUID().slice(0, 6)}`;
    const user = await createUser(api, { username: name });
    freezeClock("2026-11-23T10:00:00Z");
    const x = await addSupplement(user, { schedule: { times: ["morning", "bedtime"], days: [1, 5] }, doseAmount: 2 });
    await tick(user, "2026-11-23", x, "morning");
    expect(await (await as(user, "/api/auth/user")).json()).toMatchObject({ showSchedule: false });
    const hidden = (await (await api.fetch(`/api/profile/${name}`)).json()) as { supplements: object[] };
    expect(Object.keys(hidden.supplements[0] as object).sort()).toEqual(["frequency", "id", "name", "quantityType"]);

    const on = await as(user, "/api/profile", { method: "PUT", body: { showSchedule: true } });
    expect(await on.json()).toMatchObject({ showSchedule: true });
    const shown = await (await api.fetch(`/api/profile/${name}`)).text();
    expect(JSON.parse(shown).supplements[0]).toEqual({
      id: x,
      name: "X",
      quantityType: "Capsule(s)",
      frequency: "daily",
      schedule: { times: ["morning", "bedtime"], days: [1, 5] },
      doseAmount: 2,
    });
    expect(shown).not.toMatch(/taken|adherence|streak|status/i);
    for (const bad of ["yes", 1, null]) {
      const res = await as(user, "/api/profile", { method: "PUT", body: { showSchedule: bad } });
      expect(res.status).toBe(400);
    }
  });
});
