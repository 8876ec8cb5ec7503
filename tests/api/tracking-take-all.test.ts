/**
 * Issue 38's Take all: PUT /api/intakes/{date} sets one status (null clears) on several doses
 * of a day in one request: two statements at most, idempotent, undone by the same request with
 * null, the single tick's rules (7-day window, user's zone, schedule, as-needed only taken),
 * and all or nothing when any dose is refused (another user's supplement among them).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { freezeClock, resetClock } from "../../api/lib/clock";
import type { IntakeBatchJson, TodayJson } from "../../src/lib/schedule";
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
const addSupplement = (user: ApiUser, body: Record<string, unknown>) => addSupplementAs(api, user, body);

async function day(user: ApiUser, date: string): Promise<TodayJson> {
  const res = await as(user, `/api/today?date=${date}`);
  expect(res.status).toBe(200);
  return (await res.json()) as TodayJson;
}
const states = async (user: ApiUser, date: string) =>
  (await day(user, date)).doses.map((d) => `${d.name}/${d.time}:${d.status ?? "open"}`);

const batch = (user: ApiUser, date: string, body: unknown) =>
  as(user, `/api/intakes/${date}`, { method: "PUT", body: body as Record<string, unknown> });

const DAILY = [1, 2, 3, 4, 5, 6, 7];

async function morningStack(user: ApiUser) {
  const a = await addSupplement(user, { name: "A", schedule: { times: ["morning"], days: DAILY } });
  const b = await addSupplement(user, { name: "B", schedule: { times: ["morning", "evening"], days: DAILY } });
  const c = await addSupplement(user, { name: "C", schedule: { times: ["morning"], days: DAILY } });
  const n = await addSupplement(user, { name: "N", schedule: null });
  return { a, b, c, n };
}

describe("Take all and its undo", () => {
  test("one request each, at most two statements; repeated, the same; undone in one step", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const { a, b, c } = await morningStack(user);
    await as(user, `/api/intakes/2026-11-23/${b}/morning`, { method: "PUT", body: { status: "skipped" } });
    await day(user, "2026-11-23"); // the session is warm
    const open: IntakeBatchJson["doses"] = [
      { supplementId: a, time: "morning" },
      { supplementId: c, time: "morning" },
    ];
    for (const round of ["first", "repeat"]) {
      const { result: res, statements } = await counted(() =>
        batch(user, "2026-11-23", { status: "taken", doses: open }),
      );
      expect([round, res.status]).toEqual([round, 200]);
      expect([round, statements.length <= 2 ? "at most 2" : statements]).toEqual([round, "at most 2"]);
      expect((await res.json()) as IntakeBatchJson).toEqual({
        date: "2026-11-23",
        status: "taken",
        doses: open,
        ignored: [],
      });
      expect(await states(user, "2026-11-23")).toEqual([
        "A/morning:taken",
        "B/morning:skipped",
        "C/morning:taken",
        "B/evening:open",
      ]);
    }
    // The repeat kept the first time of taking.
    const first = (await day(user, "2026-11-23")).doses[0]?.at;
    freezeClock("2026-11-23T11:00:00Z");
    await batch(user, "2026-11-23", { status: "taken", doses: open });
    expect((await day(user, "2026-11-23")).doses[0]?.at).toBe(first as string);

    const { result: undo, statements } = await counted(() => batch(user, "2026-11-23", { status: null, doses: open }));
    expect(undo.status).toBe(200);
    expect(statements.length).toBeLessThanOrEqual(2);
    expect(await states(user, "2026-11-23")).toEqual([
      "A/morning:open",
      "B/morning:skipped",
      "C/morning:open",
      "B/evening:open",
    ]);
    // An undo repeated is the same.
    expect((await batch(user, "2026-11-23", { status: null, doses: open })).status).toBe(200);
    expect((await day(user, "2026-11-23")).summary).toEqual({ due: 4, taken: 0, skipped: 1 });
  });

  test("the 7-day window and the user's zone decide the day, like a single tick", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-10T10:00:00Z");
    const { a } = await morningStack(user);
    freezeClock("2026-11-23T23:30:00Z"); // already 24 November in Kiritimati (UTC+14)
    expect((await as(user, "/api/profile", { method: "PUT", body: { timeZone: "Pacific/Kiritimati" } })).status).toBe(
      200,
    );
    const doses = [{ supplementId: a, time: "morning" }];
    const cases: [string, number, string | null][] = [
      ["2026-11-24", 200, null], // the user's today
      ["2026-11-17", 200, null], // 7 days before it
      ["2026-11-16", 400, "Only today and the 7 days before it can be changed"],
      ["2026-11-25", 400, "That day has not begun yet"],
      ["2026-02-30", 400, "Date must be a real date written YYYY-MM-DD"],
    ];
    for (const [date, status, message] of cases) {
      const res = await batch(user, date, { status: "taken", doses });
      const body = (await res.json()) as { message?: string };
      expect([date, res.status, status === 200 ? null : body.message]).toEqual([date, status, message]);
    }
  });

  test("any dose refused refuses the request, and nothing is written", async () => {
    const user = await createUser(api);
    const other = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const { a, b, n } = await morningStack(user);
    const theirs = await addSupplement(other, { name: "Theirs", schedule: { times: ["morning"], days: DAILY } });
    const mine = { supplementId: a, time: "morning" };
    const cases: [string, unknown, number, string][] = [
      ["another user's supplement", [mine, { supplementId: theirs, time: "morning" }], 404, "Supplement not found"],
      ["no such supplement", [mine, { supplementId: 2_000_000_000, time: "morning" }], 404, "Supplement not found"],
      [
        "not scheduled then",
        [mine, { supplementId: a, time: "evening" }],
        400,
        "That supplement is not scheduled at that time on that day",
      ],
      ["an unknown time", [mine, { supplementId: b, time: "noon" }], 400, "Unknown time"],
      ["the same dose twice", [mine, mine], 400, "Doses must list 1 to 200 different supplements and times"],
      ["no dose", [], 400, "Doses must list 1 to 200 different supplements and times"],
      ["not a list", "all", 400, "Doses must list 1 to 200 different supplements and times"],
      [
        "too many",
        Array.from({ length: 201 }, (_, i) => ({ supplementId: i + 1, time: "morning" })),
        400,
        "Doses must list 1 to 200 different supplements and times",
      ],
    ];
    for (const [what, doses, status, message] of cases) {
      const res = await batch(user, "2026-11-23", { status: "taken", doses });
      expect([what, res.status, ((await res.json()) as { message: string }).message]).toEqual([what, status, message]);
    }
    const skipped = await batch(user, "2026-11-23", {
      status: "skipped",
      doses: [mine, { supplementId: n, time: "as-needed" }],
    });
    expect([skipped.status, ((await skipped.json()) as { message: string }).message]).toEqual([
      400,
      "As-needed doses can only be marked taken",
    ]);
    const badStatus = await batch(user, "2026-11-23", { status: "done", doses: [mine] });
    expect([badStatus.status, ((await badStatus.json()) as { message: string }).message]).toEqual([
      400,
      'Status must be "taken", "skipped" or null',
    ]);
    const badId = await batch(user, "2026-11-23", { status: "taken", doses: [{ supplementId: "1", time: "morning" }] });
    expect([badId.status, ((await badId.json()) as { message: string }).message]).toEqual([
      400,
      "Supplement not found",
    ]);
    // Nothing of the refused requests was written, for either user.
    expect((await day(user, "2026-11-23")).summary.taken).toBe(0);
    expect((await day(other, "2026-11-23")).summary.taken).toBe(0);
    // Signed out: 401.
    expect(
      (await api.fetch("/api/intakes/2026-11-23", { method: "PUT", body: { status: "taken", doses: [mine] } })).status,
    ).toBe(401);
  });
});

describe("slots × Take all (issue 45 §5)", () => {
  // A supplement due at several times is one row per time: Take all of one time (and its undo)
  // changes that time's doses only, never the same supplement's dose at another time.
  const SLOTS = ["morning", "evening", "bedtime"] as const;
  test.each(SLOTS)("Take all: %s, then its undo, leave the other times' doses as they were", async (slot) => {
    const user = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const times = { times: [...SLOTS], days: DAILY };
    const b = await addSupplement(user, { name: "B", schedule: times });
    const c = await addSupplement(user, { name: "C", schedule: times });
    // The other times: one taken, one skipped, the rest open.
    const others = SLOTS.filter((t) => t !== slot);
    const before: Record<string, string> = {};
    for (const t of SLOTS) for (const name of ["B", "C"]) before[`${name}/${t}`] = "open";
    const [first, second] = others as [string, string];
    for (const [id, name, time, status] of [
      [b, "B", first, "taken"],
      [c, "C", second, "skipped"],
    ] as const) {
      const res = await as(user, `/api/intakes/2026-11-23/${id}/${time}`, { method: "PUT", body: { status } });
      expect(res.status).toBe(200);
      before[`${name}/${time}`] = status;
    }
    const expected = (slotState: string) =>
      Object.entries(before)
        .map(([key, state]) => `${key}:${key.endsWith(`/${slot}`) ? slotState : state}`)
        .sort();
    const now = async () => (await states(user, "2026-11-23")).sort();
    expect(await now()).toEqual(expected("open"));
    const doses = [
      { supplementId: b, time: slot },
      { supplementId: c, time: slot },
    ];
    const took = await batch(user, "2026-11-23", { status: "taken", doses });
    expect(took.status).toBe(200);
    expect(((await took.json()) as IntakeBatchJson).ignored).toEqual([]);
    expect(await now()).toEqual(expected("taken"));
    const undo = await batch(user, "2026-11-23", { status: null, doses });
    expect(undo.status).toBe(200);
    expect(((await undo.json()) as IntakeBatchJson).ignored).toEqual([]);
    expect(await now()).toEqual(expected("open"));
    expect((await day(user, "2026-11-23")).summary).toEqual({ due: 6, taken: 1, skipped: 1 });
  });
});

describe("a dose changed later elsewhere", () => {
  test("is named in `ignored` and kept; the others are written", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const { a, b, c } = await morningStack(user);
    const later = await as(user, `/api/intakes/2026-11-23/${b}/morning`, {
      method: "PUT",
      body: { status: "skipped", tickedAt: "2026-11-23T09:50:00Z" },
    });
    expect(later.status).toBe(200);
    const doses = [a, b, c].map((supplementId) => ({ supplementId, time: "morning" }));
    for (const status of ["taken", null]) {
      const res = await batch(user, "2026-11-23", { status, doses, tickedAt: "2026-11-23T09:40:00Z" });
      expect(res.status).toBe(200);
      expect(((await res.json()) as IntakeBatchJson).ignored).toEqual([{ supplementId: b, time: "morning" }]);
    }
    expect(await states(user, "2026-11-23")).toEqual([
      "A/morning:open",
      "B/morning:skipped",
      "C/morning:open",
      "B/evening:open",
    ]);
  });
});
