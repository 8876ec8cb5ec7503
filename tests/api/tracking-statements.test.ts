/**
 * Issue 19 "Speed", counted in SQL statements (every statement the app sends, through
 * createContext's `onQuery`): a tick or an undo is at most two statements once the session is
 * warm; `GET /api/today` at most two, every time (issue 46: nothing kept in memory), and fresh
 * after each change of the user's list, a schedule, the zone, the log or the date; a 366-day
 * history is one statement.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { CHANGES_CHANNEL } from "../../api/lib/cache";
import { freezeClock, resetClock } from "../../api/lib/clock";
import type { HistoryJson, TodayJson } from "../../src/lib/schedule";
import { notificationBarrier } from "../support/notifications";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs, statementLog } from "../support/tracking-api";
import { type ApiUser, createUser } from "../support/users";

let api: TestApi;
const { record, counted, untilAtMost } = statementLog();

beforeAll(async () => {
  // No periodic Insights flush: nothing but the requests under test sends a statement.
  api = await startApi({ INSIGHTS_FLUSH_MS: "0" }, { database: await migratedDatabase(), onQuery: record });
});
afterAll(async () => {
  resetClock();
  await api?.close();
});
afterEach(() => resetClock());

const as = requestsAs(() => api);

const addSupplement = (user: ApiUser, body: Record<string, unknown>) => addSupplementAs(api, user, body);

async function readToday(user: ApiUser): Promise<TodayJson> {
  const res = await as(user, "/api/today");
  expect(res.status).toBe(200);
  return (await res.json()) as TodayJson;
}

/** Reads Today until the session and user are warm (at most two statements); its statements and body. */
async function readWarm(user: ApiUser): Promise<{ statements: string[]; day: TodayJson }> {
  const { result: day, statements } = await untilAtMost(2, () => readToday(user));
  return { statements, day };
}

const DAILY = [1, 2, 3, 4, 5, 6, 7];

describe("a tick and an undo", () => {
  test("PUT and DELETE on /api/intakes/… send at most two statements each, once the session is warm", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const x = await addSupplement(user, { schedule: { times: ["morning", "evening"], days: DAILY } });
    const n = await addSupplement(user, { name: "N", schedule: null });
    // The session and the user are remembered from here on (the adds' own notifications landed).
    await readWarm(user);

    const variants: [string, string, Record<string, string> | undefined, number][] = [
      ["PUT", `2026-11-23/${x}/morning`, { status: "taken" }, 200],
      ["PUT", `2026-11-23/${x}/morning`, { status: "taken" }, 200], // a repeat
      ["PUT", `2026-11-23/${x}/morning`, { status: "skipped" }, 200], // a change
      ["PUT", `2026-11-22/${x}/evening`, { status: "taken" }, 400], // the day before it was added
      ["PUT", `2026-11-23/${n}/as-needed`, { status: "taken" }, 200],
      ["DELETE", `2026-11-23/${x}/morning`, undefined, 204],
      ["DELETE", `2026-11-23/${x}/morning`, undefined, 204], // nothing there
      ["DELETE", `2026-11-23/${n}/as-needed`, undefined, 204],
    ];
    for (const [method, path, body, status] of variants) {
      const { result: res, statements } = await counted(() => as(user, `/api/intakes/${path}`, { method, body }));
      expect([method, path, res.status]).toEqual([method, path, status]);
      // On failure, the statements themselves are shown.
      expect([method, path, statements.length <= 2 ? "at most 2" : statements]).toEqual([method, path, "at most 2"]);
    }
    // The first is the ownership and schedule check, the second the write.
    const { statements } = await counted(() =>
      as(user, `/api/intakes/2026-11-23/${x}/evening`, { method: "PUT", body: { status: "taken" } }),
    );
    expect(statements).toHaveLength(2);
    expect(statements[0]).toContain('from "schedule_versions"');
    // One statement that writes the dose unless it changed later (docs/offline.md).
    expect(statements[1]).toMatch(/insert into "?intakes"? /);
  });
});

describe("a dose tick sends no NOTIFY (issue 46: a notifying commit serialises every commit)", () => {
  test("a tick, a repeat, an undo, Take all and its undo, and a new refill lead time: no change notification", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-23T10:00:00Z");
    const x = await addSupplement(user, { schedule: { times: ["morning", "evening"], days: DAILY } });
    const payloads: string[] = [];
    await api.ctx.database.listen(CHANGES_CHANNEL, (payload) => void payloads.push(payload));
    const applied = await notificationBarrier(api.ctx.database);
    await applied(); // the add's own notifications have passed
    const both = [
      { supplementId: x, time: "morning" },
      { supplementId: x, time: "evening" },
    ];
    const writes: [string, string, string, Record<string, unknown> | undefined, number][] = [
      ["a tick", "PUT", `/api/intakes/2026-11-23/${x}/morning`, { status: "taken" }, 200],
      ["a repeat", "PUT", `/api/intakes/2026-11-23/${x}/morning`, { status: "taken" }, 200],
      ["a change", "PUT", `/api/intakes/2026-11-23/${x}/morning`, { status: "skipped" }, 200],
      ["an undo", "DELETE", `/api/intakes/2026-11-23/${x}/morning`, undefined, 204],
      ["Take all", "PUT", "/api/intakes/2026-11-23", { status: "taken", doses: both }, 200],
      ["its undo", "PUT", "/api/intakes/2026-11-23", { status: null, doses: both }, 200],
      ["a refill lead time", "PUT", "/api/reminders", { refillLeadDays: 14 }, 200],
    ];
    for (const [what, method, path, body, status] of writes) {
      payloads.length = 0;
      const res = await as(user, path, { method, body });
      expect([what, res.status]).toEqual([what, status]);
      await applied();
      const changes = payloads.filter((p) => !(JSON.parse(p) as { probe?: string }).probe);
      expect([what, changes]).toEqual([what, []]);
    }
  });
});

describe("GET /api/today", () => {
  test("at most two statements every time, fresh after a change of the list, a schedule, the zone, the log or the date", async () => {
    const user = await createUser(api);
    const move = freezeClock("2026-11-23T10:00:00Z");
    const x = await addSupplement(user, { name: "X" });
    const warm = (await readWarm(user)).statements;
    expect([warm.length > 0, warm.length <= 2]).toEqual([true, true]);
    // Nothing from memory: each read asks the database again, at the same cost.
    for (let i = 0; i < 3; i++) expect((await counted(() => readToday(user))).statements).toHaveLength(warm.length);

    const changes: [string, () => Promise<unknown>, (day: TodayJson) => void][] = [
      [
        "the log (a tick)",
        () => as(user, `/api/intakes/2026-11-23/${x}/anytime`, { method: "PUT", body: { status: "taken" } }),
        (day) => expect(day.summary.taken).toBe(1),
      ],
      [
        "the list (an add)",
        () => addSupplement(user, { name: "Y" }),
        (day) => expect(day.doses.map((d) => d.name)).toEqual(["X", "Y"]),
      ],
      [
        "a schedule",
        () =>
          as(user, `/api/supplements/${x}`, {
            method: "PUT",
            body: {
              name: "X",
              quantityType: "Capsule(s)",
              frequency: "daily",
              schedule: { times: ["bedtime"], days: DAILY },
            },
          }),
        (day) =>
          expect(day.doses.map((d) => [d.name, d.time])).toEqual([
            ["X", "bedtime"],
            ["Y", "anytime"],
          ]),
      ],
      [
        "the zone",
        () => as(user, "/api/profile", { method: "PUT", body: { timeZone: "Pacific/Kiritimati" } }),
        (day) => expect([day.date, day.timeZone]).toEqual(["2026-11-24", "Pacific/Kiritimati"]),
      ],
      [
        "the date (past midnight in the user's zone)",
        async () => move("2026-11-24T10:00:01Z"), // 2026-11-25 00:00:01 in Kiritimati
        (day) => expect(day.date).toBe("2026-11-25"),
      ],
    ];
    for (const [what, change, fresh] of changes) {
      const res = await change();
      if (res instanceof Response) expect([what, res.status]).toEqual([what, 200]);
      const next = await counted(() => readToday(user));
      fresh(next.result);
      const after = await readWarm(user);
      fresh(after.day);
      expect([what, after.statements.length]).toEqual([what, warm.length]);
    }
  });
});

describe("GET /api/history", () => {
  test("a 366-day history (and the default 84 days) is one statement", async () => {
    const user = await createUser(api);
    const move = freezeClock("2026-01-10T10:00:00Z");
    const x = await addSupplement(user, { schedule: { times: ["morning", "evening"], days: DAILY } });
    await addSupplement(user, { name: "N", schedule: null });
    move("2026-11-22T10:00:00Z");
    await as(user, `/api/supplements/${x}`, {
      method: "PUT",
      body: {
        name: "X",
        quantityType: "Capsule(s)",
        frequency: "daily",
        schedule: { times: ["morning"], days: [1, 3] },
      },
    });
    move("2026-11-23T10:00:00Z");
    await as(user, `/api/intakes/2026-11-23/${x}/morning`, { method: "PUT", body: { status: "taken" } });
    await readToday(user); // the session is warm
    for (const query of ["from=2025-11-23&to=2026-11-23", "", "from=2026-01-01&to=2026-06-30"]) {
      const { result: res, statements } = await counted(() => as(user, `/api/history?${query}`));
      expect([query, res.status]).toEqual([query, 200]);
      const body = (await res.json()) as HistoryJson;
      expect(body.days.length).toBeGreaterThan(0);
      expect([query, statements.length]).toEqual([query, 1]);
    }
    const full = (await (await as(user, "/api/history?from=2025-11-23&to=2026-11-23")).json()) as HistoryJson;
    expect(full.days).toHaveLength(366);
    expect(full.days.at(-1)).toEqual({ date: "2026-11-23", due: 1, taken: 1, skipped: 0, missed: 0 });
  });
});
