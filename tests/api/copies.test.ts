/**
 * Issue 50 §3, "Copy this stack" over HTTP: what a copy takes (schedule shown vs hidden, never
 * notes, links, stock or ingredients), where it goes, its source and `Buy again` (gone when the
 * owner leaves premium or deletes the supplement; the copy stays, and stays when the owner's
 * account goes), the owner's Insights count, and the refusals as a table: own stack, copying
 * off, unknown names and ids, bad bodies, the 200 limit (409 with what fits, nothing added),
 * 30 requests an hour.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { counterOf } from "../../api/insights/counter";
import { supplementDailyClicks, users } from "../../db/schema";
import { COPY_MESSAGES } from "../../src/lib/copies";
import { DEFAULT_SCHEDULE } from "../../src/lib/schedule";
import type { Supplement } from "../../src/lib/types";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs } from "../support/tracking-api";
import { type ApiUser, createUser, insertSupplements, makePremium, supplementRows, uniqueName } from "../support/users";

let api: TestApi;
const as = requestsAs(() => api);
beforeAll(async () => {
  api = await startApi({}, { database: await migratedDatabase() });
});
afterAll(async () => {
  await api?.close();
});

interface CopyAnswer {
  added: number;
  from: string;
  supplements: Supplement[];
  message?: string;
  fits?: number;
  errors?: Record<string, string[]>;
}
const copy = async (user: ApiUser, body: unknown) => {
  const res = await as(user, "/api/copies", { method: "POST", body: body as Record<string, unknown> });
  return { status: res.status, body: (await res.json()) as CopyAnswer };
};
const list = async (user: ApiUser) => (await (await as(user, "/api/supplements")).json()) as Supplement[];

/** An owner with a premium link, notes, stock and ingredients on Zinc; Magnesium twice a day. */
async function owner(options: { showSchedule?: boolean; premium?: boolean } = {}) {
  const alice = await createUser(api, { username: uniqueName("alice"), premium: options.premium ?? true });
  await as(alice, "/api/profile", { method: "PUT", body: { showSchedule: options.showSchedule ?? true } });
  const magnesium = await addSupplementAs(api, alice, {
    name: "Magnesium",
    doseAmount: 2,
    schedule: { times: ["morning", "evening"], days: [1, 2, 3, 4, 5] },
  });
  const zinc = await addSupplementAs(api, alice, {
    name: "Zinc",
    quantityType: "Tablet(s)",
    frequency: "Every other day",
    doseAmount: 1,
    schedule: { times: ["bedtime"], days: [1, 2, 3, 4, 5, 6, 7], every: { days: 2 } },
    affiliateLink: "https://shop.example.com/zinc",
    notes: "PRIVATE-NOTE",
    servingSize: 1,
    ingredients: [{ name: "Zinc", amount: 15, unit: "mg" }],
  });
  await as(alice, `/api/supplements/${zinc}/stock`, { method: "PUT", body: { unitsPerPack: 60, count: 42 } });
  const melatonin = await addSupplementAs(api, alice, {
    name: "Melatonin",
    frequency: "As needed",
    schedule: null,
    asNeeded: { maxPerDay: 1, minHoursBetween: null },
  });
  return { alice: alice as ApiUser & { username: string }, magnesium, zinc, melatonin };
}

describe("a copy", () => {
  test("schedule shown: name, form, frequency, dose and times and days; nothing private; at the end, in the owner's order", async () => {
    const { alice, magnesium, zinc, melatonin } = await owner();
    const bob = await createUser(api, { username: uniqueName("bob") });
    await addSupplementAs(api, bob, { name: "Mine" });
    const { status, body } = await copy(bob, {
      from: alice.username?.toUpperCase(),
      supplementIds: [melatonin, zinc, magnesium],
    });
    expect(status).toBe(201);
    expect(body.added).toBe(3);
    expect(body.from).toBe(alice.username as string);
    const rows = await list(bob);
    expect(rows.map((s) => s.name)).toEqual(["Mine", "Magnesium", "Zinc", "Melatonin"]);
    const [, mg, zn, mel] = rows;
    expect(mg).toMatchObject({
      quantityType: "Capsule(s)",
      doseAmount: 2,
      schedule: { times: ["morning", "evening"], days: [1, 2, 3, 4, 5] },
      source: { username: alice.username, buyUrl: null },
    });
    // Only what the public page shows of a schedule: times and days, not every 2 days.
    expect(zn).toMatchObject({
      quantityType: "Tablet(s)",
      frequency: "Every other day",
      doseAmount: 1,
      schedule: { times: ["bedtime"], days: [1, 2, 3, 4, 5, 6, 7] },
      affiliateLink: null,
      notes: null,
      ingredients: [],
      source: { username: alice.username, buyUrl: `/go/${zinc}` },
    });
    expect(zn?.schedule).not.toHaveProperty("every");
    expect(zn?.stock ?? null).toBeNull();
    expect(mel).toMatchObject({ schedule: null, asNeeded: null, source: { username: alice.username, buyUrl: null } });
    // In the database too: no owner's notes, link, stock or ingredients on any copy.
    for (const row of (await supplementRows(api, bob)).slice(1)) {
      expect(row).toMatchObject({
        notes: null,
        affiliateLink: null,
        unitsPerPack: null,
        stockCount: null,
        ingredients: [],
        sourceUserId: alice.id,
      });
    }
    // The answer carries the copies with their source.
    expect(body.supplements.map((s) => s.source?.username ?? null)).toEqual([
      alice.username,
      alice.username,
      alice.username,
    ]);
  });

  test("schedule hidden: the defaults, no dose", async () => {
    const { alice, magnesium } = await owner({ showSchedule: false });
    const bob = await createUser(api, { username: uniqueName("bob") });
    expect((await copy(bob, { from: alice.username, supplementIds: [magnesium] })).status).toBe(201);
    const [mg] = await list(bob);
    expect(mg).toMatchObject({ name: "Magnesium", doseAmount: null, schedule: DEFAULT_SCHEDULE });
  });

  test("Buy again goes when the owner leaves premium or deletes the supplement; the copy stays, also when the owner's account goes", async () => {
    const { alice, zinc } = await owner();
    const bob = await createUser(api, { username: uniqueName("bob") });
    await copy(bob, { from: alice.username, supplementIds: [zinc] });
    expect((await list(bob))[0]?.source).toEqual({ username: alice.username, buyUrl: `/go/${zinc}` });
    await makePremium(api, alice, false);
    expect((await list(bob))[0]?.source).toEqual({ username: alice.username, buyUrl: null });
    await makePremium(api, alice, true);
    expect((await list(bob))[0]?.source?.buyUrl).toBe(`/go/${zinc}`);
    expect((await as(alice, `/api/supplements/${zinc}`, { method: "DELETE" })).status).toBe(204);
    expect((await list(bob))[0]?.source).toEqual({ username: alice.username, buyUrl: null });
    await api.ctx.database.db.delete(users).where(eq(users.id, alice.id));
    const after = await list(bob);
    expect(after.map((s) => [s.name, s.source])).toEqual([["Zinc", null]]);
  });

  test("Buy again is the source's /go link: a click on it is counted for the creator", async () => {
    const { alice, zinc } = await owner();
    const bob = await createUser(api, { username: uniqueName("bob") });
    await copy(bob, { from: alice.username, supplementIds: [zinc] });
    const buyUrl = (await list(bob))[0]?.source?.buyUrl as string;
    expect(buyUrl).toBe(`/go/${zinc}`);
    const stored = async () => {
      await counterOf(api.ctx).flush();
      const rows = await api.ctx.database.db
        .select({ clicks: supplementDailyClicks.clicks })
        .from(supplementDailyClicks)
        .where(eq(supplementDailyClicks.supplementId, zinc));
      return rows.reduce((n, r) => n + r.clicks, 0);
    };
    const before = await stored();
    const click = await api.fetch(buyUrl, {
      headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36", cookie: bob.cookie },
      origin: null,
      redirect: "manual",
    });
    expect(click.status).toBe(302);
    expect(click.headers.get("location")).toBe("https://shop.example.com/zinc");
    expect(await stored()).toBe(before + 1);
  });

  test("duplicates: an id twice is one copy; a name already in the list is copied when asked (the page unchecks it)", async () => {
    const { alice, magnesium } = await owner();
    const bob = await createUser(api, { username: uniqueName("bob") });
    await addSupplementAs(api, bob, { name: "magnesium" });
    const answer = await copy(bob, { from: alice.username, supplementIds: [magnesium, magnesium] });
    expect(answer.status).toBe(201);
    expect(answer.body.added).toBe(1);
    expect((await list(bob)).map((s) => s.name)).toEqual(["magnesium", "Magnesium"]);
  });

  test("Undo of a deleted copy whose owner's account went meanwhile: back, without its source", async () => {
    const { alice, zinc } = await owner();
    const bob = await createUser(api, { username: uniqueName("bob") });
    await copy(bob, { from: alice.username, supplementIds: [zinc] });
    const [mine] = await list(bob);
    expect((await as(bob, `/api/supplements/${mine?.id}`, { method: "DELETE" })).status).toBe(204);
    await api.ctx.database.db.delete(users).where(eq(users.id, alice.id));
    const undo = await as(bob, `/api/supplements/${mine?.id}/restore`, { method: "POST" });
    expect(undo.status).toBe(201);
    expect(((await undo.json()) as Supplement).source).toBeNull();
    expect((await list(bob)).map((s) => [s.name, s.source])).toEqual([["Zinc", null]]);
  });

  test("the owner's Insights count each copy per supplement and day, without who copied", async () => {
    const { alice, magnesium, zinc } = await owner();
    for (const ids of [[magnesium], [magnesium, zinc]]) {
      const visitor = await createUser(api, { username: uniqueName("v") });
      expect((await copy(visitor, { from: alice.username, supplementIds: ids })).status).toBe(201);
    }
    const insights = (await (await as(alice, "/api/insights?days=7")).json()) as {
      copies: {
        total: number;
        days: { date: string; copies: number }[];
        supplements: { name: string; copies: number }[];
      };
    };
    expect(insights.copies.total).toBe(3);
    expect(insights.copies.supplements.map((s) => [s.name, s.copies])).toEqual([
      ["Magnesium", 2],
      ["Zinc", 1],
    ]);
    expect(insights.copies.days.at(-1)?.copies).toBe(3);
  });
});

describe("refusals: nothing added", () => {
  test.each([
    ["an unknown name", () => ({ from: "nobody-here-at-all" }), 404, COPY_MESSAGES.notFound],
    ["an owner who turned copying off", () => ({ off: true }), 404, COPY_MESSAGES.notFound],
    ["one's own stack", () => ({ self: true }), 400, COPY_MESSAGES.self],
    ["another user's supplement id", () => ({ foreign: true }), 400, COPY_MESSAGES.unknown],
    ["an id nobody has", () => ({ ids: [2_000_000_000] }), 400, COPY_MESSAGES.unknown],
    ["no ids", () => ({ ids: [] }), 400, COPY_MESSAGES.supplementIds],
    ["an id that is not a number", () => ({ ids: ["1"] }), 400, COPY_MESSAGES.supplementIds],
    ["201 ids", () => ({ ids: Array.from({ length: 201 }, (_, i) => i + 1) }), 400, COPY_MESSAGES.supplementIds],
    ["no from", () => ({ from: "" }), 400, COPY_MESSAGES.from],
    ["an unknown field", () => ({ extra: true }), 400, null],
  ] as const)("%s", async (_what, variant, status, message) => {
    const { alice, magnesium } = await owner();
    const bob = await createUser(api, { username: uniqueName("bob") });
    const v = variant() as Record<string, unknown>;
    if (v.off) await as(alice, "/api/profile", { method: "PUT", body: { allowCopies: false } });
    let ids = (v.ids as unknown[] | undefined) ?? [magnesium];
    if (v.foreign) ids = [await addSupplementAs(api, await createUser(api), { name: "Theirs" })];
    const who = v.self ? alice : bob;
    const body: Record<string, unknown> = {
      from: (v.from as string | undefined) ?? alice.username,
      supplementIds: ids,
    };
    if (v.extra) body.more = 1;
    const answer = await copy(who, body);
    expect(answer.status).toBe(status);
    if (message) expect(answer.body.message).toBe(message);
    else expect(typeof answer.body.message).toBe("string");
    expect((await list(bob)).length).toBe(0);
    if (v.self) expect((await list(alice)).length).toBe(3);
  });

  test.each([
    [199, 2, 1],
    [200, 1, 0],
    [198, 3, 2],
  ])("with %i in the list, %i more: 409 naming the %i that fit, nothing added", async (have, asked, fits) => {
    const { alice, magnesium, zinc, melatonin } = await owner();
    const bob = await createUser(api, { username: uniqueName("bob") });
    await insertSupplements(api, bob, have);
    const answer = await copy(bob, {
      from: alice.username,
      supplementIds: [magnesium, zinc, melatonin].slice(0, asked),
    });
    expect(answer.status).toBe(409);
    expect(answer.body.fits).toBe(fits);
    expect(answer.body.message).toBe(COPY_MESSAGES.full(fits));
    expect((await supplementRows(api, bob)).length).toBe(have);
    expect((await supplementRows(api, bob)).some((s) => s.sourceUserId !== null)).toBe(false);
  });

  test("at most 30 copy requests an hour per account: the 31st is 429", async () => {
    // The limits are on in an instance of its own (startApi turns them off for the other tests).
    const main = api;
    api = await startApi({ RATE_LIMIT: "on" }, { database: await migratedDatabase() });
    try {
      const { alice, magnesium } = await owner();
      const bob = await createUser(api, { username: uniqueName("bob") });
      for (let i = 0; i < 30; i++) {
        expect((await copy(bob, { from: alice.username, supplementIds: [magnesium] })).status, `request ${i + 1}`).toBe(
          201,
        );
      }
      const over = await copy(bob, { from: alice.username, supplementIds: [magnesium] });
      expect(over.status).toBe(429);
      expect((await list(bob)).length).toBe(30);
    } finally {
      await api.close();
      api = main;
    }
  });
});

describe("the owner's switch and the public page", () => {
  test("allowCopies: on by default in the owner's answer, kept when turned off; the public JSON has no new field", async () => {
    const { alice } = await owner();
    const me = (await (await as(alice, "/api/auth/user")).json()) as { allowCopies: boolean };
    expect(me.allowCopies).toBe(true);
    const off = await as(alice, "/api/profile", { method: "PUT", body: { allowCopies: false } });
    expect(((await off.json()) as { allowCopies: boolean }).allowCopies).toBe(false);
    expect(((await (await as(alice, "/api/auth/user")).json()) as { allowCopies: boolean }).allowCopies).toBe(false);
    // The public profile's JSON is unchanged: no new field.
    const json = (await (await api.fetch(`/api/profile/${alice.username}`)).json()) as {
      user: Record<string, unknown>;
    };
    expect(json.user).not.toHaveProperty("allowCopies");
  });

  test("allowCopies must be true or false", async () => {
    const { alice } = await owner();
    const res = await as(alice, "/api/profile", { method: "PUT", body: { allowCopies: "no" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: Record<string, string[]> }).errors.allowCopies).toEqual([
      "allowCopies must be true or false",
    ]);
  });
});
