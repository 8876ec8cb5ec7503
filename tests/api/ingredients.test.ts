/**
 * Issue 47: a supplement's ingredients (units, conversions, validation) and the day's totals
 * (per-serving arithmetic, weekday and as-needed schedules, versions across an edit, taken vs
 * planned, the over flag), each rule a table of variants; the totals read's statement count.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { scheduleVersions, supplements } from "../../db/schema";
import type { TotalsJson } from "../../src/lib/totals";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs, statementLog } from "../support/tracking-api";
import { type ApiUser, createUser } from "../support/users";

let api: TestApi;
const { record, counted } = statementLog();

beforeAll(async () => {
  api = await startApi({ INSIGHTS_FLUSH_MS: "0" }, { database: await migratedDatabase(), onQuery: record });
});
afterAll(async () => {
  resetClock();
  await api?.close();
});
afterEach(() => resetClock());

const as = requestsAs(() => api);
const DAILY = [1, 2, 3, 4, 5, 6, 7];
const MONDAY = "2026-11-23";
const SATURDAY = "2026-11-28";

async function totals(user: ApiUser, date?: string): Promise<TotalsJson> {
  const res = await as(user, `/api/stack/totals${date ? `?date=${date}` : ""}`);
  expect(res.status).toBe(200);
  return (await res.json()) as TotalsJson;
}
const total = (t: TotalsJson, key: string) => t.nutrients.find((n) => (n.nutrient ?? n.name) === key);

describe("units and conversions", () => {
  // [entered line, answered amount and unit]
  const cases: [Record<string, unknown>, number, string][] = [
    [{ nutrient: "vitamin-d", amount: 2000, unit: "IU" }, 50, "mcg"],
    [{ nutrient: "vitamin-d", amount: 50, unit: "mcg" }, 50, "mcg"],
    [{ nutrient: "vitamin-d", amount: 25, unit: "µg" }, 25, "mcg"],
    [{ nutrient: "vitamin-d", amount: 25, unit: "ug" }, 25, "mcg"],
    [{ nutrient: "vitamin-d", amount: 0.05, unit: "mg" }, 50, "mcg"],
    [{ nutrient: "vitamin-a", amount: 1000, unit: "IU" }, 300, "mcg RAE"],
    [{ nutrient: "vitamin-a", amount: 900, unit: "mcg" }, 900, "mcg RAE"],
    [{ nutrient: "vitamin-e", amount: 400, unit: "IU" }, 268, "mg"],
    [{ nutrient: "zinc", amount: 0.015, unit: "g" }, 15, "mg"],
    [{ nutrient: "zinc", amount: 500, unit: "mcg" }, 0.5, "mg"],
    [{ nutrient: "copper", amount: 2, unit: "mg" }, 2000, "mcg"],
    [{ name: "Creatine", amount: 5, unit: "g" }, 5, "g"],
    [{ name: "Fish oil liquid", amount: 5, unit: "ml" }, 5, "ml"],
  ];
  test.each(cases)("%j answers %p %s, keeping what was typed", async (line, amount, unit) => {
    const user = await createUser(api);
    const id = await addSupplementAs(api, user, { ingredients: [line] });
    const res = await as(user, `/api/supplements/${id}`);
    const body = (await res.json()) as { servingSize: number; ingredients: Record<string, unknown>[] };
    expect(body.servingSize).toBe(1);
    const typed = line.unit === "µg" || line.unit === "ug" ? "mcg" : line.unit;
    expect(body.ingredients).toEqual([
      {
        nutrient: (line.nutrient as string | undefined) ?? null,
        name: expect.any(String),
        amount,
        unit,
        entered: { amount: line.amount, unit: typed },
      },
    ]);
  });
});

describe("validation: 400 naming the field, nothing saved", () => {
  const ok = { nutrient: "zinc", amount: 15, unit: "mg" };
  // [what, body fields, the field named in errors]
  const cases: [string, Record<string, unknown>, string][] = [
    ["servingSize 0", { servingSize: 0 }, "servingSize"],
    ["servingSize above 100", { servingSize: 101 }, "servingSize"],
    ["servingSize as text", { servingSize: "2" }, "servingSize"],
    ["servingSize with 3 decimals", { servingSize: 1.255 }, "servingSize"],
    ["ingredients not a list", { ingredients: "zinc" }, "ingredients"],
    [
      "41 lines",
      { ingredients: Array.from({ length: 41 }, (_, i) => ({ name: `x${i}`, amount: 1, unit: "mg" })) },
      "ingredients",
    ],
    [
      "unknown nutrient",
      { ingredients: [{ nutrient: "unobtainium", amount: 1, unit: "mg" }] },
      "ingredients.0.nutrient",
    ],
    ["wrong unit", { ingredients: [ok, { nutrient: "vitamin-d", amount: 1, unit: "ml" }] }, "ingredients.1.unit"],
    ["IU for zinc", { ingredients: [{ nutrient: "zinc", amount: 1, unit: "IU" }] }, "ingredients.0.unit"],
    ["the same nutrient twice", { ingredients: [ok, ok] }, "ingredients.1.nutrient"],
    [
      "a name twice, any case",
      {
        ingredients: [
          { name: "Creatine", amount: 5, unit: "g" },
          { name: "creatine", amount: 1, unit: "g" },
        ],
      },
      "ingredients.1.name",
    ],
    ["amount 0", { ingredients: [{ ...ok, amount: 0 }] }, "ingredients.0.amount"],
    ["amount negative", { ingredients: [{ ...ok, amount: -1 }] }, "ingredients.0.amount"],
    ["amount above a million", { ingredients: [{ ...ok, amount: 1_000_001 }] }, "ingredients.0.amount"],
    ["amount with 4 decimals", { ingredients: [{ ...ok, amount: 1.0001 }] }, "ingredients.0.amount"],
    ["amount as text", { ingredients: [{ ...ok, amount: "15" }] }, "ingredients.0.amount"],
    ["both nutrient and name", { ingredients: [{ ...ok, name: "Zinc" }] }, "ingredients.0.name"],
    ["neither nutrient nor name", { ingredients: [{ amount: 1, unit: "mg" }] }, "ingredients.0.nutrient"],
    ["empty name", { ingredients: [{ name: " ", amount: 1, unit: "mg" }] }, "ingredients.0.name"],
    ["name of 61 characters", { ingredients: [{ name: "x".repeat(61), amount: 1, unit: "mg" }] }, "ingredients.0.name"],
    ["custom unit not allowed", { ingredients: [{ name: "Protein", amount: 1, unit: "cups" }] }, "ingredients.0.unit"],
    ["a line not an object", { ingredients: [5] }, "ingredients.0"],
  ];
  test.each(cases)("%s", async (_what, fields, field) => {
    const user = await createUser(api);
    const id = await addSupplementAs(api, user, { ingredients: [ok] });
    const before = await api.ctx.database.db.select().from(supplements).where(eq(supplements.userId, user.id));
    const versionsBefore = await api.ctx.database.db
      .select()
      .from(scheduleVersions)
      .where(eq(scheduleVersions.userId, user.id));
    for (const [method, path] of [
      ["POST", "/api/supplements"],
      ["PUT", `/api/supplements/${id}`],
    ] as const) {
      const res = await as(user, path, {
        method,
        body: { name: "X", quantityType: "Capsule(s)", frequency: "daily", ...fields },
      });
      expect([method, res.status]).toEqual([method, 400]);
      const body = (await res.json()) as { message: string; errors: Record<string, string[]> };
      expect(typeof body.message).toBe("string");
      expect(Object.keys(body.errors)).toContain(field);
    }
    const after = await api.ctx.database.db.select().from(supplements).where(eq(supplements.userId, user.id));
    expect(after).toEqual(before);
    expect(
      await api.ctx.database.db.select().from(scheduleVersions).where(eq(scheduleVersions.userId, user.id)),
    ).toEqual(versionsBefore);
  });
});

describe("the day's totals", () => {
  test("per serving: a serving of 2 taken as 1 is half; a dose without an amount is one serving", async () => {
    freezeClock(`${MONDAY}T10:00:00Z`);
    const user = await createUser(api);
    const d = [{ nutrient: "vitamin-d", amount: 50, unit: "mcg" }];
    // [doseAmount, servingSize, schedule times, planned]
    const cases: [number | null, number, string[], number][] = [
      [1, 2, ["morning"], 25],
      [2, 2, ["morning"], 50],
      [1, 1, ["morning", "evening"], 100],
      [null, 2, ["morning"], 50],
      [0.5, 1, ["morning"], 25],
    ];
    for (const [doseAmount, servingSize, times, planned] of cases) {
      const id = await addSupplementAs(api, user, {
        name: `D ${doseAmount}/${servingSize}`,
        doseAmount,
        servingSize,
        schedule: { times, days: DAILY },
        ingredients: d,
      });
      const t = await totals(user);
      const source = total(t, "vitamin-d")?.sources.find((s) => s.supplementId === id);
      expect([doseAmount, servingSize, times, source?.planned]).toEqual([doseAmount, servingSize, times, planned]);
      await as(user, `/api/supplements/${id}`, { method: "DELETE" });
    }
  });

  test("weekday-only and as-needed schedules; taken vs planned; custom lines by name", async () => {
    freezeClock(`${MONDAY}T10:00:00Z`);
    const user = await createUser(api);
    const weekdays = await addSupplementAs(api, user, {
      name: "Zinc",
      schedule: { times: ["morning"], days: [1, 2, 3, 4, 5] },
      ingredients: [{ nutrient: "zinc", amount: 15, unit: "mg" }],
    });
    const asNeeded = await addSupplementAs(api, user, {
      name: "Lozenge",
      schedule: null,
      doseAmount: 2,
      ingredients: [{ nutrient: "zinc", amount: 5, unit: "mg" }],
    });
    const creatine = await addSupplementAs(api, user, {
      name: "Creatine",
      quantityType: "Other",
      doseAmount: 5,
      servingSize: 5,
      ingredients: [{ name: "Creatine", amount: 5, unit: "g" }],
    });
    await addSupplementAs(api, user, { name: "Mix", ingredients: [{ name: "creatine", amount: 500, unit: "mg" }] });

    const monday = await totals(user);
    expect(monday.date).toBe(MONDAY);
    expect(total(monday, "zinc")).toMatchObject({ planned: 15, taken: 0, ul: 40, percentOfUl: 38, over: false });
    expect(total(monday, "Creatine")).toMatchObject({ nutrient: null, unit: "g", planned: 5.5, taken: 0, ul: null });

    // Ticks: the weekday dose and the as-needed one (2 lozenges of 5 mg).
    for (const [id, time] of [
      [weekdays, "morning"],
      [asNeeded, "as-needed"],
      [creatine, "anytime"],
    ] as const) {
      const res = await as(user, `/api/intakes/${MONDAY}/${id}/${time}`, { method: "PUT", body: { status: "taken" } });
      expect(res.status).toBe(200);
    }
    const ticked = await totals(user);
    expect(total(ticked, "zinc")).toMatchObject({ planned: 15, taken: 25 });
    expect(total(ticked, "zinc")?.sources).toEqual([
      { supplementId: weekdays, name: "Zinc", planned: 15, taken: 15 },
      { supplementId: asNeeded, name: "Lozenge", planned: 0, taken: 10 },
    ]);
    expect(total(ticked, "Creatine")).toMatchObject({ planned: 5.5, taken: 5 });

    // Saturday: the weekday supplement is not due; nothing ticked there, so zinc is absent.
    freezeClock(`${SATURDAY}T10:00:00Z`);
    const saturday = await totals(user);
    expect(total(saturday, "zinc")).toBeUndefined();
  });

  test("a past day keeps its totals across an edit of the ingredients and the amount", async () => {
    freezeClock(`${MONDAY}T10:00:00Z`);
    const user = await createUser(api);
    const body = {
      name: "D",
      quantityType: "Soft Gel",
      frequency: "daily",
      schedule: { times: ["morning"], days: DAILY },
    };
    const id = await addSupplementAs(api, user, {
      ...body,
      ingredients: [{ nutrient: "vitamin-d", amount: 25, unit: "mcg" }],
    });
    freezeClock("2026-11-25T10:00:00Z");
    const res = await as(user, `/api/supplements/${id}`, {
      method: "PUT",
      body: { ...body, doseAmount: 2, ingredients: [{ nutrient: "vitamin-d", amount: 4000, unit: "IU" }] },
    });
    expect(res.status).toBe(200);
    // [date, planned vitamin D]
    const cases: [string, number | undefined][] = [
      ["2026-11-22", undefined],
      [MONDAY, 25],
      ["2026-11-24", 25],
      ["2026-11-25", 200],
    ];
    for (const [date, planned] of cases) {
      expect([date, total(await totals(user, date), "vitamin-d")?.planned]).toEqual([date, planned]);
    }
  });

  test("the over flag at, below and above the UL; percent rounded; sorted by percent", async () => {
    freezeClock(`${MONDAY}T10:00:00Z`);
    // [vitamin D mcg a day, percentOfUl, over]
    const cases: [number, number, boolean][] = [
      [99.99, 100, false],
      [100, 100, false],
      [100.01, 100, true],
      [150, 150, true],
    ];
    for (const [amount, percent, over] of cases) {
      const user = await createUser(api);
      await addSupplementAs(api, user, {
        ingredients: [
          { nutrient: "vitamin-d", amount, unit: "mcg" },
          { nutrient: "zinc", amount: 10, unit: "mg" },
        ],
      });
      const t = await totals(user);
      expect([amount, total(t, "vitamin-d")?.percentOfUl, total(t, "vitamin-d")?.over]).toEqual([
        amount,
        percent,
        over,
      ]);
      expect(t.nutrients.map((n) => n.nutrient)).toEqual(["vitamin-d", "zinc"]);
    }
  });

  test("taken above the UL is over even when the plan is not", async () => {
    freezeClock(`${MONDAY}T10:00:00Z`);
    const user = await createUser(api);
    const id = await addSupplementAs(api, user, {
      schedule: null,
      ingredients: [{ nutrient: "iron", amount: 50, unit: "mg" }],
    });
    expect(total(await totals(user), "iron")).toBeUndefined();
    await as(user, `/api/intakes/${MONDAY}/${id}/as-needed`, { method: "PUT", body: { status: "taken" } });
    expect(total(await totals(user), "iron")).toMatchObject({ planned: 0, taken: 50, percentOfUl: 111, over: true });
  });

  test("dates: bad, future and too old are 400 naming date", async () => {
    freezeClock(`${MONDAY}T10:00:00Z`);
    const user = await createUser(api);
    for (const date of ["2026-02-30", "yesterday", "2026-11-24", "2025-11-21"]) {
      const res = await as(user, `/api/stack/totals?date=${date}`);
      expect([date, res.status]).toEqual([date, 400]);
      expect(Object.keys(((await res.json()) as { errors: object }).errors)).toEqual(["date"]);
    }
    expect((await totals(user, "2025-11-22")).nutrients).toEqual([]);
  });

  test("the totals read costs at most 2 statements", async () => {
    freezeClock(`${MONDAY}T10:00:00Z`);
    const user = await createUser(api);
    for (let i = 0; i < 5; i++) {
      await addSupplementAs(api, user, { name: `S${i}`, ingredients: [{ nutrient: "zinc", amount: 5, unit: "mg" }] });
    }
    await totals(user); // the session is warm from here on
    const { statements } = await counted(() => totals(user));
    expect(statements.length <= 2 ? "at most 2" : statements).toBe("at most 2");
  });
});

test("GET /api/nutrients: the table, public and cacheable", async () => {
  const res = await api.fetch("/api/nutrients");
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("public, max-age=86400");
  const table = (await res.json()) as Record<string, unknown>[];
  expect(table.find((n) => n.id === "vitamin-d")).toEqual({
    id: "vitamin-d",
    name: "Vitamin D",
    unit: "mcg",
    units: ["mcg", "mg", "g", "IU"],
    ul: 100,
    ulNote: null,
  });
  expect(table.find((n) => n.id === "vitamin-k")?.ul).toBeNull();
});
