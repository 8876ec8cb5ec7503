/** Malformed JSON is the client's mistake: 400 JSON with a message, never a 500 or an HTML page. */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SERVED_AUTH_PATHS } from "../../api/auth/paths";
import { signUp, type TestUser } from "../support/auth";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, supplementRows, uniqueName, userRow } from "../support/users";

describe("malformed JSON bodies", () => {
  let api: TestApi;
  let user: TestUser;
  beforeAll(async () => {
    api = await startApi();
    user = await signUp(api);
  });
  afterAll(async () => {
    await api.close();
  });

  test("PUT /api/profile with `{bad json` answers 400 JSON with a message", async () => {
    const res = await api.fetch("/api/profile", {
      method: "PUT",
      headers: { cookie: user.cookie, "content-type": "application/json" },
      body: "{bad json",
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = (await res.json()) as { message?: unknown };
    expect(typeof body.message).toBe("string");
    expect(String(body.message).length).toBeGreaterThan(0);
  });

  test("the same request with valid JSON is accepted (the 400 is about the body, not the session)", async () => {
    const res = await api.fetch("/api/profile", {
      method: "PUT",
      headers: { cookie: user.cookie },
      body: { bio: "Hello" },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { bio?: unknown }).bio).toBe("Hello");
  });
});

/**
 * An empty body, or one of white space only, is not JSON: every route that reads a JSON
 * body answers 400 (ours with 'Request body must be valid JSON'; better-auth's with its own
 * message), never a 200 that treats it as `{}` and never a 500. Routes that take no body
 * keep working with none or an empty one.
 */
describe("empty JSON bodies", () => {
  let api: TestApi;
  let user: ApiUser;
  let supplementId: number;
  beforeAll(async () => {
    api = await startApi();
    user = await createUser(api, { username: uniqueName("empty") });
    const res = await api.fetch("/api/supplements", {
      method: "POST",
      headers: { cookie: user.cookie },
      body: { name: "Zinc", quantityType: "Capsule(s)", frequency: "daily" },
    });
    expect(res.status).toBe(201);
    supplementId = ((await res.json()) as { id: number }).id;
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  const EMPTY_BODIES: [string, string][] = [
    ["empty", ""],
    ["a space", " "],
    ["white space and newlines", " \n\t\r\n "],
  ];
  /** Every route of ours that reads a JSON body. */
  const ourJsonRoutes = (): [string, string][] => [
    ["PUT", "/api/profile"],
    ["POST", "/api/supplements"],
    ["PUT", "/api/supplements/reorder"],
    ["PUT", `/api/supplements/${supplementId}`],
  ];
  /** better-auth's endpoints that read a JSON body. */
  // The better-auth endpoints served over HTTP that read a JSON body (api/auth/paths.ts).
  const AUTH_JSON_ROUTES = SERVED_AUTH_PATHS.filter((s) => s.method === "POST" && !s.path.includes(":")).map((s) =>
    s.path.slice(1),
  );

  test("ours: every route × every empty body answers 400 'Request body must be valid JSON' and writes nothing", async () => {
    const before = await userRow(api, user);
    const problems: string[] = [];
    for (const [method, path] of ourJsonRoutes()) {
      for (const [label, body] of EMPTY_BODIES) {
        const res = await api.fetch(path, {
          method,
          headers: { cookie: user.cookie, "content-type": "application/json" },
          body,
        });
        const text = await res.text();
        let message: unknown;
        try {
          message = (JSON.parse(text) as { message?: unknown }).message;
        } catch {
          message = `(not JSON) ${text.slice(0, 60)}`;
        }
        if (res.status !== 400 || message !== "Request body must be valid JSON") {
          problems.push(`${method} ${path} with ${label} body: ${res.status} ${String(message)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    const after = await userRow(api, user);
    expect(after.updatedAt.getTime()).toBe(before.updatedAt.getTime());
    const rows = await supplementRows(api, user);
    expect(rows.map((r) => r.name)).toEqual(["Zinc"]);
  });

  test("better-auth's: every endpoint that reads a body × every empty body answers 400 JSON, never 200 or 5xx", async () => {
    const problems: string[] = [];
    for (const endpoint of AUTH_JSON_ROUTES) {
      for (const [label, body] of EMPTY_BODIES) {
        const victim = await createUser(api);
        const res = await api.fetch(`/api/auth/${endpoint}`, {
          method: "POST",
          headers: { cookie: victim.cookie, "content-type": "application/json" },
          body,
        });
        const json = (await res.json().catch(() => null)) as { message?: unknown } | null;
        if (res.status !== 400 || typeof json?.message !== "string") {
          problems.push(`${endpoint} with ${label} body: ${res.status}`);
        }
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  test("routes that take no body work with none and with an empty one", async () => {
    const problems: string[] = [];
    // Deleting a supplement: 204 either way.
    for (const body of [undefined, "", " "]) {
      const res = await api.fetch("/api/supplements", {
        method: "POST",
        headers: { cookie: user.cookie },
        body: { name: "Magnesium", quantityType: "Capsule(s)", frequency: "daily" },
      });
      const { id } = (await res.json()) as { id: number };
      const del = await api.fetch(`/api/supplements/${id}`, {
        method: "DELETE",
        headers: { cookie: user.cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body,
      });
      if (del.status !== 204) problems.push(`DELETE /api/supplements/:id with ${JSON.stringify(body)}: ${del.status}`);
    }
    // Billing calls answer the same with no body as with an empty JSON one (payments are not configured here).
    for (const path of ["/api/get-or-create-subscription", "/api/cancel-subscription", "/api/create-portal-session"]) {
      const none = await api.fetch(path, { method: "POST", headers: { cookie: user.cookie } });
      const noneText = await none.text();
      for (const body of ["", " "]) {
        const res = await api.fetch(path, {
          method: "POST",
          headers: { cookie: user.cookie, "content-type": "application/json" },
          body,
        });
        const text = await res.text();
        if (res.status !== none.status || text !== noneText || text.includes("valid JSON")) {
          problems.push(`${path} with ${JSON.stringify(body)}: ${res.status} ${text} (no body: ${none.status})`);
        }
      }
    }
    // Ending sessions: our logout and 'Sign out everywhere else' (better-auth's own are not served).
    for (const endpoint of ["/api/account/sessions/revoke-others", "/api/logout"]) {
      for (const body of [undefined, ""]) {
        const victim = await createUser(api);
        const res = await api.fetch(endpoint, {
          method: "POST",
          headers: { cookie: victim.cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          body,
        });
        if (res.status !== 200 && res.status !== 303)
          problems.push(`${endpoint} with ${JSON.stringify(body)}: ${res.status}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
