/**
 * Issue 36 §4: only the better-auth endpoints the product's own pages and flows call are served
 * (api/auth/paths.ts); every other /api/auth/* path answers 404 JSON, for GET and POST, signed
 * in or not. The list of what better-auth exposes comes from better-auth itself (auth.api), so
 * an endpoint an upgrade or a plugin adds is hidden until someone serves it on purpose.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SERVED_AUTH_PATHS, servedAuthPath } from "../../api/auth/paths";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser } from "../support/users";

let api: TestApi;
let user: ApiUser;
beforeAll(async () => {
  // GitHub configured, Google not: only GitHub's callback is served.
  api = await startApi({ LOG_LEVEL: "silent", GITHUB_CLIENT_ID: "test-client", GITHUB_CLIENT_SECRET: "test-secret" });
  user = await createUser(api);
});
afterAll(async () => {
  await api?.close();
});

/** A concrete path for better-auth's pattern (`:id` a provider, any other parameter a token). */
const concrete = (path: string, provider = "github") =>
  path.replace(/:id\b/g, provider).replace(/:[A-Za-z]+/g, "some-token");

/** Every path better-auth serves over HTTP, with its methods. */
function exposed(): { path: string; methods: string[] }[] {
  return Object.values(api.ctx.auth.api).flatMap((e) => {
    const { path, options } = e as { path?: string; options?: { method?: string | string[] } };
    if (typeof path !== "string") return [];
    return [{ path, methods: [options?.method ?? []].flat() }];
  });
}

const servedPatterns = new Set(SERVED_AUTH_PATHS.map((s) => s.path));
const PROVIDERS = new Set(["github"]);

async function statusOf(method: string, path: string, signedIn: boolean): Promise<{ status: number; body: string }> {
  const res = await api.fetch(path, {
    method,
    headers: signedIn ? { cookie: user.cookie } : {},
    ...(method === "POST" ? { body: {} } : {}),
  });
  return { status: res.status, body: await res.text() };
}

describe("every better-auth path not on the list: 404 JSON for GET and POST, signed in or not", () => {
  test("better-auth exposes dozens; the list serves a handful", () => {
    expect(exposed().length).toBeGreaterThan(25);
    expect(SERVED_AUTH_PATHS.length).toBeLessThanOrEqual(10);
    // Every entry on the list is an endpoint better-auth really has.
    const paths = new Set(exposed().map((e) => e.path));
    expect(SERVED_AUTH_PATHS.filter((s) => !paths.has(s.path))).toEqual([]);
  });

  test("each hidden path × GET, POST × signed in, signed out", async () => {
    const wrong: string[] = [];
    const hidden = exposed().filter((e) => !servedPatterns.has(e.path));
    expect(hidden.map((e) => e.path)).toContain("/send-verification-email");
    for (const { path } of hidden) {
      for (const method of ["GET", "POST"]) {
        for (const signedIn of [true, false]) {
          const { status, body } = await statusOf(method, `/api/auth${concrete(path)}`, signedIn);
          if (status !== 404 || JSON.parse(body).message !== "Not found") {
            wrong.push(`${method} ${path} (${signedIn ? "signed in" : "signed out"}): ${status} ${body.slice(0, 80)}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 60_000);

  test.each([
    ["a served path with the other method", "GET", "/api/auth/sign-in/email"],
    ["a served path with the other method", "POST", "/api/auth/reset-password/some-token"],
    ["an unconfigured provider's callback", "GET", "/api/auth/callback/google"],
    ["an unconfigured provider's callback", "POST", "/api/auth/callback/google"],
    ["an unknown provider's callback", "GET", "/api/auth/callback/evil"],
    ["a trailing slash", "POST", "/api/auth/sign-in/email/"],
    ["another case", "POST", "/api/auth/Sign-In/Email"],
    ["a percent-encoded hidden path", "GET", "/api/auth/list%2Dsessions"],
    ["a percent-encoded slash", "POST", "/api/auth/sign-in%2Femail"],
    ["a doubled slash", "POST", "/api/auth//sign-in/email"],
    ["the bare prefix", "GET", "/api/auth/"],
    ["a made-up path", "POST", "/api/auth/no-such-endpoint"],
    ["better-auth's own error page", "GET", "/api/auth/error"],
    ["the e-mail verification mail", "POST", "/api/auth/send-verification-email"],
  ])("%s (%s %s): 404", async (_what, method, path) => {
    const { status } = await statusOf(method, path, true);
    expect(status).toBe(404);
  });

  test("a token parameter cannot reach a hidden endpoint by dot segments", async () => {
    for (const path of [
      "/api/auth/reset-password/..%2F..%2Flist-sessions",
      "/api/auth/reset-password/%2E%2E%2Flist-sessions",
      "/api/auth/callback/github%2F..%2F..%2Flist-sessions",
    ]) {
      const { status, body } = await statusOf("GET", path, true);
      expect(body, path).not.toContain(user.id);
      expect([200, 401].includes(status) && body.startsWith("["), path).toBe(false);
    }
  });
});

describe("the served paths reach better-auth", () => {
  test.each(SERVED_AUTH_PATHS.map((s) => [s.method, s.path] as const))("%s %s: not our 404", async (method, path) => {
    const full = `/api/auth${concrete(path)}`;
    expect(servedAuthPath(method, full, PROVIDERS)).not.toBeNull();
    const { status, body } = await statusOf(method, full, false);
    expect(status >= 500, body).toBe(false);
    expect(status === 404 && body.includes('"Not found"'), `${status} ${body}`).toBe(false);
  });
});
