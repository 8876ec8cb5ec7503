/**
 * Issue 50 §1, the calendar feed's settings over HTTP: off by default, on gives an address,
 * hideNames kept, a reset gives another, off and on again another; bad input is a 400 naming
 * the field with nothing written; signed out 401. The addresses are the user's own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import ICAL from "ical.js";
import { readCalendar } from "../../api/calendar/settings";
import { FEED_TOKEN_PATTERN } from "../../api/calendar/token";
import type { CalendarJson } from "../../src/lib/calendar";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, uniqueName } from "../support/users";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

const call = (user: ApiUser | null, method: string, path: string, body?: Record<string, unknown> | unknown[]) =>
  api.fetch(path, { method, body, headers: user ? { cookie: user.cookie } : {} });
const json = async (res: Response) =>
  (await res.json()) as CalendarJson & { message?: string; errors?: Record<string, string[]> };
const tokenOf = (url: string | null) => /\/api\/calendar\/([^/]+)\.ics$/.exec(url ?? "")?.[1] ?? "";

describe("the calendar feed's settings", () => {
  test("off by default; on: an address of its own; hideNames kept; reset and on-again: new addresses", async () => {
    const user = await createUser(api, { username: uniqueName("cal") });
    const other = await createUser(api, { username: uniqueName("cal") });
    expect(await json(await call(user, "GET", "/api/calendar"))).toEqual({
      enabled: false,
      url: null,
      hideNames: false,
    });

    const on = await json(await call(user, "PUT", "/api/calendar", { enabled: true }));
    expect(on.enabled).toBe(true);
    expect(on.url?.startsWith(`${api.url}/api/calendar/`)).toBe(true);
    expect(tokenOf(on.url)).toMatch(FEED_TOKEN_PATTERN);
    expect(await json(await call(user, "GET", "/api/calendar"))).toEqual(on);

    const otherOn = await json(await call(other, "PUT", "/api/calendar", { enabled: true }));
    expect(otherOn.url).not.toBe(on.url);

    const hidden = await json(await call(user, "PUT", "/api/calendar", { hideNames: true }));
    expect(hidden).toEqual({ ...on, hideNames: true });

    const reset = await call(user, "POST", "/api/calendar/reset");
    expect(reset.status).toBe(200);
    const afterReset = await json(reset);
    expect(afterReset).toMatchObject({ enabled: true, hideNames: true });
    expect(afterReset.url).not.toBe(on.url);

    const off = await json(await call(user, "PUT", "/api/calendar", { enabled: false }));
    expect(off).toEqual({ enabled: false, url: null, hideNames: true });
    const offReset = await call(user, "POST", "/api/calendar/reset");
    expect(offReset.status).toBe(409);
    expect((await json(offReset)).message).toBe("Turn the calendar feed on first");

    const again = await json(await call(user, "PUT", "/api/calendar", { enabled: true }));
    expect(again.hideNames).toBe(true);
    expect([on.url, afterReset.url]).not.toContain(again.url);
    // The other user's feed is untouched by all of it.
    expect(await json(await call(other, "GET", "/api/calendar"))).toEqual(otherOn);
  });

  test.each([
    ["an empty body", {}, null],
    ["enabled not a boolean", { enabled: "yes" }, "enabled"],
    ["hideNames not a boolean", { hideNames: 1 }, "hideNames"],
    ["an unknown field", { enabled: true, url: "https://evil.example.com" }, null],
    ["an array", [true], null],
  ])("PUT with %s: 400 with a message, nothing written", async (_what, body, field) => {
    const user = await createUser(api, { username: uniqueName("cal") });
    const res = await call(user, "PUT", "/api/calendar", body);
    expect(res.status).toBe(400);
    const answer = await json(res);
    expect(typeof answer.message).toBe("string");
    if (field) expect(Object.keys(answer.errors ?? {})).toContain(field);
    expect(await json(await call(user, "GET", "/api/calendar"))).toEqual({
      enabled: false,
      url: null,
      hideNames: false,
    });
  });

  test("after the server's secret changes, Settings shows an address that works; the old one is 404", async () => {
    const user = await createUser(api, { username: uniqueName("cal") });
    const db = api.ctx.database.db;
    const secret = api.ctx.config.authSecret;
    const on = await json(await call(user, "PUT", "/api/calendar", { enabled: true }));
    const feed = (url: string | null) => api.fetch(new URL(url as string).pathname);
    expect((await feed(on.url)).status).toBe(200);
    // As if the server came back with another secret: the address shown is a new one, and it works.
    const rotated = await readCalendar(db, user.id, { origin: api.url, secret: `${secret}-rotated` });
    expect(rotated).toMatchObject({ enabled: true, hideNames: false });
    expect(rotated.url).not.toBe(on.url);
    expect((await feed(rotated.url)).status).toBe(200);
    expect((await feed(on.url)).status).toBe(404);
    // Read again under the same secret: the same address, not a new one each time.
    expect(await readCalendar(db, user.id, { origin: api.url, secret: `${secret}-rotated` })).toEqual(rotated);
    // And back under the server's own secret (as the HTTP call reads it): the first address works again.
    expect(await json(await call(user, "GET", "/api/calendar"))).toEqual(on);
    expect((await feed(on.url)).status).toBe(200);
  });

  test("the account export says whether the feed is on and hides names, never its address", async () => {
    const user = await createUser(api, { username: uniqueName("cal") });
    const before = (await (await call(user, "GET", "/api/account/export")).json()) as { calendar: unknown };
    expect(before.calendar).toBeNull();
    const on = await json(await call(user, "PUT", "/api/calendar", { enabled: true, hideNames: true }));
    const res = await call(user, "GET", "/api/account/export");
    expect(res.status).toBe(200);
    const text = await res.text();
    const doc = JSON.parse(text) as { calendar: Record<string, unknown> };
    expect(doc.calendar).toEqual({ enabled: true, hideNames: true, since: expect.any(String) });
    expect(text).not.toContain(tokenOf(on.url));
  });

  test.each([
    ["GET", "/api/calendar"],
    ["PUT", "/api/calendar"],
    ["POST", "/api/calendar/reset"],
  ])("signed out, %s %s: 401", async (method, path) => {
    expect((await call(null, method, path, method === "PUT" ? { enabled: true } : undefined)).status).toBe(401);
  });
});

describe("the feed", () => {
  const ics = (url: string | null, headers: Record<string, string> = {}) =>
    api.fetch(new URL(url as string).pathname, { headers });
  test("no cookie needed: the user's doses as events a parser reads; reset, off and unknown addresses are 404", async () => {
    const user = await createUser(api, { username: uniqueName("feed") });
    const put = await call(user, "PUT", "/api/profile", { timeZone: "Europe/Berlin" });
    expect(put.status).toBe(200);
    for (const body of [
      { name: "Vitamin D3, 1000 IU", doseAmount: 2, schedule: { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] } },
      { name: "Magnesium", schedule: { times: ["anytime"], days: [1, 2, 3, 4, 5, 6, 7] } },
    ]) {
      const made = await call(user, "POST", "/api/supplements", {
        quantityType: "Capsule(s)",
        frequency: "Daily",
        ...body,
      });
      expect(made.status).toBe(201);
    }
    const on = await json(await call(user, "PUT", "/api/calendar", { enabled: true }));
    const res = await ics(on.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    const text = await res.text();
    const calendar = new ICAL.Component(ICAL.parse(text));
    const events = calendar.getAllSubcomponents("vevent").map((v) => new ICAL.Event(v));
    // Added today: due from today on, 30 days ahead; the morning and any-time doses in one event.
    expect(events.length).toBe(31);
    expect(events[0]?.summary).toBe("Morning: Vitamin D3, 1000 IU, Magnesium");
    expect(events[0]?.description).toBe("Vitamin D3, 1000 IU, 2 capsules\nMagnesium");
    expect(new Set(events.map((e) => e.uid)).size).toBe(31);

    const reset = await json(await call(user, "POST", "/api/calendar/reset"));
    expect((await ics(on.url)).status).toBe(404);
    expect((await ics(reset.url)).status).toBe(200);
    await call(user, "PUT", "/api/calendar", { enabled: false });
    expect((await ics(reset.url)).status).toBe(404);
    expect((await api.fetch(`/api/calendar/${"A".repeat(43)}.ics`)).status).toBe(404);
    expect((await api.fetch("/api/calendar/short.ics")).status).toBe(404);
  });

  test("names hidden: the feed says how many, never which", async () => {
    const user = await createUser(api, { username: uniqueName("feed") });
    await call(user, "POST", "/api/supplements", {
      name: "Ashwagandha",
      quantityType: "Capsule(s)",
      frequency: "Daily",
      schedule: { times: ["evening"], days: [1, 2, 3, 4, 5, 6, 7] },
    });
    const on = await json(await call(user, "PUT", "/api/calendar", { enabled: true, hideNames: true }));
    const text = await (await ics(on.url)).text();
    expect(text).not.toContain("Ashwagandha");
    expect(text).toContain("SUMMARY:Evening: 1 supplement");
  });

  test("at most 60 fetches an hour: the 61st is 429", async () => {
    const user = await createUser(api, { username: uniqueName("feed") });
    const on = await json(await call(user, "PUT", "/api/calendar", { enabled: true }));
    for (let i = 0; i < 60; i++) expect((await ics(on.url)).status).toBe(200);
    const over = await ics(on.url);
    expect(over.status).toBe(429);
    expect(typeof (await over.json()).message).toBe("string");
  });
});
