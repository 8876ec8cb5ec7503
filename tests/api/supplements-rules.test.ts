/**
 * api/supplements/routes.ts, its rules one by one over HTTP on one API: ids, scoping to the owner,
 * premium-only fields, the cap, ordering and reordering, and what each answer carries.
 * Small and fast on purpose: StrykerJS runs it once per mutant of the module (docs/mutation-testing.md).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, sql } from "drizzle-orm";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { scheduleVersions, supplements, users } from "../../db/schema";
import { MAX_SUPPLEMENTS } from "../../src/lib/constants";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, insertSupplements, makePremium, supplementRows } from "../support/users";

let api: TestApi;
let free: ApiUser;
let premium: ApiUser;
let other: ApiUser;

beforeAll(async () => {
  api = await startApi({}, { database: await migratedDatabase() });
  [free, premium, other] = await Promise.all([createUser(api), createUser(api), createUser(api)]);
  await makePremium(api, premium);
});

afterAll(async () => {
  await api?.close();
});

const as = (user: ApiUser, path: string, init: Parameters<TestApi["fetch"]>[1] = {}) =>
  api.fetch(path, { ...init, headers: { ...(init.headers as Record<string, string>), cookie: user.cookie } });

async function clear(user: ApiUser) {
  await api.ctx.database.db.delete(supplements).where(eq(supplements.userId, user.id));
  api.ctx.caches.invalidate({ userId: user.id });
}

const INPUT = {
  name: "Vitamin D",
  quantityType: "Soft Gel",
  frequency: "Daily",
  affiliateLink: "https://shop.example/d",
  notes: "with food",
};

interface Json {
  id: number;
  name: string;
  quantityType: string;
  frequency: string;
  affiliateLink: string | null;
  notes: string | null;
  sortOrder: number;
  schedule: { times: string[]; days: number[] } | null;
  doseAmount: number | null;
  asNeeded: unknown;
  status: unknown;
  servingSize: number;
  ingredients: unknown[];
  source: unknown;
  createdAt: string;
  updatedAt: string;
}

describe("the answer's shape", () => {
  test("a premium user's supplement: every field, timestamps as ISO strings", async () => {
    await clear(premium);
    const res = await as(premium, "/api/supplements", { method: "POST", body: INPUT });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    const [row] = await supplementRows(api, premium);
    if (!row) throw new Error("no row");
    expect(body).toEqual({
      id: row.id,
      name: "Vitamin D",
      quantityType: "Soft Gel",
      frequency: "Daily",
      affiliateLink: "https://shop.example/d",
      notes: "with food",
      sortOrder: 0,
      schedule: { times: ["anytime"], days: [1, 2, 3, 4, 5, 6, 7] },
      doseAmount: null,
      asNeeded: null,
      // Issue 48: where the schedule stands on the user's today.
      status: { state: "active", nextDueOn: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) },
      servingSize: 1,
      ingredients: [],
      // Issue 50 §3: a copy's source; none for one's own.
      source: null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    });
    for (const path of ["/api/supplements", `/api/supplements/${row.id}`]) {
      const read = await (await as(premium, path)).json();
      // The list's rows also carry their stock (issue 40; none set here).
      expect(Array.isArray(read) ? read : [read]).toEqual([Array.isArray(read) ? { ...body, stock: null } : body]);
    }
  });

  test("a free user's premium fields are dropped on add and hidden on read", async () => {
    await clear(free);
    const res = await as(free, "/api/supplements", { method: "POST", body: INPUT });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ affiliateLink: null, notes: null, name: "Vitamin D" });
    const [row] = await supplementRows(api, free);
    expect(row).toMatchObject({ affiliateLink: null, notes: null });
    // Stored premium fields (from a premium past) are hidden from a free user.
    await api.ctx.database.db
      .update(supplements)
      .set({ affiliateLink: "https://x.example", notes: "n" })
      .where(eq(supplements.userId, free.id));
    api.ctx.caches.invalidate({ userId: free.id });
    expect(await (await as(free, "/api/supplements")).json()).toMatchObject([{ affiliateLink: null, notes: null }]);
    expect(await (await as(free, `/api/supplements/${row?.id}`)).json()).toMatchObject({
      affiliateLink: null,
      notes: null,
    });
  });

  test("empty premium fields are stored as null", async () => {
    await clear(premium);
    const res = await as(premium, "/api/supplements", {
      method: "POST",
      body: { ...INPUT, affiliateLink: "", notes: "" },
    });
    expect(await res.json()).toMatchObject({ affiliateLink: null, notes: null });
    expect(await supplementRows(api, premium)).toMatchObject([{ affiliateLink: null, notes: null }]);
  });
});

describe("the list", () => {
  test("in sortOrder, then id; each add goes last; reads are no-store and revalidate with ETag", async () => {
    await clear(free);
    const seeded = await insertSupplements(api, free, 2, 5);
    const res = await as(free, "/api/supplements", { method: "POST", body: INPUT });
    expect(((await res.json()) as Json).sortOrder).toBe(7);
    // Two rows in one place: the lower id first.
    await api.ctx.database.db.update(supplements).set({ sortOrder: 5 }).where(eq(supplements.userId, free.id));
    api.ctx.caches.invalidate({ userId: free.id });
    const list = await as(free, "/api/supplements");
    expect(list.headers.get("cache-control")).toBe("no-store");
    const ids = ((await list.json()) as Json[]).map((s) => s.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids.slice(0, 2)).toEqual(seeded.map((s) => s.id));
    const etag = list.headers.get("etag");
    expect(etag).toBeTruthy();
    const again = await as(free, "/api/supplements", { headers: { "if-none-match": etag ?? "" } });
    expect(again.status).toBe(304);
    // Another user's list is their own.
    await clear(other);
    expect(await (await as(other, "/api/supplements")).json()).toEqual([]);
  });

  test("an add, an edit, a reorder and a delete each show in the next read of the same instance", async () => {
    await clear(premium);
    // Change notifications from the database held back: the read sees the write's own cache drop.
    const caches = api.ctx.caches;
    const deliver = caches.applyNotification.bind(caches);
    const held: string[] = [];
    caches.applyNotification = (payload: string) => {
      held.push(payload);
    };
    try {
      await editsShowAtOnce();
    } finally {
      caches.applyNotification = deliver;
      for (const payload of held) deliver(payload);
    }
  });

  async function editsShowAtOnce() {
    const read = async () => (await (await as(premium, "/api/supplements")).json()) as Json[];
    expect(await read()).toEqual([]);
    const a = (await (await as(premium, "/api/supplements", { method: "POST", body: INPUT })).json()) as Json;
    const b = (await (
      await as(premium, "/api/supplements", { method: "POST", body: { ...INPUT, name: "B" } })
    ).json()) as Json;
    expect((await read()).map((s) => s.id)).toEqual([a.id, b.id]);
    await as(premium, `/api/supplements/${a.id}`, { method: "PUT", body: { ...INPUT, name: "A2" } });
    expect((await read()).map((s) => s.name)).toEqual(["A2", "B"]);
    await as(premium, "/api/supplements/reorder", { method: "PUT", body: { supplementIds: [b.id, a.id] } });
    expect((await read()).map((s) => s.id)).toEqual([b.id, a.id]);
    await as(premium, `/api/supplements/${b.id}`, { method: "DELETE" });
    expect((await read()).map((s) => s.id)).toEqual([a.id]);
  }
});

describe("ids", () => {
  test.each(["abc", "1.5", "-1", "1e3", "0x10", "1234567890123", " 1", "１"])(
    "%p is a 400 naming the id",
    async (id) => {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const res = await as(free, `/api/supplements/${encodeURIComponent(id)}`, {
          method,
          body: method === "PUT" ? INPUT : undefined,
        });
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({
          message: "Invalid supplement id",
          errors: { id: ["Invalid supplement id"] },
        });
      }
    },
  );

  test.each(["0", "2147483648", "999999999999", "000"])("%p is a 404, not an error", async (id) => {
    const res = await as(free, `/api/supplements/${id}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "Supplement not found" });
  });

  test("the largest id and a 12-digit one with leading zeros are looked up", async () => {
    for (const id of ["2147483647", "000000000001"]) {
      const res = await as(free, `/api/supplements/${id}`);
      expect(res.status).toBe(404);
    }
    await clear(free);
    const [row] = await insertSupplements(api, free, 1);
    const padded = String(row?.id).padStart(12, "0");
    expect((await as(free, `/api/supplements/${padded}`)).status).toBe(200);
    // A row at the largest id there can be is found.
    await api.ctx.database.db.execute(sql`
      insert into supplements (id, user_id, name, quantity_type, frequency, sort_order)
      overriding system value values (2147483647, ${free.id}, 'Last id', 'Other', 'daily', 9)`);
    const last = await as(free, "/api/supplements/2147483647");
    expect(last.status).toBe(200);
    expect(((await last.json()) as Json).name).toBe("Last id");
    await clear(free);
  });
});

describe("another user's supplement answers 404, exactly like a missing one", () => {
  test("read, edit and delete", async () => {
    await clear(other);
    const [theirs] = await insertSupplements(api, other, 1);
    const path = `/api/supplements/${theirs?.id}`;
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", INPUT],
      ["DELETE", undefined],
    ] as const) {
      const res = await as(free, path, { method, body });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: "Supplement not found" });
    }
    expect(await supplementRows(api, other)).toMatchObject([{ id: theirs?.id, name: "Seeded 1" }]);
  });
});

describe("add", () => {
  test("the cap: the 200th add passes, the 201st is a 400 with the spec's message and writes nothing", async () => {
    await clear(free);
    await insertSupplements(api, free, MAX_SUPPLEMENTS - 1);
    const last = await as(free, "/api/supplements", { method: "POST", body: INPUT });
    expect(last.status).toBe(201);
    expect(((await last.json()) as Json).sortOrder).toBe(MAX_SUPPLEMENTS - 1);
    const over = await as(free, "/api/supplements", { method: "POST", body: INPUT });
    expect(over.status).toBe(400);
    expect(await over.json()).toEqual({ message: "You can track at most 200 supplements" });
    expect(await supplementRows(api, free)).toHaveLength(MAX_SUPPLEMENTS);
    await clear(free);
  });

  test("the first add of an empty list is at 0; invalid input is a 400", async () => {
    await clear(free);
    const first = await as(free, "/api/supplements", { method: "POST", body: INPUT });
    expect(((await first.json()) as Json).sortOrder).toBe(0);
    const bad = await as(free, "/api/supplements", { method: "POST", body: { ...INPUT, name: "" } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ message: "Name is required", errors: { name: ["Name is required"] } });
  });

  test("signed out: 401", async () => {
    const res = await api.fetch("/api/supplements", { method: "POST", body: INPUT });
    expect(res.status).toBe(401);
  });
});

describe("edit", () => {
  test("a premium user sets, keeps (absent) and clears (empty) the premium fields", async () => {
    await clear(premium);
    const made = (await (await as(premium, "/api/supplements", { method: "POST", body: INPUT })).json()) as Json;
    const path = `/api/supplements/${made.id}`;
    const put = async (body: Record<string, unknown>) => {
      const res = await as(premium, path, { method: "PUT", body });
      expect(res.status).toBe(200);
      return (await res.json()) as Json;
    };
    const base = { name: "New", quantityType: "Other", frequency: "Weekly" };
    const kept = await put(base);
    expect(kept).toMatchObject({ ...base, affiliateLink: INPUT.affiliateLink, notes: INPUT.notes, id: made.id });
    expect(kept.updatedAt > made.updatedAt).toBe(true);
    expect(kept.createdAt).toBe(made.createdAt);
    expect(await put({ ...base, affiliateLink: "https://b.example", notes: "later" })).toMatchObject({
      affiliateLink: "https://b.example",
      notes: "later",
    });
    expect(await put({ ...base, affiliateLink: "", notes: "" })).toMatchObject({ affiliateLink: null, notes: null });
    expect(await supplementRows(api, premium)).toMatchObject([{ ...base, affiliateLink: null, notes: null }]);
  });

  test("a free user's premium fields are ignored and what is stored is kept", async () => {
    await clear(free);
    const [row] = await insertSupplements(api, free, 1);
    await api.ctx.database.db
      .update(supplements)
      .set({ affiliateLink: "https://kept.example", notes: "kept" })
      .where(eq(supplements.userId, free.id));
    const res = await as(free, `/api/supplements/${row?.id}`, {
      method: "PUT",
      body: { ...INPUT, affiliateLink: "https://new.example", notes: "new" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: "Vitamin D", affiliateLink: null, notes: null });
    expect(await supplementRows(api, free)).toMatchObject([
      { name: "Vitamin D", affiliateLink: "https://kept.example", notes: "kept" },
    ]);
  });
});

describe("schedule and amount (issue 19)", () => {
  const DAY = "2026-06-10";
  beforeAll(() => {
    freezeClock(`${DAY}T12:00:00Z`);
  });
  afterAll(() => {
    resetClock();
  });

  const versionsOf = (id: number) =>
    api.ctx.database.db
      .select()
      .from(scheduleVersions)
      .where(and(eq(scheduleVersions.userId, other.id), eq(scheduleVersions.supplementId, id)));
  const add = async (body: Record<string, unknown>) => {
    const res = await as(other, "/api/supplements", { method: "POST", body });
    expect(res.status).toBe(201);
    return (await res.json()) as Json;
  };
  const base = { name: "Magnesium", quantityType: "Capsule(s)", frequency: "Nightly" };
  const DEFAULT = { times: ["anytime"], days: [1, 2, 3, 4, 5, 6, 7] };

  test("an add without them is once a day, every day, no amount; the version in force from today is recorded", async () => {
    await clear(other);
    const made = await add(base);
    expect(made).toMatchObject({ schedule: DEFAULT, doseAmount: null });
    expect(await supplementRows(api, other)).toMatchObject([{ schedule: DEFAULT, doseAmount: null }]);
    expect(await versionsOf(made.id)).toMatchObject([
      {
        validFrom: DAY,
        name: "Magnesium",
        quantityType: "Capsule(s)",
        schedule: DEFAULT,
        doseAmount: null,
        deleted: false,
      },
    ]);
  });

  test("an add stores what it is given: a schedule, 'as needed' (null) and an amount", async () => {
    await clear(other);
    const given = await add({ ...base, schedule: { times: ["morning"], days: [1] }, doseAmount: 2 });
    expect(given).toMatchObject({ schedule: { times: ["morning"], days: [1] }, doseAmount: 2 });
    const asNeeded = await add({ ...base, schedule: null, doseAmount: 0.5 });
    expect(asNeeded).toMatchObject({ schedule: null, doseAmount: 0.5 });
    expect(await versionsOf(asNeeded.id)).toMatchObject([{ validFrom: DAY, schedule: null, doseAmount: 0.5 }]);
  });

  test("an edit keeps what it leaves out, changes what it sends, and the day's version follows", async () => {
    await clear(other);
    const made = await add({ ...base, schedule: { times: ["evening"], days: [2, 4] }, doseAmount: 3 });
    const put = async (body: Record<string, unknown>) => {
      const res = await as(other, `/api/supplements/${made.id}`, { method: "PUT", body });
      expect(res.status).toBe(200);
      return (await res.json()) as Json;
    };
    expect(await put(base)).toMatchObject({ schedule: { times: ["evening"], days: [2, 4] }, doseAmount: 3 });
    expect(await put({ ...base, schedule: { times: ["bedtime"], days: [7] } })).toMatchObject({
      schedule: { times: ["bedtime"], days: [7] },
      doseAmount: 3,
    });
    expect(await put({ ...base, doseAmount: null })).toMatchObject({
      schedule: { times: ["bedtime"], days: [7] },
      doseAmount: null,
    });
    expect(await put({ ...base, schedule: null })).toMatchObject({ schedule: null, doseAmount: null });
    expect(await supplementRows(api, other)).toMatchObject([{ schedule: null, doseAmount: null }]);
    expect(await versionsOf(made.id)).toMatchObject([
      { validFrom: DAY, schedule: null, doseAmount: null, deleted: false },
    ]);
  });

  test("a delete records the supplement as gone from today on", async () => {
    await clear(other);
    const made = await add(base);
    const res = await as(other, `/api/supplements/${made.id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await versionsOf(made.id)).toMatchObject([{ validFrom: DAY, name: "Magnesium", deleted: true }]);
  });
});

describe("an edit after a move west drops the versions after the new today (zones × edits)", () => {
  // Moving to a zone west of the last write makes 'today' earlier than a version already
  // recorded; an edit must drop that later version, or it takes over again tomorrow and the
  // edit is silently undone. The probe: logging tomorrow's dose as the edit left it.
  const ZONES: [string, string, string][] = [
    // [zone when added, zone moved to, the server's instant of both writes]
    ["Pacific/Kiritimati", "America/Los_Angeles", "2026-06-10T23:30:00Z"],
    ["Asia/Tokyo", "UTC", "2026-06-10T23:30:00Z"],
    ["Europe/Berlin", "America/New_York", "2026-06-10T23:30:00Z"],
    ["UTC", "America/Los_Angeles", "2026-06-11T03:00:00Z"],
  ];
  const MORNING = { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] };
  const EVENING = { times: ["evening"], days: [1, 2, 3, 4, 5, 6, 7] };
  type Edit = { name: string; run: (id: number) => Promise<Response>; probe: [string, number][] };
  const put = (id: number, schedule: unknown) =>
    as(other, `/api/supplements/${id}`, {
      method: "PUT",
      body: { name: "Iron", quantityType: "Tablet(s)", frequency: "Daily", schedule },
    });
  const EDITS: Edit[] = [
    // [time logged tomorrow, status expected]
    {
      name: "a new schedule",
      run: (id) => put(id, EVENING),
      probe: [
        ["evening", 200],
        ["morning", 400],
      ],
    },
    {
      name: "as needed",
      run: (id) => put(id, null),
      probe: [
        ["as-needed", 200],
        ["morning", 400],
      ],
    },
    {
      name: "a delete",
      run: (id) => as(other, `/api/supplements/${id}`, { method: "DELETE" }),
      probe: [
        ["morning", 404],
        ["evening", 404],
      ],
    },
  ];
  const setZone = async (timeZone: string) => {
    const res = await as(other, "/api/profile", { method: "PUT", body: { timeZone } });
    expect(res.status).toBe(200);
  };
  afterAll(async () => {
    resetClock();
    await api.ctx.database.db.update(users).set({ timeZone: null }).where(eq(users.id, other.id));
    api.ctx.caches.invalidate({ userId: other.id });
  });

  test.each(ZONES.flatMap(([east, west, at]) => EDITS.map((edit) => [east, west, at, edit.name, edit] as const)))(
    "%s, then %s at %s: %s",
    async (east, west, at, _name, edit) => {
      await clear(other);
      const instant = Date.parse(at);
      freezeClock(instant);
      await setZone(east);
      const added = await as(other, "/api/supplements", {
        method: "POST",
        body: { name: "Iron", quantityType: "Tablet(s)", frequency: "Daily", schedule: MORNING },
      });
      expect(added.status).toBe(201);
      const { id } = (await added.json()) as Json;
      await setZone(west);
      expect([200, 204]).toContain((await edit.run(id)).status);
      const versions = await api.ctx.database.db
        .select({ validFrom: scheduleVersions.validFrom })
        .from(scheduleVersions)
        .where(and(eq(scheduleVersions.userId, other.id), eq(scheduleVersions.supplementId, id)));
      const westToday = new Date(instant).toLocaleDateString("en-CA", { timeZone: west });
      expect(versions.map((v) => v.validFrom)).toEqual([westToday]);
      // Tomorrow in the new zone (the day the dropped version would have begun).
      freezeClock(instant + 24 * 3600_000);
      const tomorrow = new Date(instant + 24 * 3600_000).toLocaleDateString("en-CA", { timeZone: west });
      for (const [time, status] of edit.probe) {
        const res = await as(other, `/api/intakes/${tomorrow}/${id}/${time}`, {
          method: "PUT",
          body: { status: "taken" },
        });
        expect(res.status, `${time} on ${tomorrow}`).toBe(status);
      }
    },
  );
});

describe("delete", () => {
  test("204 with no body, then 404", async () => {
    await clear(free);
    const [row] = await insertSupplements(api, free, 2);
    const res = await as(free, `/api/supplements/${row?.id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect((await supplementRows(api, free)).map((r) => r.id)).not.toContain(row?.id);
    expect(await supplementRows(api, free)).toHaveLength(1);
    expect((await as(free, `/api/supplements/${row?.id}`, { method: "DELETE" })).status).toBe(404);
  });
});

describe("reorder", () => {
  const reorder = (user: ApiUser, supplementIds: unknown) =>
    as(user, "/api/supplements/reorder", { method: "PUT", body: { supplementIds } });

  test("the new order is stored and answered, each row in its place; untouched rows keep updatedAt", async () => {
    await clear(premium);
    const rows = await insertSupplements(api, premium, 3);
    const [a, b, c] = rows.map((r) => r.id) as [number, number, number];
    const res = await reorder(premium, [a, c, b]);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as Json[];
    expect(body.map((s) => [s.id, s.sortOrder])).toEqual([
      [a, 0],
      [c, 1],
      [b, 2],
    ]);
    const stored = await supplementRows(api, premium);
    expect(stored.map((s) => [s.id, s.sortOrder])).toEqual([
      [a, 0],
      [c, 1],
      [b, 2],
    ]);
    // a stayed in place: neither rewritten nor given a new updatedAt.
    expect(stored[0]?.updatedAt.toISOString()).toBe(rows[0]?.updatedAt.toISOString());
    expect(body[0]?.updatedAt).toBe(rows[0]?.updatedAt.toISOString());
    // Moved rows carry the same new updatedAt in the answer and the table.
    expect(body[1]?.updatedAt).toBe(stored[1]?.updatedAt.toISOString());
    expect(body[1]?.updatedAt).not.toBe(rows[2]?.updatedAt.toISOString());
    // The answer hides premium fields from free users like every other answer.
    expect(body[0]).toMatchObject({ name: "Seeded 1", quantityType: "Capsule(s)", frequency: "daily" });
  });

  test("a free user's reorder answer hides premium fields", async () => {
    await clear(free);
    const rows = await insertSupplements(api, free, 2);
    await api.ctx.database.db.update(supplements).set({ notes: "n" }).where(eq(supplements.userId, free.id));
    const res = await reorder(
      free,
      rows.map((r) => r.id),
    );
    expect(await res.json()).toMatchObject([{ notes: null }, { notes: null }]);
  });

  test("an empty list for an empty list is fine", async () => {
    await clear(other);
    const res = await reorder(other, []);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
  });

  test("refusals: duplicates, missing, extra, another user's id; nothing changes", async () => {
    await clear(free);
    await clear(other);
    const rows = await insertSupplements(api, free, 3);
    const [theirs] = await insertSupplements(api, other, 1);
    const [a, b, c] = rows.map((r) => r.id) as [number, number, number];
    const everyOnce = {
      message: "supplementIds must list each of your supplements exactly once",
      errors: { supplementIds: ["Must list each of your supplements exactly once"] },
    };
    const cases: [unknown, number, unknown][] = [
      [
        [a, a, b],
        400,
        { message: "supplementIds must not contain duplicates", errors: { supplementIds: ["Duplicate id"] } },
      ],
      [[a, b], 400, everyOnce],
      [[a, b, c, theirs?.id], 400, everyOnce],
      [[a, b, theirs?.id], 400, everyOnce],
      [[], 400, everyOnce],
    ];
    for (const [ids, status, body] of cases) {
      const res = await reorder(free, ids);
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual(body);
    }
    expect((await supplementRows(api, free)).map((r) => r.id)).toEqual([a, b, c]);
    expect(await supplementRows(api, other)).toMatchObject([{ sortOrder: 0 }]);
  });
});
