/**
 * Issue 45, stock bounds: every stock input and their products (pack size × packs, count +
 * refills) stay within STOCK_MAX; a change past it is a 4xx naming the field, never a 500
 * (the numeric(8,2) column overflowed), and nothing is written. A huge stock of a tiny dose
 * reads with no run-out date instead of an invalid one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { STOCK_MAX, STOCK_MESSAGES, type StockJson } from "../../src/lib/stock";
import type { Supplement } from "../../src/lib/types";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs } from "../support/tracking-api";
import { type ApiUser, createUser } from "../support/users";

let api: TestApi;
let user: ApiUser;
beforeAll(async () => {
  api = await startApi();
  user = await createUser(api);
});
afterAll(async () => {
  await api?.close();
});

const as = requestsAs(() => api);
async function send(method: string, path: string, body: Record<string, unknown>) {
  const res = await as(user, path, { method, body });
  return { status: res.status, body: (await res.json()) as { message?: string; errors?: Record<string, string[]> } };
}
async function stock(id: number): Promise<StockJson | null | undefined> {
  const list = (await (await as(user, "/api/supplements")).json()) as (Supplement & { stock: StockJson | null })[];
  return list.find((s) => s.id === id)?.stock;
}

type Step = [string, string, Record<string, unknown>, number, string | null];
const put = (body: Record<string, unknown>, status: number, field: string | null = null): Step => [
  "PUT",
  "stock",
  body,
  status,
  field,
];
const packs = (n: number, status: number, field: string | null = null): Step => [
  "POST",
  "refills",
  { packs: n },
  status,
  field,
];

const SCENARIOS: [string, Step[], number | null][] = [
  // [what, steps on a fresh supplement, what is left after them]
  ["+20 packs of 99,999 with no count", [put({ unitsPerPack: STOCK_MAX }, 200), packs(20, 409, "packs")], null],
  [
    "+1 pack of 99,999, then another",
    [put({ unitsPerPack: STOCK_MAX }, 200), packs(1, 201), packs(1, 409, "packs")],
    STOCK_MAX,
  ],
  [
    "a full count, then a pack of 0.01",
    [put({ count: STOCK_MAX, unitsPerPack: 0.01 }, 200), packs(1, 409, "packs")],
    STOCK_MAX,
  ],
  [
    "99,000 and 2 packs of 500 (100,000)",
    [put({ count: 99_000, unitsPerPack: 500 }, 200), packs(2, 409, "packs")],
    99_000,
  ],
  [
    "99,000 and 1 pack of 500, twice",
    [put({ count: 99_000, unitsPerPack: 500 }, 200), packs(1, 201), packs(1, 409, "packs")],
    99_500,
  ],
  ["a pack of 1e-9", [put({ unitsPerPack: 1e-9 }, 400, "unitsPerPack")], null],
  ["a pack of 0.001", [put({ unitsPerPack: 0.001 }, 400, "unitsPerPack")], null],
  ["a count of 1e-9", [put({ count: 1e-9 }, 400, "count")], null],
  ["a count of 1e300", [put({ count: 1e300 }, 400, "count")], null],
  ["a pack of 0.01 and 20 of them", [put({ unitsPerPack: 0.01 }, 200), packs(20, 201)], 0.2],
];

describe("stock bounds: 4xx naming the field, never 500, nothing written", () => {
  for (const [what, steps, left] of SCENARIOS) {
    test(what, async () => {
      const id = await addSupplementAs(api, user, {});
      for (const [method, path, body, status, field] of steps) {
        const res = await send(method, `/api/supplements/${id}/${path}`, body);
        expect([path, body, res.status]).toEqual([path, body, status]);
        if (field) expect(Object.keys(res.body.errors ?? {})).toEqual([field]);
        if (status === 409) expect(res.body.message).toBe(STOCK_MESSAGES.tooMuchStock);
      }
      expect((await stock(id))?.left ?? null).toBe(left);
    });
  }
});

describe("run-out at the extremes", () => {
  test("99,999 of a weekly 0.01 dose: no run-out date (not 0NaN-NaN-NaN), and the list still answers", async () => {
    const id = await addSupplementAs(api, user, {
      doseAmount: 0.01,
      schedule: { times: ["morning"], days: [1] },
    });
    expect((await send("PUT", `/api/supplements/${id}/stock`, { count: STOCK_MAX, unitsPerPack: 100 })).status).toBe(
      200,
    );
    expect(await stock(id)).toEqual({ left: STOCK_MAX, unitsPerPack: 100, runsOutOn: null, refillDue: false });
  });
});
