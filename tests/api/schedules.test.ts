/**
 * Issue 48 through the API, on a moved clock: every validation rule (a variant each, nothing
 * saved), the database's copy of the due rule against src/lib/due.ts on the shared table, a
 * cycle edited mid-cycle followed by Today, history, streaks and the reminders' open doses,
 * amounts per time, `status`, and stock's run-out for every 2 days and 5 on, 2 off.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { openDoses } from "../../api/reminders/outbox";
import { rowsOf } from "../../db/rows";
import { addDays } from "../../src/lib/dates";
import { isDueOn } from "../../src/lib/due";
import type { HistoryJson, TodayJson } from "../../src/lib/schedule";
import { EDITED, PATTERNS, TABLE_DAYS, TABLE_FROM } from "../support/due-table";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs } from "../support/tracking-api";
import { createUser, supplementRows, uniqueName } from "../support/users";

let api: TestApi;
const as = requestsAs(() => api);
const DAYS = Array.from({ length: TABLE_DAYS }, (_, i) => addDays(TABLE_FROM, i));
const ALL = [1, 2, 3, 4, 5, 6, 7];
/** 08:00 in Berlin on `day` (winter or summer time alike, as a UTC instant at 06:00-07:00). */
const morningOf = (day: string) => `${day}T06:30:00Z`;

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

describe("validation: a 400 naming the field, nothing saved", () => {
  const morning = { times: ["morning"] };
  const cases: [string, Record<string, unknown>, string][] = [
    ["startsOn not a date", { ...morning, days: ALL, startsOn: "2026-02-30" }, "schedule.startsOn"],
    ["startsOn a number", { ...morning, days: ALL, startsOn: 20261201 }, "schedule.startsOn"],
    ["startsOn 367 days ahead", { ...morning, days: ALL, startsOn: "2027-12-01" }, "schedule.startsOn"],
    ["startsOn 367 days back", { ...morning, days: ALL, startsOn: "2025-10-27" }, "schedule.startsOn"],
    [
      "endsOn before startsOn",
      { ...morning, days: ALL, startsOn: "2026-12-10", endsOn: "2026-12-09" },
      "schedule.endsOn",
    ],
    ["endsOn before today (the default start)", { ...morning, days: ALL, endsOn: "2026-11-28" }, "schedule.endsOn"],
    ["endsOn not a date", { ...morning, days: ALL, endsOn: "soon" }, "schedule.endsOn"],
    ["every 1 day", { ...morning, every: { days: 1 } }, "schedule.every.days"],
    ["every 61 days", { ...morning, every: { days: 61 } }, "schedule.every.days"],
    ["every 2.5 days", { ...morning, every: { days: 2.5 } }, "schedule.every.days"],
    ["every a number", { ...morning, every: 2 }, "schedule.every"],
    ["every with an extra key", { ...morning, every: { days: 2, weeks: 1 } }, "schedule.every"],
    ["cycle on 0", { ...morning, cycle: { on: 0, off: 2 } }, "schedule.cycle.on"],
    ["cycle off 366", { ...morning, cycle: { on: 5, off: 366 } }, "schedule.cycle.off"],
    ["cycle without off", { ...morning, cycle: { on: 5 } }, "schedule.cycle.off"],
    ["every and cycle", { ...morning, every: { days: 2 }, cycle: { on: 5, off: 2 } }, "schedule.cycle"],
    ["every with chosen days", { ...morning, days: [1, 3, 5], every: { days: 2 } }, "schedule.days"],
    ["cycle with chosen days", { ...morning, days: [1, 2, 3, 4, 5], cycle: { on: 5, off: 2 } }, "schedule.days"],
    ["no days and no pattern", { ...morning }, "schedule.days"],
    ["amounts for a time not listed", { ...morning, days: ALL, amounts: { evening: 1 } }, "schedule.amounts"],
    ["amount 0", { ...morning, days: ALL, amounts: { morning: 0 } }, "schedule.amounts.morning"],
    ["amount over 1000", { ...morning, days: ALL, amounts: { morning: 1000.5 } }, "schedule.amounts.morning"],
    ["amount with 3 decimals", { ...morning, days: ALL, amounts: { morning: 1.005 } }, "schedule.amounts.morning"],
    ["amounts a list", { ...morning, days: ALL, amounts: [2] }, "schedule.amounts"],
  ];
  test.each(cases)("%s", async (_name, schedule, field) => {
    freezeClock("2026-11-29T10:00:00Z");
    const user = await createUser(api);
    const id = await addSupplementAs(api, user, { schedule: { times: ["evening"], days: [2] } });
    const before = await supplementRows(api, user);
    const body = { name: "Y", quantityType: "Capsule(s)", frequency: "daily", schedule };
    for (const [method, path] of [
      ["POST", "/api/supplements"],
      ["PUT", `/api/supplements/${id}`],
    ] as const) {
      const answer = await json<{ message: string; errors: Record<string, string[]> }>(
        await as(user, path, { method, body }),
        400,
      );
      expect(Object.keys(answer.errors)).toContain(field);
      expect(typeof answer.message).toBe("string");
    }
    expect(await supplementRows(api, user)).toEqual(before);
  });

  test("valid: stored canonical, startsOn defaulted for a pattern, days filled in", async () => {
    freezeClock("2026-11-29T10:00:00Z");
    const user = await createUser(api);
    const res = await as(user, "/api/supplements", {
      method: "POST",
      body: {
        name: "Ashwagandha",
        quantityType: "Capsule(s)",
        frequency: "daily",
        schedule: { times: ["evening", "morning"], cycle: { on: 5, off: 2 }, amounts: { morning: 2 } },
      },
    });
    const made = await json<{ schedule: unknown; status: unknown }>(res, 201);
    expect(made.schedule).toEqual({
      times: ["morning", "evening"],
      days: ALL,
      startsOn: "2026-11-29",
      cycle: { on: 5, off: 2 },
      amounts: { morning: 2 },
    });
    expect(made.status).toEqual({ state: "active", dayOfCycle: 1, cycleLength: 5, nextDueOn: "2026-11-29" });
  });
});

describe("the database's copy of the rule agrees with src/lib/due.ts on every row of the table", () => {
  test.each(PATTERNS.map((p) => [p.name, p] as const))("%s", async (_name, pattern) => {
    const result = await api.ctx.database.db.execute(sql`
      select d::date::text as day, stacktrack_due_on(${JSON.stringify(pattern.schedule)}::jsonb, d::date) as due
      from generate_series(${DAYS[0]}::date, ${DAYS[DAYS.length - 1]}::date, interval '1 day') d order by d`);
    const rows = rowsOf<{ day: string; due: boolean }>(result);
    expect(rows.map((r) => r.day)).toEqual(DAYS);
    expect(rows.map((r) => (r.due ? "X" : ".")).join("")).toBe(pattern.mask);
    expect(DAYS.map((day) => (isDueOn(pattern.schedule, day) ? "X" : ".")).join("")).toBe(pattern.mask);
  });
});

describe("a 5-on-2-off cycle edited mid-cycle to every 2 days, on a moved clock (Berlin, across its clock change)", () => {
  test("Today lists only due days; past days keep the cycle; off-days are neither missed nor taken", async () => {
    const clock = freezeClock(morningOf("2026-03-25"));
    const user = await createUser(api);
    await json(await as(user, "/api/profile", { method: "PUT", body: { timeZone: "Europe/Berlin" } }));
    const id = await addSupplementAs(api, user, {
      name: "Ashwagandha",
      doseAmount: 1,
      schedule: { times: ["morning"], cycle: { on: 5, off: 2 } },
    });
    const reminded: string[] = [];
    for (const [i, day] of DAYS.entries()) {
      if (day < "2026-03-25") continue;
      clock(morningOf(day));
      if (day === "2026-03-31") {
        const edit = await as(user, `/api/supplements/${id}`, {
          method: "PUT",
          body: {
            name: "Ashwagandha",
            quantityType: "Capsule(s)",
            frequency: "daily",
            schedule: { times: ["morning"], every: { days: 2 } },
          },
        });
        expect((await json<{ schedule: { startsOn: string } }>(edit)).schedule.startsOn).toBe("2026-03-31");
      }
      const today = await json<TodayJson>(await as(user, "/api/today"));
      expect(today.date).toBe(day);
      const due = EDITED.mask[i] === "X";
      expect(
        today.doses.map((d) => d.supplementId),
        day,
      ).toEqual(due ? [id] : []);
      const open = await openDoses(api.ctx.database.db, [{ userId: user.id, localDate: day, slot: "morning" }]);
      if ((open.get(`${user.id}/${day}/morning`) ?? []).length > 0) reminded.push(day);
      if (due)
        await json(await as(user, `/api/intakes/${day}/${id}/morning`, { method: "PUT", body: { status: "taken" } }));
      else {
        // Not due: a tick is refused, nothing written.
        const refused = await as(user, `/api/intakes/${day}/${id}/morning`, {
          method: "PUT",
          body: { status: "taken" },
        });
        expect(refused.status).toBe(400);
      }
    }
    // Reminders only on due days (each asked before that day's tick).
    expect(reminded).toEqual(DAYS.filter((_, i) => EDITED.mask[i] === "X"));
    // The cycle's past is kept: 29 March (a cycle day) and 30 March (its first off-day).
    const onDay = await json<TodayJson>(await as(user, "/api/today?date=2026-03-30"));
    expect(onDay.doses).toEqual([]);
    const history = await json<HistoryJson>(await as(user, "/api/history?from=2026-03-25&to=2026-04-06"));
    expect(history.days.map((d) => (d.due ? "X" : ".")).join("")).toBe(EDITED.mask.slice(1));
    expect(history.days.every((d) => d.missed === 0)).toBe(true);
    expect(history.days.map((d) => d.taken).join("")).toBe(
      [...EDITED.mask.slice(1)].map((c) => (c === "X" ? 1 : 0)).join(""),
    );
    expect(history.currentStreak).toBe(9);
    expect(history.adherence).toBe(1);
  });
});

describe("amounts per time and status", () => {
  test("Today shows each time's own amount; reminders too", async () => {
    freezeClock("2026-11-30T09:00:00Z");
    const user = await createUser(api);
    const id = await addSupplementAs(api, user, {
      doseAmount: 1,
      schedule: { times: ["morning", "evening"], days: ALL, amounts: { morning: 2 } },
    });
    const today = await json<TodayJson>(await as(user, "/api/today"));
    expect(today.doses.map((d) => [d.supplementId, d.time, d.doseAmount])).toEqual([
      [id, "morning", 2],
      [id, "evening", 1],
    ]);
    const open = await openDoses(api.ctx.database.db, [{ userId: user.id, localDate: today.date, slot: "morning" }]);
    expect(open.get(`${user.id}/${today.date}/morning`)?.map((d) => d.doseAmount)).toEqual([2]);
  });

  test("status on the list: upcoming, off with the next due day, ended", async () => {
    freezeClock("2026-11-30T09:00:00Z");
    const user = await createUser(api);
    const add = (schedule: Record<string, unknown>) => addSupplementAs(api, user, { schedule });
    await add({ times: ["morning"], days: ALL, startsOn: "2027-01-01" });
    await add({ times: ["morning"], every: { days: 2 }, startsOn: "2026-11-29" });
    await add({ times: ["morning"], cycle: { on: 21, off: 7 }, startsOn: "2026-11-28" });
    await add({ times: ["morning"], days: ALL, startsOn: "2026-11-01", endsOn: "2026-11-29" });
    const list = await json<{ status: unknown }[]>(await as(user, "/api/supplements"));
    expect(list.map((s) => s.status)).toEqual([
      { state: "upcoming", nextDueOn: "2027-01-01" },
      { state: "off", nextDueOn: "2026-12-01" },
      { state: "active", dayOfCycle: 3, cycleLength: 21, nextDueOn: "2026-11-30" },
      { state: "ended" },
    ]);
  });
});

describe("stock's run-out walks the pattern", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["daily", { times: ["morning"], days: ALL }, "2027-01-19"],
    ["every 2 days", { times: ["morning"], every: { days: 2 } }, "2027-03-10"],
    ["5 on, 2 off (7/5 as long)", { times: ["morning"], cycle: { on: 5, off: 2 } }, "2027-02-08"],
    ["starts in 10 days, daily", { times: ["morning"], days: ALL, startsOn: "2026-12-10" }, "2027-01-29"],
    ["ends before it runs out", { times: ["morning"], days: ALL, endsOn: "2026-12-31" }, ""],
  ];
  test.each(cases)("%s: 50 capsules from 30 November", async (_name, schedule, runsOutOn) => {
    freezeClock("2026-11-30T09:00:00Z");
    const user = await createUser(api);
    const id = await addSupplementAs(api, user, { doseAmount: 1, schedule });
    await json(await as(user, `/api/supplements/${id}/stock`, { method: "PUT", body: { count: 50 } }));
    const [row] = await json<{ stock: { runsOutOn: string | null } }[]>(await as(user, "/api/supplements"));
    expect(row?.stock.runsOutOn ?? "").toBe(runsOutOn);
  });
});

describe("a public profile that shows the schedule shows its times and days only", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["a start and an end", { times: ["morning"], days: ALL, startsOn: "2026-12-01", endsOn: "2027-01-31" }],
    ["every 2 days", { times: ["evening"], every: { days: 2 } }],
    ["a cycle", { times: ["morning"], cycle: { on: 56, off: 28 } }],
    ["amounts per time", { times: ["morning", "evening"], days: ALL, amounts: { morning: 2, evening: 1 } }],
  ];
  test.each(cases)("%s: private, in the JSON and the page", async (_name, schedule) => {
    freezeClock("2026-11-30T09:00:00Z");
    const name = uniqueName("sched");
    const owner = await createUser(api, { username: name });
    await json(await as(owner, "/api/profile", { method: "PUT", body: { showSchedule: true } }));
    await addSupplementAs(api, owner, { doseAmount: 1, schedule });
    const profile = await json<{ supplements: { schedule: unknown }[] }>(await api.fetch(`/api/profile/${name}`));
    const { times, days } = schedule as { times: string[]; days?: number[] };
    expect(profile.supplements.map((s) => s.schedule)).toEqual([{ times, days: days ?? ALL }]);
    const page = await (await api.fetch(`/${name}`)).text();
    for (const hidden of ["2026-12-01", "2027-01-31", "cycle", "every", "startsOn"]) expect(page).not.toContain(hidden);
  });
});
