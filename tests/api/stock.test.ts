/**
 * Stock and refills (issue 40) on a moved clock (api/lib/clock.ts): what is left, derived from the
 * log across ticks, un-ticks, skips, Take all, edits of past days, amount changes, refills,
 * recounts and negative stock; the run-out date of daily, weekday-only and as-needed
 * schedules; the routes' 400s, 404s and 409s. Every step reads GET /api/supplements.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { resetClock } from "../../api/lib/clock";
import type { StockJson } from "../../src/lib/stock";
import type { Supplement } from "../../src/lib/types";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs, steppingClock } from "../support/tracking-api";
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

const as = requestsAs(() => api);

const DAILY = [1, 2, 3, 4, 5, 6, 7];

async function stockOf(user: ApiUser, id: number): Promise<StockJson | null | undefined> {
  const res = await as(user, "/api/supplements");
  expect(res.status).toBe(200);
  return ((await res.json()) as Supplement[]).find((s) => s.id === id)?.stock;
}

async function send(user: ApiUser, method: string, path: string, body?: Record<string, unknown>) {
  const res = await as(user, path, { method, body });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

describe("what is left", () => {
  test("derived from the log: ticks, un-ticks, skips, Take all, past days, amounts, refills, recounts, below zero", async () => {
    const user = await createUser(api);
    const move = steppingClock("2026-11-19T10:00:00Z");
    const x = await addSupplementAs(api, user, {
      doseAmount: 2,
      schedule: { times: ["morning", "evening"], days: DAILY },
    });
    // Another, with a dose logged before any count.
    const early = await addSupplementAs(api, user, { name: "Early", schedule: { times: ["morning"], days: DAILY } });
    expect((await send(user, "PUT", `/api/intakes/2026-11-19/${early}/morning`, { status: "taken" })).status).toBe(200);
    move("2026-11-20T10:00:00Z");
    const tick = (date: string, time: string, status: string | null, id = x) =>
      status === null
        ? send(user, "DELETE", `/api/intakes/${date}/${id}/${time}`)
        : send(user, "PUT", `/api/intakes/${date}/${id}/${time}`, { status });

    const steps: [string, () => Promise<{ status: number }>, number, number | null][] = [
      // [what, action, its status, what is left after it]
      ["a count", () => send(user, "PUT", `/api/supplements/${x}/stock`, { count: 60 }), 200, 60],
      ["a tick", () => tick("2026-11-20", "morning", "taken"), 200, 58],
      ["the same tick again", () => tick("2026-11-20", "morning", "taken"), 200, 58],
      ["another", () => tick("2026-11-20", "evening", "taken"), 200, 56],
      ["an un-tick gives it back", () => tick("2026-11-20", "evening", null), 204, 58],
      ["a skip takes nothing", () => tick("2026-11-20", "evening", "skipped"), 200, 58],
      ["skipped, then taken", () => tick("2026-11-20", "evening", "taken"), 200, 56],
      ["taken, then skipped", () => tick("2026-11-20", "evening", "skipped"), 200, 58],
      ["a day before the count: in the count already", () => tick("2026-11-19", "morning", "taken"), 200, 58],
      ["un-ticking it changes nothing", () => tick("2026-11-19", "morning", null), 204, 58],
      [
        "Take all",
        () =>
          send(user, "PUT", "/api/intakes/2026-11-20", {
            status: "taken",
            doses: [{ supplementId: x, time: "evening" }],
          }),
        200,
        56,
      ],
      [
        "its undo",
        () =>
          send(user, "PUT", "/api/intakes/2026-11-20", { status: null, doses: [{ supplementId: x, time: "evening" }] }),
        200,
        58,
      ],
      [
        "two days on, yesterday's dose (a past day after the count)",
        async () => {
          move("2026-11-22T10:00:00Z");
          return tick("2026-11-21", "morning", "taken");
        },
        200,
        56,
      ],
      [
        "a new amount from today",
        () =>
          send(user, "PUT", `/api/supplements/${x}`, {
            name: "X",
            quantityType: "Capsule(s)",
            frequency: "daily",
            doseAmount: 3,
            schedule: { times: ["morning", "evening"], days: DAILY },
          }),
        200,
        56,
      ],
      ["today's dose takes the new amount", () => tick("2026-11-22", "morning", "taken"), 200, 53],
      ["yesterday's keeps its day's amount", () => tick("2026-11-21", "evening", "taken"), 200, 51],
      [
        "a refill without a pack size",
        () => send(user, "POST", `/api/supplements/${x}/refills`, { packs: 1 }),
        409,
        51,
      ],
      ["a pack size alone", () => send(user, "PUT", `/api/supplements/${x}/stock`, { unitsPerPack: 30 }), 200, 51],
      ["+2 packs", () => send(user, "POST", `/api/supplements/${x}/refills`, { packs: 2 }), 201, 111],
      ["a dose after the refill", () => tick("2026-11-22", "evening", "taken"), 200, 108],
      [
        "a recount replaces count and refills",
        () => send(user, "PUT", `/api/supplements/${x}/stock`, { count: 4 }),
        200,
        4,
      ],
      [
        "a dose of the recount's day ticked before it stays in it",
        () => tick("2026-11-22", "evening", "taken"),
        200,
        4,
      ],
      [
        "below zero",
        async () => {
          move("2026-11-23T10:00:00Z");
          await tick("2026-11-23", "morning", "taken");
          return tick("2026-11-23", "evening", "taken");
        },
        200,
        -2,
      ],
      ["+1 pack from below zero", () => send(user, "POST", `/api/supplements/${x}/refills`, { packs: 1 }), 201, 28],
      ["the count cleared", () => send(user, "PUT", `/api/supplements/${x}/stock`, { count: null }), 200, null],
    ];
    for (const [what, action, status, left] of steps) {
      const res = await action();
      expect([what, res.status]).toEqual([what, status]);
      expect([what, (await stockOf(user, x))?.left]).toEqual([what, left]);
    }
    const last = await stockOf(user, x);
    expect(last).toEqual({ left: null, unitsPerPack: 30, runsOutOn: null, refillDue: false });
    // The other supplement never had stock.
    expect(await stockOf(user, early)).toBeNull();
  });

  test("a dose without an amount counts one unit; below zero reads as due, with no date", async () => {
    const user = await createUser(api);
    steppingClock("2026-11-20T10:00:00Z");
    const x = await addSupplementAs(api, user, { schedule: { times: ["morning", "evening"], days: DAILY } });
    await send(user, "PUT", `/api/supplements/${x}/stock`, { count: 1, unitsPerPack: 10 });
    await send(user, "PUT", `/api/intakes/2026-11-20/${x}/morning`, { status: "taken" });
    expect(await stockOf(user, x)).toEqual({ left: 0, unitsPerPack: 10, runsOutOn: "2026-11-20", refillDue: true });
    await send(user, "PUT", `/api/intakes/2026-11-20/${x}/evening`, { status: "taken" });
    expect(await stockOf(user, x)).toEqual({ left: -1, unitsPerPack: 10, runsOutOn: null, refillDue: true });
  });

  test("a refill before any count starts the count", async () => {
    const user = await createUser(api);
    steppingClock("2026-11-20T10:00:00Z");
    const x = await addSupplementAs(api, user, {});
    await send(user, "PUT", `/api/supplements/${x}/stock`, { unitsPerPack: 60 });
    expect(await stockOf(user, x)).toEqual({ left: null, unitsPerPack: 60, runsOutOn: null, refillDue: false });
    expect((await send(user, "POST", `/api/supplements/${x}/refills`, { packs: 1 })).body?.stock).toEqual({
      left: 60,
      unitsPerPack: 60,
      runsOutOn: "2027-01-19",
      refillDue: false,
    });
  });
});

describe("stock events × order (issue 45 §5)", () => {
  // A pack added before any count is the count, counted then: the doses taken after it come
  // off it, whatever came before. [what, steps with what is left after each]
  type Event =
    | "pack size 30"
    | "+1 pack"
    | "+2 packs"
    | "count 10"
    | "tick morning"
    | "tick evening"
    | "un-tick morning";
  const cases: [string, [Event, number | null][]][] = [
    [
      "+1 pack, then a dose",
      [
        ["pack size 30", null],
        ["+1 pack", 30],
        ["tick morning", 29],
      ],
    ],
    [
      "+2 packs, then two doses",
      [
        ["pack size 30", null],
        ["+2 packs", 60],
        ["tick morning", 59],
        ["tick evening", 58],
      ],
    ],
    [
      "a dose before any count is not counted; one after the first pack is",
      [
        ["tick morning", null],
        ["pack size 30", null],
        ["+1 pack", 30],
        ["tick evening", 29],
      ],
    ],
    [
      "+1 pack, a dose, +1 pack, a dose: each dose once",
      [
        ["pack size 30", null],
        ["+1 pack", 30],
        ["tick morning", 29],
        ["+1 pack", 59],
        ["tick evening", 58],
      ],
    ],
    [
      "+1 pack, a dose, its un-tick gives it back",
      [
        ["pack size 30", null],
        ["+1 pack", 30],
        ["tick morning", 29],
        ["un-tick morning", 30],
      ],
    ],
    [
      "a count, then +1 pack, then a dose",
      [
        ["pack size 30", null],
        ["count 10", 10],
        ["+1 pack", 40],
        ["tick morning", 39],
      ],
    ],
  ];
  test.each(cases)("%s", async (_what, steps) => {
    const user = await createUser(api);
    const move = steppingClock("2026-11-20T08:00:00Z");
    const x = await addSupplementAs(api, user, { schedule: { times: ["morning", "evening"], days: DAILY } });
    let minute = 0;
    for (const [event, left] of steps) {
      move(`2026-11-20T09:${String(minute++).padStart(2, "0")}:00Z`);
      const path = `/api/intakes/2026-11-20/${x}`;
      const res =
        event === "pack size 30"
          ? await send(user, "PUT", `/api/supplements/${x}/stock`, { unitsPerPack: 30 })
          : event === "count 10"
            ? await send(user, "PUT", `/api/supplements/${x}/stock`, { count: 10 })
            : event === "+1 pack" || event === "+2 packs"
              ? await send(user, "POST", `/api/supplements/${x}/refills`, { packs: event === "+1 pack" ? 1 : 2 })
              : event === "un-tick morning"
                ? await send(user, "DELETE", `${path}/morning`)
                : await send(user, "PUT", `${path}/${event.slice("tick ".length)}`, { status: "taken" });
      expect([event, res.status < 300]).toEqual([event, true]);
      expect([event, (await stockOf(user, x))?.left ?? null]).toEqual([event, left]);
    }
  });
});

describe("runs out on", () => {
  test("today + left ÷ the schedule's daily amount, in the user's zone, on a moved clock", async () => {
    const user = await createUser(api);
    const move = steppingClock("2026-11-26T10:00:00Z");
    const add = (body: Record<string, unknown>) => addSupplementAs(api, user, body);
    const cases: [string, Record<string, unknown>, number, string, string][] = [
      // [what, supplement, count, runs out on (2026-11-26), (2026-12-01, no ticks)]
      ["daily, 1 a day", { schedule: { times: ["morning"], days: DAILY } }, 23, "2026-12-19", "2026-12-24"],
      [
        "daily, 2 × 2 a day",
        { doseAmount: 2, schedule: { times: ["morning", "bedtime"], days: DAILY } },
        30,
        "2026-12-03",
        "2026-12-08",
      ],
      [
        "weekdays only, 1 a day (5 a week)",
        { schedule: { times: ["anytime"], days: [1, 2, 3, 4, 5] } },
        10,
        "2026-12-10",
        "2026-12-15",
      ],
      [
        "Mon and Thu, half a teaspoon (1 a week)",
        { quantityType: "Teaspoon(s)", doseAmount: 0.5, schedule: { times: ["evening"], days: [1, 4] } },
        3,
        "2026-12-17",
        "2026-12-22",
      ],
      ["as needed, nothing taken: no date", { schedule: null }, 10, "", ""],
    ];
    const ids: number[] = [];
    for (const [, body, count] of cases) {
      const id = await add(body);
      ids.push(id);
      expect((await send(user, "PUT", `/api/supplements/${id}/stock`, { count })).status).toBe(200);
    }
    for (const [i, [what, , , first]] of cases.entries()) {
      expect([what, (await stockOf(user, ids[i] as number))?.runsOutOn]).toEqual([what, first || null]);
    }
    move("2026-12-01T10:00:00Z");
    for (const [i, [what, , , , later]] of cases.entries()) {
      expect([what, (await stockOf(user, ids[i] as number))?.runsOutOn]).toEqual([what, later || null]);
    }
    // The user's zone: 10:00 UTC on 1 December is already 2 December in Kiritimati (UTC+14).
    expect((await send(user, "PUT", "/api/profile", { timeZone: "Pacific/Kiritimati" })).status).toBe(200);
    expect((await stockOf(user, ids[0] as number))?.runsOutOn).toBe("2026-12-25");
  });

  test("as needed: the average of the last 30 days' taken amounts", async () => {
    const user = await createUser(api);
    const move = steppingClock("2026-11-01T10:00:00Z");
    const x = await addSupplementAs(api, user, { doseAmount: 2, schedule: null });
    await send(user, "PUT", `/api/supplements/${x}/stock`, { count: 100 });
    // Taken on 6 days: 12 units.
    for (const day of ["2026-11-02", "2026-11-05", "2026-11-09", "2026-11-15", "2026-11-20", "2026-11-25"]) {
      move(`${day}T10:00:00Z`);
      expect((await send(user, "PUT", `/api/intakes/${day}/${x}/as-needed`, { status: "taken" })).status).toBe(200);
    }
    move("2026-11-26T10:00:00Z");
    // 88 left at 12 / 30 = 0.4 a day: 220 days.
    expect(await stockOf(user, x)).toMatchObject({ left: 88, runsOutOn: "2027-07-04" });
    // 30 days on from 2 November's dose (window 3 Nov – 2 Dec): 10 units, 88 / (10 / 30) = 264 days.
    move("2026-12-02T10:00:00Z");
    expect(await stockOf(user, x)).toMatchObject({ left: 88, runsOutOn: "2027-08-23" });
  });
});

describe("the routes", () => {
  test("bad input is a 400 naming the field; another user's or no supplement a 404; nothing is written", async () => {
    const [owner, other] = [await createUser(api), await createUser(api)];
    const x = await addSupplementAs(api, owner, {});
    const saved = await send(owner, "PUT", `/api/supplements/${x}/stock`, { count: 5, unitsPerPack: 10 });
    expect(saved.body).toMatchObject({ id: x, stock: { left: 5, unitsPerPack: 10 } });
    const unsized = await addSupplementAs(api, owner, { name: "Unsized" });
    // A pack of 99,999 and no count yet: one pack is the count; twenty would pass STOCK_MAX (issue 45 §4).
    const big = await addSupplementAs(api, owner, { name: "Big packs" });
    await send(owner, "PUT", `/api/supplements/${big}/stock`, { unitsPerPack: 99_999 });
    const cases: [string, string, Record<string, unknown> | undefined, number, string | null][] = [
      [`/api/supplements/${x}/stock`, "PUT", {}, 400, "_"],
      [`/api/supplements/${x}/stock`, "PUT", { count: -1 }, 400, "count"],
      [`/api/supplements/${x}/stock`, "PUT", { count: 100000 }, 400, "count"],
      [`/api/supplements/${x}/stock`, "PUT", { count: 1.005 }, 400, "count"],
      [`/api/supplements/${x}/stock`, "PUT", { count: "5" }, 400, "count"],
      [`/api/supplements/${x}/stock`, "PUT", { unitsPerPack: 0 }, 400, "unitsPerPack"],
      [`/api/supplements/${x}/stock`, "PUT", { unitsPerPack: 1e9 }, 400, "unitsPerPack"],
      [`/api/supplements/${x}/stock`, "PUT", { left: 5 }, 400, "_"],
      [`/api/supplements/${x}/refills`, "POST", { packs: 0 }, 400, "packs"],
      [`/api/supplements/${x}/refills`, "POST", { packs: 21 }, 400, "packs"],
      [`/api/supplements/${x}/refills`, "POST", { packs: 1.5 }, 400, "packs"],
      [`/api/supplements/${x}/refills`, "POST", {}, 400, "packs"],
      ["/api/supplements/abc/stock", "PUT", { count: 1 }, 400, "id"],
      ["/api/supplements/1abc/stock", "PUT", { count: 1 }, 400, "id"],
      ["/api/supplements/abc1/refills", "POST", { packs: 1 }, 400, "id"],
      ["/api/supplements/0/stock", "PUT", { count: 1 }, 404, null],
      ["/api/supplements/2147483648/stock", "PUT", { count: 1 }, 404, null],
      ["/api/supplements/2147483648/refills", "POST", { packs: 1 }, 404, null],
      [`/api/supplements/${unsized}/refills`, "POST", { packs: 1 }, 409, "unitsPerPack"],
      [`/api/supplements/${big}/refills`, "POST", { packs: 20 }, 409, "packs"],
      ["/api/supplements/99999999/stock", "PUT", { count: 1 }, 404, null],
      ["/api/supplements/99999999/refills", "POST", { packs: 1 }, 404, null],
    ];
    for (const [path, method, body, status, field] of cases) {
      const res = await send(owner, method, path, body);
      expect([path, body, res.status]).toEqual([path, body, status]);
      expect(typeof res.body?.message).toBe("string");
      if (field) {
        const errors = (res.body?.errors ?? {}) as Record<string, string[]>;
        const named = errors[field]?.includes(res.body?.message as string) ?? false;
        expect([path, body, Object.keys(errors), named]).toEqual([path, body, [field], true]);
      }
    }
    for (const [path, method, body] of [
      [`/api/supplements/${x}/stock`, "PUT", { count: 1 }],
      [`/api/supplements/${x}/refills`, "POST", { packs: 1 }],
    ] as const) {
      expect((await send(other, method, path, body)).status).toBe(404);
    }
    expect((await stockOf(owner, x))?.left).toBe(5);
  });
});
