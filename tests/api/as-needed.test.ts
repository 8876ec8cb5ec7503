/**
 * Issue 48, "As needed, counted", through the API on a moved clock (Berlin): the limits'
 * validation (a variant each, nothing saved), counts with `lastTakenAt`, `nextAllowedAt` and the
 * warnings (recorded all the same), an undo giving back the dose before, a limit across
 * midnight, the old `{ status }` body, an older offline change ignored, stock and totals
 * counting count × amount, and the export.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { asNeededLog, intakes } from "../../db/schema";
import type { TodayAsNeeded, TodayJson } from "../../src/lib/schedule";
import type { Supplement } from "../../src/lib/types";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs } from "../support/tracking-api";
import { type ApiUser, createUser, supplementRows } from "../support/users";

let api: TestApi;
const as = requestsAs(() => api);
const DAY = "2026-12-01";
/** `HH:MM` in Berlin on `day` (winter: UTC+1) as a UTC instant. */
const berlin = (time: string, day = DAY) => {
  const at = new Date(`${day}T${time}:00Z`);
  return new Date(at.getTime() - 3_600_000).toISOString();
};

beforeAll(async () => {
  api = await startApi({}, { database: await migratedDatabase() });
});
afterAll(async () => {
  resetClock();
  await api?.close();
});
afterEach(() => resetClock());

async function json<T>(res: Response, status = 200): Promise<T> {
  expect(res.status).toBe(status);
  return (await res.json()) as T;
}

async function berliner(): Promise<ApiUser> {
  const user = await createUser(api);
  await json(await as(user, "/api/profile", { method: "PUT", body: { timeZone: "Europe/Berlin" } }));
  return user;
}

const base = { name: "Electrolytes", quantityType: "Tablet(s)", frequency: "as needed", schedule: null };

/** Sets the count of `id` on `date`; answers the PUT's body. */
const setCount = async (user: ApiUser, id: number, count: number, date = DAY) =>
  json<TodayAsNeeded & { applied: boolean }>(
    await as(user, `/api/intakes/${date}/${id}/as-needed`, { method: "PUT", body: { count } }),
  );

async function todayItem(user: ApiUser, id: number, date?: string): Promise<TodayAsNeeded | undefined> {
  const day = await json<TodayJson>(await as(user, date ? `/api/today?date=${date}` : "/api/today"));
  return day.asNeeded.find((a) => a.supplementId === id);
}

describe("limits: a 400 naming the field for each rule broken, nothing saved", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["maxPerDay 0", { asNeeded: { maxPerDay: 0 } }, "asNeeded.maxPerDay"],
    ["maxPerDay 25", { asNeeded: { maxPerDay: 25 } }, "asNeeded.maxPerDay"],
    ["maxPerDay 2.5", { asNeeded: { maxPerDay: 2.5 } }, "asNeeded.maxPerDay"],
    ["maxPerDay a string", { asNeeded: { maxPerDay: "3" } }, "asNeeded.maxPerDay"],
    ["minHoursBetween 0", { asNeeded: { minHoursBetween: 0 } }, "asNeeded.minHoursBetween"],
    ["minHoursBetween 0.25", { asNeeded: { minHoursBetween: 0.25 } }, "asNeeded.minHoursBetween"],
    ["minHoursBetween 1.25 (not a half hour)", { asNeeded: { minHoursBetween: 1.25 } }, "asNeeded.minHoursBetween"],
    ["minHoursBetween 48.5", { asNeeded: { minHoursBetween: 48.5 } }, "asNeeded.minHoursBetween"],
    ["minHoursBetween a string", { asNeeded: { minHoursBetween: "4" } }, "asNeeded.minHoursBetween"],
    ["asNeeded a number", { asNeeded: 3 }, "asNeeded"],
    ["asNeeded with an unknown key", { asNeeded: { maxPerDay: 3, perWeek: 9 } }, "asNeeded"],
    [
      "asNeeded with a schedule",
      { schedule: { times: ["morning"], days: [1] }, asNeeded: { maxPerDay: 3 } },
      "asNeeded",
    ],
  ];
  test.each(cases)("%s", async (_name, change, field) => {
    freezeClock(berlin("10:00"));
    const user = await berliner();
    const id = await addSupplementAs(api, user, { ...base, asNeeded: { maxPerDay: 2 } });
    const before = await supplementRows(api, user);
    for (const [method, path] of [
      ["POST", "/api/supplements"],
      ["PUT", `/api/supplements/${id}`],
    ] as const) {
      const answer = await json<{ message: string; errors: Record<string, string[]> }>(
        await as(user, path, { method, body: { ...base, ...change } }),
        400,
      );
      expect([method, Object.keys(answer.errors)]).toEqual([method, [field]]);
      expect(typeof answer.message).toBe("string");
    }
    expect(await supplementRows(api, user)).toEqual(before);
  });

  test("limits without a schedule in the body: POST's default schedule, or a PUT of a scheduled supplement", async () => {
    freezeClock(berlin("10:00"));
    const user = await berliner();
    const { schedule: _none, ...noSchedule } = base;
    const id = await addSupplementAs(api, user, {});
    const before = await supplementRows(api, user);
    for (const [method, path] of [
      ["POST", "/api/supplements"],
      ["PUT", `/api/supplements/${id}`],
    ] as const) {
      const body = { ...noSchedule, asNeeded: { maxPerDay: 3 } };
      const answer = await json<{ errors: Record<string, string[]> }>(await as(user, path, { method, body }), 400);
      expect([method, answer.errors]).toEqual([
        method,
        { asNeeded: ["Limits are only for supplements taken as needed"] },
      ]);
    }
    expect(await supplementRows(api, user)).toEqual(before);
  });

  test("valid limits are stored and answered; none set is null; a schedule set clears them; the export has them", async () => {
    freezeClock(berlin("10:00"));
    const user = await berliner();
    const made = await json<Supplement>(
      await as(user, "/api/supplements", {
        method: "POST",
        body: { ...base, asNeeded: { maxPerDay: 3, minHoursBetween: 4.5 } },
      }),
      201,
    );
    expect(made.asNeeded).toEqual({ maxPerDay: 3, minHoursBetween: 4.5 });
    const put = (body: Record<string, unknown>) =>
      as(user, `/api/supplements/${made.id}`, { method: "PUT", body: { ...base, ...body } });
    // Absent: kept; half of them: the other null; both null: none.
    expect((await json<Supplement>(await put({}))).asNeeded).toEqual({ maxPerDay: 3, minHoursBetween: 4.5 });
    expect((await json<Supplement>(await put({ asNeeded: { maxPerDay: 1 } }))).asNeeded).toEqual({
      maxPerDay: 1,
      minHoursBetween: null,
    });
    const { schedule: _keep, ...keepSchedule } = base;
    expect(
      (await json<Supplement>(await put({ ...keepSchedule, asNeeded: { minHoursBetween: 48 } }))).asNeeded,
    ).toEqual({ maxPerDay: null, minHoursBetween: 48 });
    const doc = await json<{ supplements: { asNeeded: unknown }[] }>(await as(user, "/api/account/export"));
    expect(doc.supplements[0]?.asNeeded).toEqual({ maxPerDay: null, minHoursBetween: 48 });
    expect((await json<Supplement>(await put({ asNeeded: { maxPerDay: null, minHoursBetween: null } }))).asNeeded).toBe(
      null,
    );
    await put({ asNeeded: { maxPerDay: 2 } });
    const scheduled = await json<Supplement>(await put({ schedule: { times: ["morning"], days: [1, 2, 3] } }));
    expect(scheduled.asNeeded).toBe(null);
  });
});

describe("PUT /api/intakes/{date}/{id}/as-needed: bad bodies are a 400 naming the field, nothing written", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["count -1", { count: -1 }, "count"],
    ["count 25", { count: 25 }, "count"],
    ["count 1.5", { count: 1.5 }, "count"],
    ["count a string", { count: "2" }, "count"],
    ["neither count nor status", {}, "count"],
    ["status skipped", { status: "skipped" }, "status"],
    ["status unknown", { status: "maybe" }, "status"],
    ["tickedAt not a time", { count: 1, tickedAt: "yesterday" }, "tickedAt"],
  ];
  test.each(cases)("%s", async (_name, body, field) => {
    freezeClock(berlin("10:00"));
    const user = await berliner();
    const id = await addSupplementAs(api, user, base);
    await setCount(user, id, 2);
    const answer = await json<{ errors: Record<string, string[]> }>(
      await as(user, `/api/intakes/${DAY}/${id}/as-needed`, { method: "PUT", body }),
      400,
    );
    expect(Object.keys(answer.errors)).toEqual([field]);
    expect((await todayItem(user, id))?.count).toBe(2);
    const logged = await api.ctx.database.db.select().from(asNeededLog).where(eq(asNeededLog.userId, user.id));
    expect(logged).toHaveLength(1);
  });
});

describe("counts, limits and warnings on a moved clock (Berlin; at most 3 a day, 4 hours apart)", () => {
  test("each +1 and −1: count, lastTakenAt, nextAllowedAt, warning; recorded when over", async () => {
    const move = freezeClock(berlin("09:00"));
    const user = await berliner();
    const id = await addSupplementAs(api, user, { ...base, asNeeded: { maxPerDay: 3, minHoursBetween: 4 } });
    const fresh = await todayItem(user, id);
    expect(fresh).toMatchObject({ count: 0, lastTakenAt: null, nextAllowedAt: null, status: null });
    expect(fresh?.warning).toBeUndefined();

    // [Berlin time, new count, lastTakenAt (Berlin), nextAllowedAt (Berlin; "midnight": the next), warning]
    const steps: [string, number, string | null, string | null, string | undefined][] = [
      ["09:00", 1, "09:00", "13:00", undefined],
      ["11:00", 2, "11:00", "15:00", "Your next dose was due after 13:00"],
      ["15:30", 3, "15:30", "midnight", undefined],
      ["20:00", 4, "20:00", "midnight", "That is more than your limit of 3 a day"],
      // −1: the dose before stands again, and so does what it said.
      ["20:05", 3, "15:30", "midnight", undefined],
      ["20:10", 2, "11:00", null, "Your next dose was due after 13:00"],
      ["20:15", 1, "09:00", null, undefined],
      ["20:20", 0, null, null, undefined],
      ["20:30", 1, "20:30", "00:30", undefined],
    ];
    for (const [time, count, last, next, warning] of steps) {
      move(berlin(time));
      const answer = await setCount(user, id, count);
      const nextAt = next === "midnight" ? berlin("00:00", "2026-12-02") : next && berlin(next);
      const expected = {
        count,
        status: count > 0 ? ("taken" as const) : null,
        lastTakenAt: last && berlin(last),
        nextAllowedAt: next === "00:30" ? berlin("00:30", "2026-12-02") : nextAt,
        warning,
      };
      const { applied, ...state } = answer;
      expect([time, applied]).toEqual([time, true]);
      const pick = (s: TodayAsNeeded | undefined) => ({
        count: s?.count,
        status: s?.status,
        lastTakenAt: s?.lastTakenAt,
        nextAllowedAt: s?.nextAllowedAt,
        warning: s?.warning,
      });
      expect([time, pick(state)]).toEqual([time, expected]);
      // Today says the same.
      expect([time, pick(await todayItem(user, id))]).toEqual([time, expected]);
    }
    // The log tells what happened, change by change.
    const logged = await api.ctx.database.db
      .select({ from: asNeededLog.countFrom, to: asNeededLog.countTo })
      .from(asNeededLog)
      .where(eq(asNeededLog.userId, user.id))
      .orderBy(asNeededLog.at);
    expect(logged.map((l) => `${l.from}→${l.to}`)).toEqual([
      "0→1",
      "1→2",
      "2→3",
      "3→4",
      "4→3",
      "3→2",
      "2→1",
      "1→0",
      "0→1",
    ]);
  });

  test("the hours between run across midnight; another day is not 'next'", async () => {
    const move = freezeClock(berlin("23:00"));
    const user = await berliner();
    const id = await addSupplementAs(api, user, { ...base, asNeeded: { maxPerDay: null, minHoursBetween: 8 } });
    await setCount(user, id, 1);
    move(berlin("02:00", "2026-12-02"));
    expect(await todayItem(user, id)).toMatchObject({ count: 0, nextAllowedAt: berlin("07:00", "2026-12-02") });
    const answer = await setCount(user, id, 1, "2026-12-02");
    expect(answer).toMatchObject({ count: 1, warning: "Your next dose was due after 07:00" });
    // Yesterday, seen today: its count and no next dose.
    expect(await todayItem(user, id, DAY)).toMatchObject({ count: 1, nextAllowedAt: null });
  });

  test("no limits: count and lastTakenAt only", async () => {
    freezeClock(berlin("09:00"));
    const user = await berliner();
    const id = await addSupplementAs(api, user, base);
    const answer = await setCount(user, id, 24);
    expect(answer).toMatchObject({ count: 24, lastTakenAt: berlin("09:00") });
    expect("nextAllowedAt" in answer || "warning" in answer).toBe(false);
  });
});

describe("what was before keeps working", () => {
  test('{ status: "taken" } is a count of 1, { status: null } and DELETE 0; a row from before the log counts 1', async () => {
    const move = freezeClock(berlin("09:00"));
    const user = await berliner();
    const id = await addSupplementAs(api, user, { ...base, asNeeded: { maxPerDay: 2 } });
    const put = async (body: Record<string, unknown>) =>
      json<TodayAsNeeded>(await as(user, `/api/intakes/${DAY}/${id}/as-needed`, { method: "PUT", body }));
    expect(await put({ status: "taken" })).toMatchObject({ count: 1, status: "taken" });
    move(berlin("09:05"));
    expect(await put({ count: 3 })).toMatchObject({ count: 3 });
    move(berlin("09:10"));
    expect(await put({ status: "taken" })).toMatchObject({ count: 1 });
    move(berlin("09:15"));
    expect(await put({ status: null })).toMatchObject({ count: 0, status: null });
    move(berlin("09:20"));
    await put({ count: 2 });
    move(berlin("09:25"));
    expect((await as(user, `/api/intakes/${DAY}/${id}/as-needed`, { method: "DELETE" })).status).toBe(204);
    expect(await todayItem(user, id)).toMatchObject({ count: 0, status: null });

    // An intake written before this release (no count given, nothing logged): one, at its time.
    const old = await addSupplementAs(api, user, { ...base, name: "Melatonin" });
    await api.ctx.database.db.insert(intakes).values({
      userId: user.id,
      date: DAY,
      supplementId: old,
      time: "as-needed",
      status: "taken",
      name: "Melatonin",
      at: new Date(berlin("08:00")),
    });
    expect(await todayItem(user, old)).toMatchObject({ count: 1, status: "taken", lastTakenAt: berlin("08:00") });
  });

  test("an offline change made before the stored one changes nothing (applied false, the stored count)", async () => {
    const move = freezeClock(berlin("12:00"));
    const user = await berliner();
    const id = await addSupplementAs(api, user, base);
    await setCount(user, id, 2);
    move(berlin("12:30"));
    const late = await json<TodayAsNeeded & { applied: boolean }>(
      await as(user, `/api/intakes/${DAY}/${id}/as-needed`, {
        method: "PUT",
        body: { count: 1, tickedAt: berlin("11:00") },
      }),
    );
    expect(late).toMatchObject({ applied: false, count: 2, lastTakenAt: berlin("12:00") });
    // A later one wins.
    const later = await as(user, `/api/intakes/${DAY}/${id}/as-needed`, {
      method: "PUT",
      body: { count: 3, tickedAt: berlin("12:20") },
    });
    expect(await json<TodayAsNeeded>(later)).toMatchObject({ count: 3, lastTakenAt: berlin("12:20") });
  });
});

describe("stock and totals count count × amount", () => {
  test("3 taken of 2 tablets: 6 units off the stock, 3 servings in the day's totals", async () => {
    const move = freezeClock(berlin("08:00"));
    const user = await berliner();
    const id = await addSupplementAs(api, user, {
      ...base,
      doseAmount: 2,
      ingredients: [{ nutrient: "zinc", amount: 5, unit: "mg" }],
    });
    expect((await as(user, `/api/supplements/${id}/stock`, { method: "PUT", body: { count: 20 } })).status).toBe(200);
    move(berlin("09:00"));
    await setCount(user, id, 3);
    const list = await json<Supplement[]>(await as(user, "/api/supplements"));
    expect(list.find((s) => s.id === id)?.stock?.left).toBe(14);
    const totals = await json<{ nutrients: { nutrient: string | null; taken: number }[] }>(
      await as(user, `/api/stack/totals?date=${DAY}`),
    );
    // 2 tablets a dose, 5 mg a tablet, 3 doses.
    expect(totals.nutrients.find((n) => n.nutrient === "zinc")?.taken).toBe(30);
  });
});
