/**
 * What browsers and shared caches may keep.
 * - Every /api answer that carries personal data (sessions, the user, supplements, billing,
 *   uploads, everything better-auth answers, errors) says `Cache-Control: no-store`; the
 *   public answers keep their own policy (GET /api/profile/{name}, /api/health, images).
 * - The public profile cache never keeps a name that fails the username rule: a 15 KB name
 *   answers 404 and the cache does not grow.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, uniqueName } from "../support/users";

interface Call {
  method: string;
  path: string;
  body?: Record<string, unknown> | unknown[] | FormData | string;
  signedIn?: boolean;
  headers?: Record<string, string>;
}

describe("Cache-Control on /api answers", () => {
  let api: TestApi;
  let user: ApiUser;
  let supplementId: number;
  let imageUrl: string;
  beforeAll(async () => {
    api = await startApi({ GITHUB_CLIENT_ID: "test-client", GITHUB_CLIENT_SECRET: "test-secret" });
    user = await createUser(api, { username: uniqueName("cc") });
    const res = await api.fetch("/api/supplements", {
      method: "POST",
      headers: { cookie: user.cookie },
      body: { name: "Zinc", quantityType: "Capsule(s)", frequency: "daily" },
    });
    supplementId = ((await res.json()) as { id: number }).id;
    const png = new Uint8Array(
      await sharp({ create: { width: 64, height: 64, channels: 3, background: "#345" } })
        .png()
        .toBuffer(),
    );
    const form = new FormData();
    form.append("profileImage", new File([png], "a.png", { type: "image/png" }));
    const up = await api.fetch("/api/upload/profile-image", {
      method: "POST",
      headers: { cookie: user.cookie },
      body: form,
    });
    imageUrl = ((await up.json()) as { imageUrl: string }).imageUrl;
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  const png = async () =>
    new Uint8Array(
      await sharp({ create: { width: 32, height: 32, channels: 3, background: "#678" } })
        .png()
        .toBuffer(),
    );

  /** Personal answers, signed in unless said otherwise: each must be `no-store`. */
  const personalCalls = (): [string, () => Promise<Call>][] => [
    ["GET /api/auth/user", async () => ({ method: "GET", path: "/api/auth/user" })],
    ["GET /api/auth/user signed out (401)", async () => ({ method: "GET", path: "/api/auth/user", signedIn: false })],
    ["GET /api/auth/get-session", async () => ({ method: "GET", path: "/api/auth/get-session" })],
    ["GET /api/auth/list-sessions", async () => ({ method: "GET", path: "/api/auth/list-sessions" })],
    ["GET /api/auth/list-accounts", async () => ({ method: "GET", path: "/api/auth/list-accounts" })],
    [
      "POST /api/auth/sign-in/email",
      async () => ({
        method: "POST",
        path: "/api/auth/sign-in/email",
        body: { email: user.email, password: user.password },
        signedIn: false,
      }),
    ],
    [
      "POST /api/auth/sign-in/email, wrong password (401)",
      async () => ({
        method: "POST",
        path: "/api/auth/sign-in/email",
        body: { email: user.email, password: "wrong password!" },
        signedIn: false,
      }),
    ],
    [
      "POST /api/auth/sign-up/email",
      async () => ({
        method: "POST",
        path: "/api/auth/sign-up/email",
        body: {
          email: `cc-${crypto.randomUUID().slice(0, 8)}@example.com`,
          password: "correct horse battery",
          name: "C",
        },
        signedIn: false,
      }),
    ],
    [
      "POST /api/auth/update-user",
      async () => ({ method: "POST", path: "/api/auth/update-user", body: { name: "New Name" } }),
    ],
    [
      "POST /api/auth/sign-in/social",
      async () => ({ method: "POST", path: "/api/auth/sign-in/social", body: { provider: "github" }, signedIn: false }),
    ],
    ["GET /api/supplements", async () => ({ method: "GET", path: "/api/supplements" })],
    [
      "GET /api/supplements signed out (401)",
      async () => ({ method: "GET", path: "/api/supplements", signedIn: false }),
    ],
    [
      "POST /api/supplements",
      async () => ({
        method: "POST",
        path: "/api/supplements",
        body: { name: "Iron", quantityType: "Capsule(s)", frequency: "daily" },
      }),
    ],
    [
      "PUT /api/supplements/:id",
      async () => ({
        method: "PUT",
        path: `/api/supplements/${supplementId}`,
        body: { name: "Zinc 2", quantityType: "Capsule(s)", frequency: "daily" },
      }),
    ],
    [
      "PUT /api/supplements/reorder (400)",
      async () => ({ method: "PUT", path: "/api/supplements/reorder", body: { supplementIds: [] } }),
    ],
    ["PUT /api/profile", async () => ({ method: "PUT", path: "/api/profile", body: { bio: "Hello" } })],
    ["PUT /api/profile, malformed JSON (400)", async () => ({ method: "PUT", path: "/api/profile", body: "{bad" })],
    ["GET /api/billing", async () => ({ method: "GET", path: "/api/billing" })],
    ["POST /api/get-or-create-subscription", async () => ({ method: "POST", path: "/api/get-or-create-subscription" })],
    [
      "POST /api/upload/profile-image",
      async () => {
        const form = new FormData();
        form.append("profileImage", new File([await png()], "b.png", { type: "image/png" }));
        return { method: "POST", path: "/api/upload/profile-image", body: form };
      },
    ],
    ["GET /api/login", async () => ({ method: "GET", path: "/api/login?redirectTo=/billing" })],
    ["GET /api/no-such-route (404)", async () => ({ method: "GET", path: "/api/no-such-route" })],
    ["DELETE /api/supplements/:id", async () => ({ method: "DELETE", path: `/api/supplements/${supplementId}` })],
    ["POST /api/logout", async () => ({ method: "POST", path: "/api/logout", signedIn: true })],
  ];

  test("every personal answer says Cache-Control: no-store", async () => {
    const problems: string[] = [];
    for (const [label, make] of personalCalls()) {
      const call = await make();
      const fresh = label.includes("logout") ? await createUser(api) : user;
      const res = await api.fetch(call.path, {
        method: call.method,
        headers: { ...(call.signedIn === false ? {} : { cookie: fresh.cookie }), ...call.headers },
        body: call.body,
      });
      await res.arrayBuffer();
      const cc = res.headers.get("cache-control");
      if (cc !== "no-store") problems.push(`${label}: ${res.status} Cache-Control: ${cc}`);
    }
    expect(problems).toEqual([]);
  }, 60_000);

  test("the public answers keep their own policy", async () => {
    const profile = await api.fetch(`/api/profile/${user.username}`);
    expect(profile.status).toBe(200);
    expect(profile.headers.get("cache-control")).toBe("no-cache");
    const missing = await api.fetch(`/api/profile/${uniqueName("nobody")}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("cache-control")).toBe("no-cache");
    const image = await api.fetch(imageUrl);
    expect(image.status).toBe(200);
    expect(image.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const health = await api.fetch("/api/health");
    expect(health.headers.get("cache-control")).toBe("no-store");
  });
});

describe("the public profile cache and ill-formed names", () => {
  let api: TestApi;
  /** Entries held, read from the cache's own map (the same before and after the byte cap existed). */
  const held = () => api.ctx.caches.responses.size;
  beforeAll(async () => {
    api = await startApi();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  test.each([
    ["15 KB of letters", "a".repeat(15_000)],
    ["51 letters", "b".repeat(51)],
    ["a dot", "alice.smith"],
    ["an encoded space", "alice%20smith"],
    ["non-ASCII", "%C3%A0lice"],
  ])("GET /api/profile/<%s> answers 404 and the cache does not grow", async (_label, name) => {
    const entries = held();
    const bytes = api.ctx.caches.responses.bytes;
    for (let i = 0; i < 3; i++) {
      const res = await api.fetch(`/api/profile/${name}${"_".repeat(i)}`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { message: string }).message).toBe("Profile not found");
    }
    expect(held()).toBe(entries);
    expect(api.ctx.caches.responses.bytes).toBe(bytes);
  });

  test("a valid but unknown name is still cached (a viral link to it must not reach Postgres)", async () => {
    const entries = held();
    const res = await api.fetch(`/api/profile/${uniqueName("ghost")}`);
    expect(res.status).toBe(404);
    expect(held()).toBe(entries + 1);
  });
});
