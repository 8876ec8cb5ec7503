/** Malformed JSON is the client's mistake: 400 JSON with a message, never a 500 or an HTML page. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestUser } from "../support/auth";
import { startApi, type TestApi } from "../support/server";

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
