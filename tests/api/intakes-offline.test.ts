/**
 * Offline ticks (issue 40) on a moved clock: each change carries the time it was made
 * (`tickedAt`) and the later change to a dose wins, whatever order the changes arrive in:
 * replays count once, an older tick or clear is answered 200 with the stored state and
 * changes nothing, a clear keeps its time (devices × clears: an older clear arriving later never
 * moves it back); the 7-day window and a deleted supplement refuse.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { intakeClears, intakes } from "../../db/schema";
import type { IntakeBatchJson, IntakeJson, TodayJson } from "../../src/lib/schedule";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs } from "../support/tracking-api";
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

const NOW = "2026-11-23T10:00:00.000Z";
const DAY = "2026-11-23";
/** An instant `minutes` before NOW, as a device would send it. */
const ago = (minutes: number) => new Date(Date.parse(NOW) - minutes * 60_000).toISOString();

/** A daily morning capsule named X unless `body` says otherwise. */
const addSupplement = (user: ApiUser, body: Record<string, unknown> = {}) =>
  addSupplementAs(api, user, { schedule: { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] }, ...body });

async function rowsOf(user: ApiUser) {
  return api.ctx.database.db
    .select({ date: intakes.date, status: intakes.status, at: intakes.at })
    .from(intakes)
    .where(eq(intakes.userId, user.id));
}

type Step =
  | { op: "tick"; status: "taken" | "skipped"; minutesAgo: number; applied: boolean }
  | { op: "clear"; minutesAgo: number; applied: boolean }
  | { op: "all"; status: "taken" | null; minutesAgo: number; applied: boolean };

/** Sends one change for the dose (DAY, id, morning) and answers whether the server applied it. */
async function send(
  user: ApiUser,
  id: number,
  step: Step,
): Promise<{ applied: boolean; state: string | null; at?: string }> {
  const tickedAt = ago(step.minutesAgo);
  const path = `/api/intakes/${DAY}/${id}/morning`;
  if (step.op === "tick") {
    const res = await as(user, path, { method: "PUT", body: { status: step.status, tickedAt } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as IntakeJson;
    return { applied: body.applied, state: body.status, at: body.at };
  }
  if (step.op === "clear") {
    const res = await as(user, `${path}?tickedAt=${encodeURIComponent(tickedAt)}`, { method: "DELETE" });
    if (res.status === 204) return { applied: true, state: null };
    expect(res.status).toBe(200);
    const body = (await res.json()) as IntakeJson;
    return { applied: body.applied, state: body.status, at: body.at };
  }
  const res = await as(user, `/api/intakes/${DAY}`, {
    method: "PUT",
    body: { status: step.status, doses: [{ supplementId: id, time: "morning" }], tickedAt },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as IntakeBatchJson;
  return { applied: body.ignored.length === 0, state: null };
}

/**
 * Sends the steps in order, each applied or not as it says; a single tick or clear that changed
 * nothing answers the state the server keeps: the newer intake (status and time), or the newer
 * clear (no status, its time).
 */
async function sendAll(user: ApiUser, id: number, steps: Step[]) {
  for (const [i, step] of steps.entries()) {
    const outcome = await send(user, id, step);
    expect([i, step.op, outcome.applied]).toEqual([i, step.op, step.applied]);
    if (step.applied || step.op === "all") continue;
    const [kept] = await rowsOf(user);
    const [clear] = await api.ctx.database.db
      .select({ at: intakeClears.at })
      .from(intakeClears)
      .where(and(eq(intakeClears.userId, user.id), eq(intakeClears.supplementId, id)));
    const stored = kept ? [kept.status, kept.at.toISOString()] : [null, clear?.at.toISOString()];
    expect([i, outcome.state, outcome.at]).toEqual([i, ...stored]);
  }
}

const tick = (status: "taken" | "skipped", minutesAgo: number, applied = true): Step => ({
  op: "tick",
  status,
  minutesAgo,
  applied,
});
const clear = (minutesAgo: number, applied = true): Step => ({ op: "clear", minutesAgo, applied });
const all = (status: "taken" | null, minutesAgo: number, applied = true): Step => ({
  op: "all",
  status,
  minutesAgo,
  applied,
});

describe("the later change to a dose wins, by the time it was made", () => {
  // [what, the changes in the order they reach the server, the dose's final status, its `at` (minutes ago)]
  const cases: [string, Step[], "taken" | "skipped" | null, number | null][] = [
    ["a replay counts once", [tick("taken", 30), tick("taken", 30)], "taken", 30],
    ["a replay of a repeat keeps the first time", [tick("taken", 30), tick("taken", 20)], "taken", 30],
    ["an older tick is ignored", [tick("skipped", 10), tick("taken", 30, false)], "skipped", 10],
    ["a newer tick wins", [tick("taken", 30), tick("skipped", 10)], "skipped", 10],
    ["a clear wins over an older tick", [tick("taken", 30), clear(20)], null, null],
    [
      "an older tick replayed after a clear stays cleared",
      [tick("taken", 30), clear(20), tick("taken", 30, false)],
      null,
      null,
    ],
    ["an older tick sent after a clear stays cleared", [clear(20), tick("skipped", 40, false)], null, null],
    ["a tick after a clear brings it back", [clear(20), tick("taken", 10)], "taken", 10],
    [
      "after a clear and a newer tick, an older tick or clear answers the tick",
      [clear(20), tick("taken", 10), tick("skipped", 15, false), clear(12, false)],
      "taken",
      10,
    ],
    ["an older clear leaves a newer tick", [tick("taken", 10), clear(20, false)], "taken", 10],
    ["a replayed clear counts once", [tick("taken", 30), clear(20), clear(20), tick("taken", 25, false)], null, null],
    ["Take all: an older single tick is ignored", [all("taken", 30), tick("skipped", 40, false)], "taken", 30],
    ["Take all's undo keeps its time", [tick("taken", 30), all(null, 20), tick("taken", 25, false)], null, null],
    ["an older Take all is ignored", [tick("skipped", 10), all("taken", 30, false)], "skipped", 10],
    ["an older Take all undo is ignored", [tick("taken", 10), all(null, 30, false)], "taken", 10],
  ];

  test.each(cases)("%s", async (_what, steps, status, minutesAgo) => {
    freezeClock(NOW);
    const user = await createUser(api);
    const id = await addSupplement(user);
    await sendAll(user, id, steps);
    const rows = await rowsOf(user);
    expect(rows.map((r) => [r.date, r.status, r.at.toISOString()])).toEqual(
      status === null ? [] : [[DAY, status, ago(minutesAgo ?? 0)]],
    );
    const day = (await (await as(user, `/api/today?date=${DAY}`)).json()) as TodayJson;
    expect(day.summary.taken).toBe(status === "taken" ? 1 : 0);
  });

  // Devices × clears (issue 45 §5): a dose's clear time only ever moves later. Device A clears
  // last; device B's older clear (or Take all's undo) arrives after it and must not move the
  // time back, or a replayed tick made between the two would bring the dose back.
  const clears: [string, Step[], "taken" | "skipped" | null, number | null][] = [
    [
      "A clears, B's older clear arrives, then a tick made between them: still cleared",
      [tick("taken", 40), clear(10), clear(30), tick("taken", 20, false)],
      null,
      null,
    ],
    [
      "the same with B's older Take all undo, then an older Take all",
      [tick("taken", 40), all(null, 10), all(null, 30), all("taken", 20, false)],
      null,
      null,
    ],
    [
      "two older clears after the newest: a skip between them stays out",
      [tick("taken", 40), clear(5), clear(30), clear(25), tick("skipped", 15, false)],
      null,
      null,
    ],
    [
      "B's older clear before A's newer one: the newer time holds",
      [clear(30), clear(10), tick("taken", 20, false)],
      null,
      null,
    ],
    ["a tick newer than every clear brings the dose back", [clear(10), clear(30), tick("taken", 5)], "taken", 5],
    [
      "A's clear, B's older clear, then A's older tick replayed: cleared",
      [tick("skipped", 50), clear(8), clear(45), tick("skipped", 50, false), tick("taken", 9, false)],
      null,
      null,
    ],
  ];

  test.each(clears)("devices × clears: %s", async (_what, steps, status, minutesAgo) => {
    freezeClock(NOW);
    const user = await createUser(api);
    const id = await addSupplement(user);
    await sendAll(user, id, steps);
    const rows = await rowsOf(user);
    expect(rows.map((r) => [r.date, r.status, r.at.toISOString()])).toEqual(
      status === null ? [] : [[DAY, status, ago(minutesAgo ?? 0)]],
    );
  });

  test("Take all of two doses, one changed later elsewhere: only that one is ignored, each way", async () => {
    freezeClock(NOW);
    const user = await createUser(api);
    const x = await addSupplement(user, { name: "X" });
    const y = await addSupplement(user, { name: "Y" });
    const xEvening = await addSupplement(user, {
      name: "Z",
      schedule: { times: ["morning", "evening"], days: [1, 2, 3, 4, 5, 6, 7] },
    });
    const dose = (supplementId: number, time: "morning" | "evening" = "morning") => ({ supplementId, time });
    expect(
      (
        await as(user, `/api/intakes/${DAY}/${y}/morning`, {
          method: "PUT",
          body: { status: "skipped", tickedAt: ago(10) },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await as(user, `/api/intakes/${DAY}/${xEvening}/evening`, {
          method: "PUT",
          body: { status: "taken", tickedAt: ago(5) },
        })
      ).status,
    ).toBe(200);
    const batch = async (status: "taken" | null, minutesAgo: number) => {
      const res = await as(user, `/api/intakes/${DAY}`, {
        method: "PUT",
        body: { status, doses: [dose(x), dose(y), dose(xEvening)], tickedAt: ago(minutesAgo) },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as IntakeBatchJson).ignored;
    };
    expect(await batch("taken", 30)).toEqual([dose(y)]);
    expect(await batch(null, 20)).toEqual([dose(y)]);
    expect(await batch("taken", 15)).toEqual([dose(y)]);
    expect(await batch(null, 1)).toEqual([]);
    const left = await api.ctx.database.db
      .select({ id: intakes.supplementId, time: intakes.time, status: intakes.status })
      .from(intakes)
      .where(eq(intakes.userId, user.id));
    expect(left).toEqual([{ id: xEvening, time: "evening", status: "taken" }]);
  });

  test("an ignored tick answers the stored state and its time", async () => {
    freezeClock(NOW);
    const user = await createUser(api);
    const id = await addSupplement(user);
    await send(user, id, tick("skipped", 10));
    const res = await as(user, `/api/intakes/${DAY}/${id}/morning`, {
      method: "PUT",
      body: { status: "taken", tickedAt: ago(30) },
    });
    expect(await res.json()).toEqual({
      date: DAY,
      supplementId: id,
      time: "morning",
      status: "skipped",
      at: ago(10),
      applied: false,
    });
  });
});

describe("the tick's time and the window", () => {
  // [what, date on the path, tickedAt, status, stored `at` when written]
  const cases: [string, string, string, number, string | null][] = [
    ["no tickedAt: now", DAY, "", 200, NOW],
    ["made yesterday, for yesterday", "2026-11-22", "2026-11-22T21:00:00.000Z", 200, "2026-11-22T21:00:00.000Z"],
    ["an offset is read", DAY, "2026-11-23T11:30:00+02:00", 200, "2026-11-23T09:30:00.000Z"],
    ["a device clock 2 minutes fast counts as now", DAY, "2026-11-23T10:02:00.000Z", 200, NOW],
    ["10 minutes in the future", DAY, "2026-11-23T10:10:00.000Z", 400, null],
    ["9 days old", DAY, "2026-11-14T10:00:00.000Z", 400, null],
    ["not a date-time", DAY, "2026-11-23", 400, null],
    ["not a string", DAY, "123", 400, null],
    ["the last day of the window", "2026-11-16", "2026-11-16T08:00:00.000Z", 200, "2026-11-16T08:00:00.000Z"],
    ["a day that left the window while the tick waited", "2026-11-15", "2026-11-15T20:00:00.000Z", 400, null],
  ];

  test.each(cases)("%s", async (_what, date, tickedAt, status, at) => {
    const move = freezeClock("2026-11-01T10:00:00Z"); // the supplement is older than the window
    const user = await createUser(api);
    const id = await addSupplement(user);
    move(NOW);
    const body: Record<string, unknown> = { status: "taken" };
    if (tickedAt) body.tickedAt = tickedAt === "123" ? 123 : tickedAt;
    const res = await as(user, `/api/intakes/${date}/${id}/morning`, { method: "PUT", body });
    expect(res.status).toBe(status);
    const answer = (await res.json()) as { message?: string };
    if (status === 400) expect(typeof answer.message).toBe("string");
    const rows = await rowsOf(user);
    expect(rows.map((r) => [r.date, r.at.toISOString()])).toEqual(at === null ? [] : [[date, at]]);
    // A clear is judged the same way.
    const cleared = await as(
      user,
      `/api/intakes/${date}/${id}/morning${tickedAt ? `?tickedAt=${encodeURIComponent(tickedAt)}` : ""}`,
      {
        method: "DELETE",
      },
    );
    expect(cleared.status).toBe(status === 200 ? 204 : 400);
  });

  test("a tick made before midnight and sent after it lands on the day it was made", async () => {
    const move = freezeClock("2026-11-23T10:40:00Z"); // 23:40 in Auckland (UTC+13)
    const user = await createUser(api);
    expect((await as(user, "/api/profile", { method: "PUT", body: { timeZone: "Pacific/Auckland" } })).status).toBe(
      200,
    );
    const id = await addSupplement(user);
    const made = "2026-11-23T10:40:00.000Z"; // the tick, queued offline
    move("2026-11-23T11:20:00Z"); // 00:20 on 24 November in Auckland
    const res = await as(user, `/api/intakes/2026-11-23/${id}/morning`, {
      method: "PUT",
      body: { status: "taken", tickedAt: made },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as IntakeJson).applied).toBe(true);
    const rows = await rowsOf(user);
    expect(rows.map((r) => [r.date, r.at.toISOString()])).toEqual([["2026-11-23", made]]);
    const today = (await (await as(user, "/api/today")).json()) as TodayJson;
    expect([today.date, today.summary.taken]).toEqual(["2026-11-24", 0]);
  });
});

describe("a supplement deleted while the tick waited", () => {
  test.each(["PUT", "DELETE", "all"] as const)("%s: 404, nothing written", async (method) => {
    freezeClock(NOW);
    const user = await createUser(api);
    const id = await addSupplement(user);
    expect((await as(user, `/api/supplements/${id}`, { method: "DELETE" })).status).toBe(204);
    const path = `/api/intakes/${DAY}/${id}/morning`;
    const res =
      method === "PUT"
        ? await as(user, path, { method: "PUT", body: { status: "taken", tickedAt: ago(5) } })
        : method === "DELETE"
          ? await as(user, `${path}?tickedAt=${encodeURIComponent(ago(5))}`, { method: "DELETE" })
          : await as(user, `/api/intakes/${DAY}`, {
              method: "PUT",
              body: { status: "taken", doses: [{ supplementId: id, time: "morning" }], tickedAt: ago(5) },
            });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toBe("Supplement not found");
    expect(await rowsOf(user)).toEqual([]);
  });
});
