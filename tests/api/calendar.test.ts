/**
 * Issue 50 §1, the calendar feed's settings over HTTP: off by default, on gives an address,
 * hideNames kept, a reset gives another, off and on again another; bad input is a 400 naming
 * the field with nothing written; signed out 401. The addresses are the user's own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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

  test.each([
    ["GET", "/api/calendar"],
    ["PUT", "/api/calendar"],
    ["POST", "/api/calendar/reset"],
  ])("signed out, %s %s: 401", async (method, path) => {
    expect((await call(null, method, path, method === "PUT" ? { enabled: true } : undefined)).status).toBe(401);
  });
});
