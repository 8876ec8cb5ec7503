/**
 * Issue 38 §3, Delete with Undo: a delete is real at once (the list, the public profile, /go,
 * the export and the caches no longer show the supplement), and Undo within the window puts
 * back exactly what was there: the row (id, place, timestamps), its schedule versions, its
 * link clicks; its intake log was never touched. After the window the copy is gone for good.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { UNDO_ACCEPT_MS } from "../../api/supplements/trash";
import { intakes, scheduleVersions, supplementDailyClicks, supplementTrash } from "../../db/schema";
import { MAX_SUPPLEMENTS } from "../../src/lib/constants";
import { notificationBarrier } from "../support/notifications";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, insertSupplements, supplementRows, uniqueName } from "../support/users";

let api: TestApi;
let notificationsApplied: () => Promise<void>;
beforeAll(async () => {
  api = await startApi({ INSIGHTS_FLUSH_MS: "0" }, { database: await migratedDatabase() });
  notificationsApplied = await notificationBarrier(api.ctx.database);
});
afterAll(async () => {
  resetClock();
  await api?.close();
});
afterEach(() => resetClock());

type Init = Parameters<TestApi["fetch"]>[1];
const as = (user: ApiUser, path: string, init: Init = {}) =>
  api.fetch(path, { ...init, headers: { ...(init?.headers as Record<string, string>), cookie: user.cookie } });
const del = (user: ApiUser, id: number) => as(user, `/api/supplements/${id}`, { method: "DELETE" });
const restore = (user: ApiUser, id: number) => as(user, `/api/supplements/${id}/restore`, { method: "POST" });

async function add(user: ApiUser, body: Record<string, unknown>): Promise<number> {
  const res = await as(user, "/api/supplements", {
    method: "POST",
    body: { quantityType: "Capsule(s)", frequency: "daily", ...body },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

const db = () => api.ctx.database.db;
const versionsOf = (user: ApiUser, id: number) =>
  db()
    .select()
    .from(scheduleVersions)
    .where(and(eq(scheduleVersions.userId, user.id), eq(scheduleVersions.supplementId, id)))
    .orderBy(scheduleVersions.validFrom);
const clicksOf = (id: number) =>
  db().select().from(supplementDailyClicks).where(eq(supplementDailyClicks.supplementId, id));
const intakesOf = (user: ApiUser) => db().select().from(intakes).where(eq(intakes.userId, user.id));
const trashOf = (user: ApiUser) => db().select().from(supplementTrash).where(eq(supplementTrash.userId, user.id));
async function historyOf(user: ApiUser): Promise<{ days: unknown[] }> {
  const res = await as(user, "/api/history?from=2026-11-20&to=2026-11-22");
  expect(res.status).toBe(200);
  const body = (await res.json()) as { days: unknown[] };
  expect(body.days.length).toBeGreaterThan(0);
  return body;
}
const listNames = async (user: ApiUser) =>
  ((await (await as(user, "/api/supplements")).json()) as { name: string }[]).map((s) => s.name);

/** A premium owner with three supplements; the middle one has a past, versions, clicks and intakes. */
async function ownerWithHistory() {
  const user = await createUser(api, { username: uniqueName("undo"), premium: true });
  const move = freezeClock("2026-11-20T09:00:00Z");
  const first = await add(user, { name: "First" });
  const middle = await add(user, {
    name: "Middle",
    affiliateLink: "https://shop.example/m",
    notes: "with food",
    schedule: { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] },
    doseAmount: 2,
  });
  const last = await add(user, { name: "Last" });
  expect(
    (await as(user, `/api/intakes/2026-11-20/${middle}/morning`, { method: "PUT", body: { status: "taken" } })).status,
  ).toBe(200);
  move("2026-11-22T09:00:00Z");
  const edit = await as(user, `/api/supplements/${middle}`, {
    method: "PUT",
    body: {
      name: "Middle",
      quantityType: "Capsule(s)",
      frequency: "daily",
      schedule: { times: ["evening"], days: [1, 2, 3] },
    },
  });
  expect(edit.status).toBe(200);
  await db()
    .insert(supplementDailyClicks)
    .values([
      { supplementId: middle, day: "2026-11-21", clicks: 3 },
      { supplementId: middle, day: "2026-11-22", clicks: 5 },
    ]);
  return { user, move, first, middle, last };
}

describe("Undo restores exactly", () => {
  test("row, place, versions, clicks and intakes are as before the delete; the copy is then gone", async () => {
    const { user, middle } = await ownerWithHistory();
    const before = {
      rows: await supplementRows(api, user),
      versions: await versionsOf(user, middle),
      clicks: await clicksOf(middle),
      intakes: await intakesOf(user),
      history: await historyOf(user),
    };
    expect(before.versions.length).toBe(2);
    expect((await del(user, middle)).status).toBe(204);
    expect(await listNames(user)).toEqual(["First", "Last"]);
    expect(await clicksOf(middle)).toEqual([]);
    const res = await restore(user, middle);
    expect(res.status).toBe(201);
    expect(((await res.json()) as { id: number; name: string }).name).toBe("Middle");
    expect(await listNames(user)).toEqual(["First", "Middle", "Last"]);
    expect(await supplementRows(api, user)).toEqual(before.rows);
    expect(await versionsOf(user, middle)).toEqual(before.versions);
    expect(await clicksOf(middle)).toEqual(before.clicks);
    expect(await intakesOf(user)).toEqual(before.intakes);
    // The history (days counted from the versions and the log) reads as before too.
    expect(await historyOf(user)).toEqual(before.history);
    expect(await trashOf(user)).toEqual([]);
    // Once: a second Undo finds nothing to restore.
    expect((await restore(user, middle)).status).toBe(404);
  });

  test("a supplement added and deleted the same day: its only version comes back, not the tombstone", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-24T10:00:00Z");
    const id = await add(user, { name: "Today" });
    const before = await versionsOf(user, id);
    expect((await del(user, id)).status).toBe(204);
    expect((await versionsOf(user, id)).map((v) => v.deleted)).toEqual([true]);
    expect((await restore(user, id)).status).toBe(201);
    expect(await versionsOf(user, id)).toEqual(before);
  });
});

describe("stock × Undo (issue 45 §5): the stock comes back with the supplement", () => {
  type Step = ["stock", Record<string, unknown>] | ["refill", number] | ["tick"];
  // [what, the steps before the delete, what is left before and after the Undo]
  const cases: [string, Step[], number | null][] = [
    ["a pack size only", [["stock", { unitsPerPack: 30 }]], null],
    ["a count and a pack size", [["stock", { unitsPerPack: 30, count: 12 }]], 12],
    [
      "a count, then +1 pack and +2 packs",
      [
        ["stock", { unitsPerPack: 30, count: 12 }],
        ["refill", 1],
        ["refill", 2],
      ],
      102,
    ],
    ["a count, then a dose taken", [["stock", { unitsPerPack: 30, count: 12 }], ["tick"]], 11],
    ["+1 pack before any count, then a dose", [["stock", { unitsPerPack: 30 }], ["refill", 1], ["tick"]], 29],
  ];
  test.each(cases)("%s", async (_what, steps, left) => {
    const user = await createUser(api);
    const move = freezeClock("2026-11-24T09:00:00Z");
    const id = await add(user, { name: "Stocked", schedule: { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] } });
    let second = 0;
    for (const step of steps) {
      move(`2026-11-24T09:00:${String(++second).padStart(2, "0")}Z`);
      const res =
        step[0] === "stock"
          ? await as(user, `/api/supplements/${id}/stock`, { method: "PUT", body: step[1] })
          : step[0] === "refill"
            ? await as(user, `/api/supplements/${id}/refills`, { method: "POST", body: { packs: step[1] } })
            : await as(user, `/api/intakes/2026-11-24/${id}/morning`, { method: "PUT", body: { status: "taken" } });
      expect(res.status).toBeLessThan(300);
    }
    move("2026-11-24T09:01:00Z");
    const stockOf = async () =>
      ((await (await as(user, "/api/supplements")).json()) as { id: number; stock: unknown }[]).find((s) => s.id === id)
        ?.stock;
    const before = { rows: await supplementRows(api, user), stock: await stockOf() };
    expect((before.stock as { left: number | null }).left).toBe(left);
    expect((await del(user, id)).status).toBe(204);
    expect((await restore(user, id)).status).toBe(201);
    expect(await stockOf()).toEqual(before.stock);
    expect(await supplementRows(api, user)).toEqual(before.rows);
  });
});

describe("while the Undo is open the supplement is gone everywhere", () => {
  test("list, today, public profile, /go, export and a cached list do not show it", async () => {
    const { user, middle } = await ownerWithHistory();
    // Warm every cache first.
    expect(await listNames(user)).toEqual(["First", "Middle", "Last"]);
    const publicNames = async () =>
      (
        (await (await api.fetch(`/api/profile/${user.username}`)).json()) as { supplements: { name: string }[] }
      ).supplements.map((s) => s.name);
    expect(await publicNames()).toContain("Middle");
    expect((await api.fetch(`/go/${middle}`, { origin: null })).status).toBe(302);
    expect((await del(user, middle)).status).toBe(204);
    await notificationsApplied();
    expect(await listNames(user)).toEqual(["First", "Last"]);
    expect(await publicNames()).toEqual(["First", "Last"]);
    expect((await api.fetch(`/go/${middle}`, { origin: null })).status).toBe(404);
    const today = (await (await as(user, "/api/today")).json()) as { doses?: { supplementId: number }[] };
    expect(JSON.stringify(today)).not.toContain(`"supplementId":${middle},`);
    const exported = (await (await as(user, "/api/account/export?format=json")).json()) as {
      supplements: { name: string }[];
    };
    expect(exported.supplements.map((s) => s.name)).toEqual(["First", "Last"]);
    expect(JSON.stringify(exported)).not.toContain("shop.example/m");
  });
});

describe("the window", () => {
  const cases: [string, number, number][] = [
    ["at once", 0, 201],
    ["when the toast closes", 6000, 201],
    ["inside the grace for a slow answer", UNDO_ACCEPT_MS - 1, 201],
    ["after the window", UNDO_ACCEPT_MS + 1, 404],
    ["a day later", 86_400_000, 404],
  ];
  test.each(cases)("Undo %s (%d ms after the delete) answers %d", async (_what, after, status) => {
    const user = await createUser(api);
    const move = freezeClock("2026-11-25T10:00:00.000Z");
    const id = await add(user, { name: "Timed" });
    expect((await del(user, id)).status).toBe(204);
    move(new Date(Date.parse("2026-11-25T10:00:00.000Z") + after));
    const res = await restore(user, id);
    expect(res.status).toBe(status);
    if (status === 404) {
      expect(((await res.json()) as { message: string }).message).toBe("This supplement can no longer be restored");
      expect(await trashOf(user)).toEqual([]); // purged: really gone
      expect(await listNames(user)).toEqual([]);
    } else {
      expect(await listNames(user)).toEqual(["Timed"]);
    }
  });

  test("without any later delete, a timer drops the copy once its window is over", async () => {
    const user = await createUser(api);
    const move = freezeClock("2026-11-27T10:00:00Z");
    const id = await add(user, { name: "Left alone" });
    expect((await del(user, id)).status).toBe(204);
    move(new Date(Date.parse("2026-11-27T10:00:00Z") + UNDO_ACCEPT_MS + 1));
    expect((await trashOf(user)).length).toBe(1);
    await Bun.sleep(UNDO_ACCEPT_MS + 1500); // the timer: the window and a second
    expect(await trashOf(user)).toEqual([]);
  }, 30_000);

  test("any later delete purges every expired copy, whoever it belongs to", async () => {
    const a = await createUser(api);
    const b = await createUser(api);
    const move = freezeClock("2026-11-26T10:00:00Z");
    const id = await add(a, { name: "A" });
    expect((await del(a, id)).status).toBe(204);
    expect((await trashOf(a)).length).toBe(1);
    move(new Date(Date.parse("2026-11-26T10:00:00Z") + UNDO_ACCEPT_MS + 1));
    const other = await add(b, { name: "B" });
    expect((await del(b, other)).status).toBe(204);
    expect(await trashOf(a)).toEqual([]);
  });
});

describe("refusals", () => {
  test("another user's deleted supplement cannot be restored (404), and stays theirs to restore", async () => {
    const owner = await createUser(api);
    const other = await createUser(api);
    const id = await add(owner, { name: "Mine" });
    expect((await del(owner, id)).status).toBe(204);
    expect((await restore(other, id)).status).toBe(404);
    expect(await listNames(other)).toEqual([]);
    expect((await restore(owner, id)).status).toBe(201);
  });

  test("deleting a supplement that is not mine, or none: 404, nothing kept", async () => {
    const owner = await createUser(api);
    const other = await createUser(api);
    const id = await add(owner, { name: "Theirs" });
    expect((await del(other, id)).status).toBe(404);
    expect((await del(other, 999_999)).status).toBe(404);
    expect(await trashOf(other)).toEqual([]);
    expect(await listNames(owner)).toEqual(["Theirs"]);
  });

  test("signed out: 401; bad ids: 400; never deleted: 404", async () => {
    const user = await createUser(api);
    expect((await api.fetch("/api/supplements/1/restore", { method: "POST" })).status).toBe(401);
    expect((await restore(user, "abc" as unknown as number)).status).toBe(400);
    expect((await restore(user, 999_999)).status).toBe(404);
  });

  test("at the cap meanwhile: 400 with the cap's message, nothing written", async () => {
    const user = await createUser(api);
    const id = await add(user, { name: "Gone" });
    expect((await del(user, id)).status).toBe(204);
    await insertSupplements(api, user, MAX_SUPPLEMENTS);
    const res = await restore(user, id);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe("You can track at most 200 supplements");
    expect((await supplementRows(api, user)).length).toBe(MAX_SUPPLEMENTS);
  });
});
