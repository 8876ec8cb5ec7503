/**
 * No open redirect: every route that accepts a return path, fed every hostile value of
 * tests/support/return-paths.ts (control characters raw and encoded, backslashes, `//`,
 * encoded slashes, schemes, userinfo, look-alike hosts, IDN, API paths), must send the
 * browser to the site's own origin, and a refused value becomes "/" silently. The
 * legitimate paths must survive unchanged through the same routes.
 *
 * Routes: `/api/login?redirectTo=`; better-auth's sign-in/email `callbackURL` (its answer's
 * `url`), sign-in/social `callbackURL` / `errorCallbackURL` / `newUserCallbackURL` (as stored
 * in the OAuth state), the reset-password link's `callbackURL` (its `Location`; the
 * e-mail change's link takes none); and, on the built server, the sign-in, sign-up and forgot-password pages:
 * what each hands the sign-in form, and where a signed-in visitor is sent (302).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifications } from "../../db/schema";
import { cookieHeader } from "../support/auth";
import { type ServerProcess, skipWithoutBuild, startServer } from "../support/process";
import { forSite, HOSTILE_RETURN_PATHS, LEGITIMATE_RETURN_PATHS } from "../support/return-paths";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser } from "../support/users";

const label = (value: string) => JSON.stringify(value);

/** Where a browser ends up for `location` (a Location header or a URL handed to the page). */
function destination(location: string | null | undefined, origin: string): URL {
  expect(typeof location).toBe("string");
  return new URL(location as string, origin);
}

/** The final destination must be on the site, and a hostile value must have become "/". */
function expectOnSite(location: string | null | undefined, origin: string, exactly?: string) {
  const url = destination(location, origin);
  expect(url.origin).toBe(origin);
  // What a browser does with it: no control character or backslash survives to be "fixed".
  const unsafe = [...(location as string)].filter((c) => {
    const code = c.codePointAt(0) ?? 0;
    return code <= 0x20 || (code >= 0x7f && code <= 0x9f) || c === "\\" || /\s/u.test(c);
  });
  expect(unsafe).toEqual([]);
  expect((location as string).startsWith("//")).toBe(false);
  if (exactly !== undefined) expect(`${url.pathname}${url.search}${url.hash}`).toBe(exactly);
}

describe("return paths through the API and better-auth", () => {
  let api: TestApi;
  let user: ApiUser;
  beforeAll(async () => {
    api = await startApi({ GITHUB_CLIENT_ID: "test-client", GITHUB_CLIENT_SECRET: "test-secret" });
    user = await createUser(api);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  const cases = (kind: "hostile" | "legitimate") =>
    kind === "hostile"
      ? HOSTILE_RETURN_PATHS.map((v) => [kind, label(v), v, "/"] as const)
      : LEGITIMATE_RETURN_PATHS.map((v) => [kind, label(v), v, v] as const);
  const all = [...cases("hostile"), ...cases("legitimate")];

  test.each(all)("/api/login?redirectTo= (%s %s)", async (_kind, _label, raw, expected) => {
    const value = forSite(raw, api.origin);
    const res = await api.fetch(`/api/login?redirectTo=${encodeURIComponent(value)}`);
    expect(res.status).toBe(302);
    const location = res.headers.get("location");
    const signIn = destination(location, api.origin);
    expect(signIn.origin).toBe(api.origin);
    expect(signIn.pathname).toBe("/auth/sign-in");
    // And where sign-in will send the visitor after.
    expectOnSite(signIn.searchParams.get("redirectTo") ?? "/", api.origin, expected);
  });

  /**
   * A JSON body holding U+0000 anywhere is refused whole with a 400 before better-auth reads
   * it (api/app.ts; Postgres cannot store it): no redirect at all, which is as safe.
   */
  const refusedWhole = (raw: string) => raw.includes("\u0000");

  test.each(all)("sign-in/email callbackURL (%s %s)", async (_kind, _label, raw, expected) => {
    const res = await api.fetch("/api/auth/sign-in/email", {
      method: "POST",
      body: { email: user.email, password: user.password, callbackURL: forSite(raw, api.origin) },
    });
    if (refusedWhole(raw)) {
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      return;
    }
    expect(res.status).toBe(200);
    const body = (await res.json()) as { url?: string };
    expectOnSite(body.url, api.origin, expected);
  });

  test.each(all)(
    "sign-in/social callbackURL, errorCallbackURL, newUserCallbackURL (%s %s)",
    async (_kind, _label, raw, expected) => {
      const value = forSite(raw, api.origin);
      const res = await api.fetch("/api/auth/sign-in/social", {
        method: "POST",
        body: { provider: "github", callbackURL: value, errorCallbackURL: value, newUserCallbackURL: value },
      });
      if (refusedWhole(raw)) {
        expect(res.status).toBe(400);
        expect(res.headers.get("location")).toBeNull();
        return;
      }
      expect(res.status).toBe(200);
      const { url } = (await res.json()) as { url: string };
      const state = new URL(url).searchParams.get("state");
      expect(state).toBeTruthy();
      // Where better-auth will send the browser when GitHub sends it back: as stored in the state.
      const rows = await api.ctx.database.db.select().from(verifications);
      const stored = rows
        .map((row) => ({ row, value: JSON.parse(row.value) as Record<string, unknown> }))
        .find(({ row }) => row.identifier === state || row.identifier.endsWith(state as string));
      expect(stored).toBeDefined();
      for (const key of ["callbackURL", "errorURL", "newUserURL"]) {
        expectOnSite(String(stored?.value[key]), api.origin, expected);
      }
    },
  );

  test.each(all)("reset-password link callbackURL (%s %s)", async (_kind, _label, raw, expected) => {
    const value = forSite(raw, api.origin);
    const res = await api.fetch(`/api/auth/reset-password/not-a-token?callbackURL=${encodeURIComponent(value)}`);
    expect(res.status).toBe(302);
    const location = destination(res.headers.get("location"), api.origin);
    expect(location.origin).toBe(api.origin);
    location.searchParams.delete("error");
    expectOnSite(`${location.pathname}${location.search}${location.hash}`, api.origin, expected);
  });

  // The e-mail change's link (issue 36) takes no return path at all: it always lands on /settings.
  test.each(all)("e-mail change link with a callbackURL (%s %s)", async (_kind, _label, raw) => {
    const value = forSite(raw, api.origin);
    const res = await api.fetch(
      `/api/account/email/confirm?token=not-a-token&callbackURL=${encodeURIComponent(value)}`,
    );
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/settings?email=link-invalid");
  });
});

/** The sign-in form's props as the page rendered them (Astro serialises them on the island). */
function authFormProps(html: string): Record<string, unknown> {
  for (const match of html.matchAll(/<astro-island\b[^>]*\bprops="([^"]*)"/g)) {
    const text = (match[1] ?? "")
      .replaceAll("&quot;", '"')
      .replaceAll("&#39;", "'")
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&amp;", "&");
    const props = JSON.parse(text) as Record<string, [number, unknown]>;
    if ("redirectTo" in props) return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v[1]]));
  }
  throw new Error("no island with a redirectTo prop on the page");
}

describe.skipIf(skipWithoutBuild("return-paths.test.ts: return paths through the sign-in pages (built server)"))(
  "return paths through the sign-in pages (built server)",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "stacktrack-return-"));
    let server: ServerProcess;
    let cookie: string;
    beforeAll(async () => {
      server = await startServer({ DATA_DIR: join(dir, "data") });
      const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { origin: server.url, "content-type": "application/json" },
        body: JSON.stringify({
          email: `pages-${crypto.randomUUID().slice(0, 8)}@example.com`,
          password: "correct horse battery",
          name: "Pages Test",
        }),
      });
      expect(res.status).toBe(200);
      cookie = cookieHeader(res);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const pages = ["/auth/sign-in", "/auth/sign-up", "/auth/forgot-password"];
    const all = [
      ...HOSTILE_RETURN_PATHS.map((v) => ["hostile", label(v), v, "/"] as const),
      ...LEGITIMATE_RETURN_PATHS.map((v) => ["legitimate", label(v), v, v] as const),
    ];

    for (const page of pages) {
      test.each(all)(`${page}: the form is handed a path on the site (%s %s)`, async (_kind, _label, raw, expected) => {
        const value = forSite(raw, server.url);
        const res = await fetch(`${server.url}${page}?redirectTo=${encodeURIComponent(value)}`, { redirect: "manual" });
        expect(res.status).toBe(200);
        const props = authFormProps(await res.text());
        expectOnSite(String(props.redirectTo), server.url, expected);
      });

      test.each(all)(
        `${page}: a signed-in visitor's 302 stays on the site (%s %s)`,
        async (_kind, _label, raw, expected) => {
          const value = forSite(raw, server.url);
          const res = await fetch(`${server.url}${page}?redirectTo=${encodeURIComponent(value)}`, {
            redirect: "manual",
            headers: { cookie },
          });
          expect(res.status).toBe(302);
          expectOnSite(res.headers.get("location"), server.url, expected);
        },
      );
    }
  },
);
