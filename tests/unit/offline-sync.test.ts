/**
 * The offline client's rules (issue 40, issue 45 §5: src/lib/offline-queue.ts and
 * src/lib/offline-sync.ts) without a browser: IndexedDB is a fresh in-memory one per test
 * (fake-indexeddb, tests/support/indexed-db.ts), the network a fake `fetch` that records each request and
 * answers from a script. As tables: change × request (every change carries the time it was
 * made, an un-tick too), answer × outcome (saved, waiting, dropped; kept or forgotten), the
 * queue's order and owner, and the flush's stop at the first change that must wait.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ApiError } from "../../src/lib/api";
import * as queue from "../../src/lib/offline-queue";
import { OFFLINE_CACHE_PREFIX as DB, type QueuedChange } from "../../src/lib/offline-queue";
import type { SendResult } from "../../src/lib/offline-sync";
import * as sync from "../../src/lib/offline-sync";
import { freshIndexedDB, storedValue, storedValues, storeValue, type TestIndexedDB } from "../support/indexed-db";

let idb: TestIndexedDB;

interface Sent {
  method: string;
  url: string;
  body: unknown;
}
/** What the fake network answers next: a status and a JSON body, or "offline" (fetch throws). */
type Answer = { status: number; body?: unknown } | "offline";

const sent: Sent[] = [];
let answers: Answer[] = [];
let defaultAnswer: Answer = { status: 200 };
const realFetch = globalThis.fetch;
const realCaches = (globalThis as { caches?: unknown }).caches;
const cacheNames = new Set<string>();

beforeAll(() => {
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    sent.push({ method: init?.method ?? "GET", url, body: init?.body ? JSON.parse(String(init.body)) : undefined });
    const answer = answers.shift() ?? defaultAnswer;
    if (answer === "offline") throw new TypeError("Failed to fetch");
    const text = answer.body === undefined ? "" : JSON.stringify(answer.body);
    return new Response(answer.status === 204 ? null : text, { status: answer.status });
  }) as typeof fetch;
  (globalThis as { caches?: unknown }).caches = {
    keys: async () => [...cacheNames],
    delete: async (name: string) => cacheNames.delete(name),
  };
});
afterAll(() => {
  globalThis.fetch = realFetch;
  delete (globalThis as { indexedDB?: unknown }).indexedDB;
  (globalThis as { caches?: unknown }).caches = realCaches;
});
beforeEach(async () => {
  idb = await freshIndexedDB(DB);
  sent.length = 0;
  answers = [];
  defaultAnswer = { status: 200 };
  cacheNames.clear();
});

const ALICE = "user-alice";
const BOB = "user-bob";

function change(over: Partial<QueuedChange> = {}): QueuedChange {
  const base = { date: "2026-11-20", supplementId: 7, time: "morning" as const, ...over };
  return {
    key: queue.changeKey(base),
    userId: ALICE,
    status: "taken",
    tickedAt: "2026-11-20T07:00:00.000Z",
    ...base,
    ...over,
  };
}

const answerOf = (c: QueuedChange, applied = true) => ({
  date: c.date,
  supplementId: c.supplementId,
  time: c.time,
  status: c.status,
  at: c.tickedAt,
  applied,
});

describe("opening the database", () => {
  // The module keeps its open database once one open worked (until a versionchange lets it go).
  test("a failed open (no IndexedDB) fails that call only; the next call opens again", async () => {
    idb.failNextOpen = new Error("no IndexedDB");
    await expect(queue.queueChange(change())).rejects.toThrow("no IndexedDB");
    await queue.queueChange(change({ supplementId: 8 }));
    expect((await queue.queuedChanges(ALICE)).map((c) => c.supplementId)).toEqual([8]);
    const opens = idb.opens;
    await queue.queuedChanges(ALICE);
    expect(idb.opens).toBe(opens);
  });
});

describe("each change is sent with the time it was made", () => {
  const TICKED = "2026-11-20T07:03:04.005+00:00";
  test.each([
    ["taken", "taken", "PUT", "/api/intakes/2026-11-20/7/morning", { status: "taken", tickedAt: TICKED }],
    ["skipped", "skipped", "PUT", "/api/intakes/2026-11-20/7/morning", { status: "skipped", tickedAt: TICKED }],
    [
      "un-ticked (null): a DELETE whose query carries tickedAt",
      null,
      "DELETE",
      `/api/intakes/2026-11-20/7/morning?tickedAt=${encodeURIComponent(TICKED)}`,
      undefined,
    ],
  ] as const)("%s", async (_what, status, method, url, body) => {
    const c = change({ status, tickedAt: TICKED });
    await sync.sendChange(c);
    expect(sent).toEqual([{ method, url, body }]);
  });

  test.each([
    ["an evening dose of another day", { date: "2026-11-19", supplementId: 12, time: "evening" as const }],
    ["an as-needed dose", { date: "2026-11-18", supplementId: 3, time: "as-needed" as const }],
  ])("the path names the change's own day, supplement and time: %s", async (_what, over) => {
    for (const status of ["taken", null] as const) {
      sent.length = 0;
      await sync.sendChange(change({ ...over, status }));
      expect(new URL(sent[0]?.url ?? "", "http://x").pathname).toBe(
        `/api/intakes/${over.date}/${over.supplementId}/${over.time}`,
      );
    }
  });
});

describe("what an answer makes of a change", () => {
  const later = { ...answerOf(change({ status: "skipped", tickedAt: "2026-11-20T08:00:00.000Z" })), applied: false };
  test.each([
    ["200 applied", "taken", { status: 200, body: answerOf(change()) }, "saved", false],
    ["200 ignored: a later change kept", "taken", { status: 200, body: later }, "saved", false],
    ["204 (an un-tick applied)", null, { status: 204 }, "saved", false],
    ["200 to an un-tick (a later tick kept)", null, { status: 200, body: later }, "saved", false],
    ["no network", "taken", "offline", "waiting", true],
    ["no network, an un-tick", null, "offline", "waiting", true],
    ["401 (signed out)", "taken", { status: 401, body: { message: "Unauthorized" } }, "waiting", true],
    ["404 (the supplement is gone)", "taken", { status: 404, body: { message: "Not found" } }, "dropped", false],
    ["400 (out of the window)", null, { status: 400, body: { message: "Too old" } }, "dropped", false],
    ["500", "skipped", { status: 500, body: { message: "Boom" } }, "dropped", false],
    ["429", "taken", { status: 429, body: { message: "Slow down" } }, "dropped", false],
  ] as const)("%s", async (_what, status, scripted, kind, kept) => {
    const answer = scripted as Answer;
    const c = change({ status });
    await queue.queueChange(c);
    answers = [answer];
    const result = await sync.sendChange(c);
    expect(result.kind).toBe(kind);
    expect(result.change).toEqual(c);
    if (result.kind === "saved") {
      const body = answer !== "offline" ? answer.body : undefined;
      expect(result.answer).toEqual((body ?? null) as never);
    }
    if (result.kind === "dropped" && answer !== "offline") {
      expect(result.status).toBe(answer.status);
      expect(result.error).toBeInstanceOf(ApiError);
      expect((result.error as Error).message).toBe((answer.body as { message: string }).message);
    }
    expect((await queue.queuedChanges(ALICE)).length).toBe(kept ? 1 : 0);
  });

  test("a change replaced meanwhile stays: only the one sent is forgotten", async () => {
    const first = change({ status: "taken" });
    const newer = change({ status: null, tickedAt: "2026-11-20T07:00:05.000Z" });
    const sameTimeOtherStatus = change({ status: "skipped" });
    const sameStatusLater = change({ tickedAt: "2026-11-20T07:00:09.000Z" });
    for (const [sentOne, stored, keptAfter] of [
      [first, newer, [newer]],
      [first, sameTimeOtherStatus, [sameTimeOtherStatus]],
      [first, sameStatusLater, [sameStatusLater]],
      [first, first, []],
    ] as const) {
      idb = await freshIndexedDB(DB);
      await queue.queueChange(stored);
      await sync.sendChange(sentOne);
      expect(await queue.queuedChanges(ALICE)).toEqual([...keptAfter]);
    }
  });
});

describe("the queue", () => {
  test("one change per dose (the latest replaces), the user's own only, oldest first", async () => {
    const a = change({ supplementId: 1, tickedAt: "2026-11-20T07:00:03.000Z" });
    const b = change({ supplementId: 2, tickedAt: "2026-11-20T07:00:01.000Z" });
    const aAgain = { ...a, status: null, tickedAt: "2026-11-20T07:00:02.000Z" };
    const bobs = change({ supplementId: 3, userId: BOB, tickedAt: "2026-11-20T06:00:00.000Z" });
    const c = change({ supplementId: 1, time: "evening", tickedAt: "2026-11-20T07:00:04.000Z" });
    for (const x of [a, b, aAgain, bobs, c]) await queue.queueChange(x);
    expect(await queue.queuedChanges(ALICE)).toEqual([b, aAgain, c]);
    expect(await queue.queuedChanges(BOB)).toEqual([bobs]);
    expect(await queue.queuedChanges("nobody")).toEqual([]);
  });

  test.each([
    ["2026-11-20", 7, "morning", "2026-11-20/7/morning"],
    ["2026-01-02", 123, "as-needed", "2026-01-02/123/as-needed"],
  ])("changeKey(%s, %d, %s) = %s", (date, supplementId, time, key) => {
    expect(queue.changeKey({ date, supplementId, time })).toBe(key);
  });
});

describe("whose offline data this browser keeps", () => {
  const OTHER_CACHES = ["stacktrack-offline-v1", "stacktrack-offline-today", "someone-else", "workbox-x"];
  test.each([
    // No owner yet: only the owner is written (a tick queued meanwhile is kept).
    ["no owner yet: mine now; the queue and the caches kept", undefined, ALICE, [ALICE, BOB], false],
    ["mine already: kept as it is", ALICE, ALICE, [ALICE, BOB], false],
    ["another's: their queue and the worker's caches deleted", BOB, ALICE, [], true],
  ] as const)("%s", async (_what, owner, claimer, keptUsers, cachesCleared) => {
    for (const name of OTHER_CACHES) cacheNames.add(name);
    await queue.queuedChanges(ALICE); // opens the database
    if (owner !== undefined) await storeValue(DB, "meta", "owner", owner);
    await queue.queueChange(change({ userId: ALICE, supplementId: 1 }));
    await queue.queueChange(change({ userId: BOB, supplementId: 2 }));
    await queue.claimOfflineData(claimer);
    expect(await storedValue(DB, "meta", "owner")).toBe(claimer);
    const left = ((await storedValues(DB, "changes")) as QueuedChange[]).map((c) => c.userId).sort();
    expect(left).toEqual([...keptUsers].sort());
    expect([...cacheNames].sort()).toEqual(cachesCleared ? ["someone-else", "workbox-x"] : [...OTHER_CACHES].sort());
  });

  test("clearOfflineCaches deletes only the worker's caches, and does nothing without Cache Storage", async () => {
    for (const name of ["stacktrack-offline-v1", "stacktrack-offline-v2", "other"]) cacheNames.add(name);
    await queue.clearOfflineCaches();
    expect([...cacheNames]).toEqual(["other"]);
    const saved = (globalThis as { caches?: unknown }).caches;
    (globalThis as { caches?: unknown }).caches = undefined;
    try {
      await queue.clearOfflineCaches();
    } finally {
      (globalThis as { caches?: unknown }).caches = saved;
    }
  });
});

describe("the flush", () => {
  const a = change({ supplementId: 1, tickedAt: "2026-11-20T07:00:01.000Z" });
  const b = change({ supplementId: 2, status: null, tickedAt: "2026-11-20T07:00:02.000Z" });
  const c = change({ supplementId: 3, status: "skipped", tickedAt: "2026-11-20T07:00:03.000Z" });
  const paths = () => sent.map((s) => `${s.method} ${new URL(s.url, "http://x").pathname}`);

  test.each([
    ["all saved", [{ status: 200 }, { status: 204 }, { status: 200 }], ["saved", "saved", "saved"], []],
    ["the second waits: the third is not sent", [{ status: 200 }, "offline"], ["saved", "waiting"], ["b", "c"]],
    [
      "a refusal drops that one and goes on",
      [{ status: 404 }, { status: 200 }, { status: 200 }],
      ["dropped", "saved", "saved"],
      [],
    ],
    ["signed out at the first: nothing more", [{ status: 401 }], ["waiting"], ["a", "b", "c"]],
  ] as const)("%s", async (_what, script, kinds, left) => {
    for (const x of [c, a, b]) await queue.queueChange(x);
    answers = [...script];
    const reports: SendResult[] = [];
    await sync.flushQueue(ALICE, (r) => reports.push(r));
    expect(reports.map((r) => r.kind)).toEqual([...kinds]);
    expect(reports.map((r) => r.change.supplementId)).toEqual([1, 2, 3].slice(0, kinds.length));
    expect(paths()).toEqual(
      [
        "PUT /api/intakes/2026-11-20/1/morning",
        "DELETE /api/intakes/2026-11-20/2/morning",
        "PUT /api/intakes/2026-11-20/3/morning",
      ].slice(0, kinds.length),
    );
    const byName = { a, b, c };
    expect(await queue.queuedChanges(ALICE)).toEqual(left.map((n) => byName[n]));
  });

  test("another user's waiting changes are never sent", async () => {
    await queue.queueChange(change({ userId: BOB }));
    const reports: SendResult[] = [];
    await sync.flushQueue(ALICE, (r) => reports.push(r));
    expect(reports).toEqual([]);
    expect(sent).toEqual([]);
  });

  test("one flush at a time: a second call waits for the first, then sends what is left", async () => {
    await queue.queueChange(a);
    await queue.queueChange(b);
    const order: string[] = [];
    const first = sync.flushQueue(ALICE, (r) => order.push(`first ${r.change.supplementId}`));
    const second = sync.flushQueue(ALICE, (r) => order.push(`second ${r.change.supplementId}`));
    // Both start at once; the second runs after the first, and finds nothing left.
    await Promise.all([first, second]);
    expect(order).toEqual(["first 1", "first 2"]);
    expect(sent.length).toBe(2);
    // A failing flush does not block the next.
    await queue.queueChange(c);
    answers = [{ status: 200 }];
    const throwing = sync.flushQueue(ALICE, () => {
      throw new Error("a report failed");
    });
    await expect(throwing).rejects.toThrow("a report failed");
    answers = [{ status: 200 }];
    await queue.queueChange({ ...c, tickedAt: "2026-11-20T07:00:09.000Z" });
    const reports: string[] = [];
    await sync.flushQueue(ALICE, (r) => reports.push(r.kind));
    expect(reports).toEqual(["saved"]);
  });
});
