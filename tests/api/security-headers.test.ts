/**
 * Security headers on every page and every kind of response, and a Content-Security-Policy
 * that forbids inline script, from the built server in production mode.
 *
 * Pages are read from src/pages (the same list as the authorization matrix), signed out,
 * signed in and signed in without a username. For each HTML answer the effective script
 * policy (the CSP header and any <meta> CSP: both apply) must not allow 'unsafe-inline',
 * 'unsafe-eval', wildcards or whole schemes; every inline <script> Astro emits must be
 * allowed by its SHA-256 (or the page would break), and no inline event handler
 * (onclick=…) may appear at all, since the policy would block it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { type Instance, type SharedDatabase, sharedDatabase, startInstance } from "../support/instances";
import { skipWithoutBuild } from "../support/process";

/** One URL per page file (see authz-matrix.test.ts, which checks the list of files). */
const PAGES = [
  "/",
  "/dashboard",
  "/no/such/page",
  "/auth/sign-in",
  "/auth/sign-up",
  "/auth/forgot-password",
  "/auth/reset-password?token=abc",
  "/billing",
  "/subscribe",
  "/profile/edit",
];

type Who = "signed out" | "signed in" | "no username";

interface Policy {
  directives: Map<string, string[]>;
}

function parseCsp(text: string): Policy {
  const directives = new Map<string, string[]>();
  for (const part of text.split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name && !directives.has(name.toLowerCase())) directives.set(name.toLowerCase(), values);
  }
  return { directives };
}

const scriptSources = (p: Policy) =>
  p.directives.get("script-src-elem") ?? p.directives.get("script-src") ?? p.directives.get("default-src");

function metaCsp(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<meta\b[^>]*http-equiv=["']?content-security-policy["']?[^>]*>/gi)) {
    const content = m[0].match(/content=("([^"]*)"|'([^']*)')/i);
    if (content) out.push((content[2] ?? content[3] ?? "").replaceAll("&#39;", "'").replaceAll("&quot;", '"'));
  }
  return out;
}

/** Problems with the page's script policy, empty when it is sound. */
function scriptPolicyProblems(html: string, headerCsp: string): string[] {
  const policies = [headerCsp, ...metaCsp(html)].filter(Boolean).map(parseCsp);
  const problems: string[] = [];
  const restricting = policies.filter((p) => scriptSources(p));
  if (restricting.length === 0) return ["no policy restricts scripts (no script-src or default-src)"];
  // Every inline script must be allowed by a hash in each restricting policy.
  const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].filter(
    (m) => !/\bsrc\s*=/.test(m[1] ?? "") && !/type=["']?(application\/(ld\+)?json|text\/template)/i.test(m[1] ?? ""),
  );
  for (const policy of restricting) {
    const sources = scriptSources(policy) ?? [];
    for (const bad of [
      "'unsafe-inline'",
      "'unsafe-eval'",
      "'unsafe-hashes'",
      "*",
      "data:",
      "http:",
      "https:",
      "blob:",
    ]) {
      if (sources.includes(bad)) problems.push(`script sources allow ${bad}`);
    }
    for (const m of inline) {
      const hash = `'sha256-${createHash("sha256")
        .update(m[2] ?? "")
        .digest("base64")}'`;
      if (!sources.includes(hash)) problems.push(`inline script not allowed by hash: ${(m[2] ?? "").slice(0, 80)}`);
    }
    const objects = policy.directives.get("object-src") ?? policy.directives.get("default-src");
    if (objects && !objects.includes("'none'")) problems.push(`object-src is ${objects.join(" ")}`);
  }
  for (const m of html.matchAll(/<[a-z][^>]*\s(on[a-z]+)\s*=/gi)) problems.push(`inline event handler ${m[1]}`);
  for (const m of html.matchAll(/\b(?:href|src|action)\s*=\s*["']?\s*javascript:/gi))
    problems.push(`javascript: URL ${m[0]}`);
  return problems;
}

function headerProblems(res: Response, production: boolean): string[] {
  const problems: string[] = [];
  const h = (name: string) => res.headers.get(name);
  if (h("x-content-type-options") !== "nosniff") problems.push("X-Content-Type-Options");
  if (!h("referrer-policy")) problems.push("Referrer-Policy");
  if (h("x-frame-options") !== "DENY") problems.push("X-Frame-Options");
  if (!h("permissions-policy")) problems.push("Permissions-Policy");
  const csp = h("content-security-policy") ?? "";
  if (!/frame-ancestors 'none'/.test(csp)) problems.push(`CSP frame-ancestors: ${csp}`);
  if (production && !/max-age=\d{7,}/.test(h("strict-transport-security") ?? ""))
    problems.push("Strict-Transport-Security");
  const type = h("content-type") ?? "";
  if (!type.startsWith("text/html") && res.status !== 304 && !/default-src 'none'/.test(csp) && csp.length > 0) {
    // Non-pages may load nothing (a JSON or image answer is never a document).
    if (!type.startsWith("text/") && !type.includes("javascript")) problems.push(`non-page CSP: ${csp}`);
  }
  return problems;
}

describe.skipIf(skipWithoutBuild("security-headers.test.ts: security headers and CSP (built server)"))(
  "security headers and CSP (built server, production)",
  () => {
    let db: SharedDatabase;
    let server: Instance;
    const cookies = {} as Record<Who, string>;
    let username = "";
    let imageUrl = "";
    let asset = "";

    beforeAll(async () => {
      db = await sharedDatabase();
      server = await startInstance({
        ...db.env,
        NODE_ENV: "production",
        BETTER_AUTH_SECRET: "a-production-secret-for-the-header-tests-0123456789abcdef",
      });
      const signUp = async () => {
        const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
          method: "POST",
          headers: { origin: server.url, "content-type": "application/json" },
          body: JSON.stringify({
            email: `hdr-${crypto.randomUUID().slice(0, 8)}@example.com`,
            password: "correct horse battery",
            name: "H",
          }),
        });
        expect(res.status).toBe(200);
        return res.headers
          .getSetCookie()
          .map((c) => c.split(";")[0])
          .join("; ");
      };
      cookies["signed out"] = "";
      cookies["signed in"] = await signUp();
      cookies["no username"] = await signUp();
      username = `hdr_${crypto.randomUUID().slice(0, 6)}`;
      const put = await fetch(`${server.url}/api/profile`, {
        method: "PUT",
        headers: { origin: server.url, "content-type": "application/json", cookie: cookies["signed in"] },
        body: JSON.stringify({ username }),
      });
      expect(put.status).toBe(200);
      const sharp = (await import("sharp")).default;
      const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: "#123" } })
        .png()
        .toBuffer();
      const form = new FormData();
      form.append("profileImage", new File([png], "a.png", { type: "image/png" }));
      const up = await fetch(`${server.url}/api/upload/profile-image`, {
        method: "POST",
        headers: { origin: server.url, cookie: cookies["signed in"] },
        body: form,
      });
      imageUrl = ((await up.json()) as { imageUrl: string }).imageUrl;
      const landing = await (await fetch(`${server.url}/`)).text();
      asset = landing.match(/(?:href|src)="(\/_astro\/[^"]+)"/)?.[1] ?? "/favicon.svg";
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    for (const who of ["signed out", "signed in", "no username"] as Who[]) {
      test(`every page, ${who}: security headers, and a script policy without inline script`, async () => {
        const problems: string[] = [];
        let htmlPages = 0;
        for (const path of [...PAGES, `/${username}`]) {
          const res = await fetch(`${server.url}${path}`, {
            headers: cookies[who] ? { cookie: cookies[who] } : {},
            redirect: "manual",
          });
          const body = await res.text();
          problems.push(...headerProblems(res, true).map((p) => `${path} (${res.status}): ${p}`));
          if ((res.headers.get("content-type") ?? "").startsWith("text/html") && body.length > 0) {
            htmlPages++;
            problems.push(
              ...scriptPolicyProblems(body, res.headers.get("content-security-policy") ?? "").map(
                (p) => `${path}: ${p}`,
              ),
            );
          }
        }
        expect(htmlPages).toBeGreaterThan(3);
        expect(problems).toEqual([]);
      });
    }

    test("every other kind of answer carries the headers too: JSON, 404 JSON, 401, 403, 413, redirects, images, assets, 304", async () => {
      const cases: [string, string, RequestInit][] = [
        ["health", "/api/health", {}],
        ["unknown API path", "/api/nope", {}],
        ["401", "/api/supplements", {}],
        ["403 cross-origin", "/api/supplements", { method: "POST", headers: { origin: "https://evil.example" } }],
        [
          "413",
          "/api/supplements",
          { method: "POST", headers: { origin: server.url, "content-length": String(50 * 1024 * 1024) }, body: "x" },
        ],
        ["302 /api/login", "/api/login", {}],
        ["image", imageUrl, {}],
        ["asset", asset, {}],
        ["profile JSON", `/api/profile/${username}`, {}],
        // Signed-in answers kept in memory (api/lib/cache.ts serveCached), twice: the second from memory.
        ...(["/api/supplements", "/api/today"] as const).flatMap((path) =>
          [1, 2].map((n): [string, string, RequestInit] => [
            `signed in #${n}`,
            path,
            { headers: { cookie: cookies["signed in"] } },
          ]),
        ),
      ];
      const problems: string[] = [];
      for (const [what, path, init] of cases) {
        let res: Response;
        try {
          res = await fetch(`${server.url}${path}`, { ...init, redirect: "manual" });
        } catch (error) {
          problems.push(`${what}: ${error}`);
          continue;
        }
        await res.arrayBuffer();
        problems.push(...headerProblems(res, true).map((p) => `${what} ${path} (${res.status}): ${p}`));
        if (what.startsWith("signed in") && (res.status !== 200 || res.headers.get("cache-control") !== "no-store")) {
          problems.push(`${what} ${path}: ${res.status}, Cache-Control ${res.headers.get("cache-control")}`);
        }
        const etag = res.headers.get("etag");
        if (etag && res.status === 200) {
          const again = await fetch(`${server.url}${path}`, {
            headers: { ...(init.headers as Record<string, string> | undefined), "if-none-match": etag },
          });
          await again.arrayBuffer();
          if (again.status === 304) problems.push(...headerProblems(again, true).map((p) => `${what} 304: ${p}`));
        }
      }
      expect(problems).toEqual([]);
    });

    test("the policy checker itself refuses what it must (unsafe-inline, a stray inline script, an onclick)", () => {
      expect(scriptPolicyProblems("<p>x</p>", "script-src 'self' 'unsafe-inline'; object-src 'none'")).toContain(
        "script sources allow 'unsafe-inline'",
      );
      expect(scriptPolicyProblems("<script>alert(1)</script>", "script-src 'self'; object-src 'none'").length).toBe(1);
      expect(scriptPolicyProblems('<a onclick="x()">', "script-src 'self'; object-src 'none'")).toContain(
        "inline event handler onclick",
      );
      expect(scriptPolicyProblems("<p>x</p>", "frame-ancestors 'none'")).toEqual([
        "no policy restricts scripts (no script-src or default-src)",
      ]);
    });
  },
);
