/**
 * Issue 40 "Benchmark", counted in SQL statements (createContext's `onQuery`): with stock on
 * twenty supplements, GET /api/supplements is still one statement (stock is part of it) and
 * GET /api/today at most two (issue 46: nothing of either kept in memory); a tick shows in the
 * next list read, and so does a new day.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { freezeClock, resetClock } from "../../api/lib/clock";
import type { Supplement } from "../../src/lib/types";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs, statementLog } from "../support/tracking-api";
import { createUser } from "../support/users";

let api: TestApi;
const log = statementLog();

beforeAll(async () => {
  api = await startApi({ INSIGHTS_FLUSH_MS: "0" }, { database: await migratedDatabase(), onQuery: log.record });
});
afterAll(async () => {
  resetClock();
  await api?.close();
});
afterEach(() => resetClock());

const as = requestsAs(() => api);

/** `path`'s JSON (a 200). */
async function getJson<T>(user: Parameters<typeof as>[0], path: string): Promise<T> {
  const res = await as(user, path);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

/** The statements `path`'s GET sends, and its JSON. */
async function read<T>(user: Parameters<typeof as>[0], path: string) {
  const { result: body, statements } = await log.counted(() => getJson<T>(user, path));
  return { body, statements };
}

/** `read` until the session and user are warm (at most `most` statements), for at most a second. */
async function readWarm<T>(user: Parameters<typeof as>[0], path: string, most = path === "/api/today" ? 2 : 1) {
  const { result: body, statements } = await log.untilAtMost(most, () => getJson<T>(user, path));
  return { body, statements };
}

describe("stock on twenty supplements", () => {
  test("the list costs the statements it cost without stock: one; Today at most two", async () => {
    const move = freezeClock("2026-11-23T10:00:00Z");
    const [plain, stocked] = [await createUser(api), await createUser(api)];
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) {
      await addSupplementAs(api, plain, { name: `P${i}` });
      const id = await addSupplementAs(api, stocked, { name: `S${i}`, doseAmount: 2 });
      ids.push(id);
      const res = await as(stocked, `/api/supplements/${id}/stock`, {
        method: "PUT",
        body: { count: 60, unitsPerPack: 60 },
      });
      expect(res.status).toBe(200);
    }
    await as(stocked, `/api/supplements/${ids[0]}/refills`, { method: "POST", body: { packs: 1 } });
    move("2026-11-23T10:00:01Z"); // the ticks come after the count
    for (const id of ids.slice(0, 5)) {
      await as(stocked, `/api/intakes/2026-11-23/${id}/anytime`, { method: "PUT", body: { status: "taken" } });
    }
    await readWarm(plain, "/api/today"); // sessions and users warm
    await readWarm(stocked, "/api/today");
    const statements = [
      (await read<Supplement[]>(plain, "/api/supplements")).statements.length,
      (await read<Supplement[]>(stocked, "/api/supplements")).statements.length,
    ];
    expect(statements).toEqual([1, 1]);
    // Every read costs the same: nothing is served from memory.
    for (const [path, most] of [
      ["/api/supplements", 1],
      ["/api/today", 2],
      ["/api/supplements", 1],
      ["/api/today", 2],
    ] as const) {
      const n = (await read(stocked, path)).statements.length;
      expect([path, n >= 1 && n <= most]).toEqual([path, true]);
    }
    const list = (await read<Supplement[]>(stocked, "/api/supplements")).body;
    expect(list.map((s) => s.stock?.left)).toEqual([118, 58, 58, 58, 58, ...Array(15).fill(60)]);

    // A tick shows in the next read, one statement.
    await as(stocked, `/api/intakes/2026-11-23/${ids[9]}/anytime`, { method: "PUT", body: { status: "taken" } });
    const fresh = await read<Supplement[]>(stocked, "/api/supplements");
    expect(fresh.body[9]?.stock?.left).toBe(58);
    expect(fresh.statements.length).toBe(1);

    // A new day: the run-out dates are counted from it.
    move("2026-11-24T10:00:00Z");
    const next = await read<Supplement[]>(stocked, "/api/supplements");
    expect(next.body[19]?.stock?.runsOutOn).toBe("2026-12-24");
    expect(next.statements.length).toBe(1);
  });
});
