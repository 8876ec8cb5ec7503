/**
 * api/lib/security.ts as units: the origin rule for state-changing requests (every method,
 * look-alike origins), the fixed security headers and the CSP each kind of response gets.
 * Written to kill the mutants StrykerJS makes of the module (docs/mutation-testing.md): each value the
 * module promises is asserted exactly.
 */
import { describe, expect, test } from "bun:test";
import {
  cspFor,
  FRAME_ANCESTORS,
  isCrossOriginWrite,
  NON_PAGE_CSP,
  STATIC_PAGE_CSP,
  securityHeaders,
  withSecurityHeaders,
} from "../../api/lib/security";

const SITE = "https://stacktrack.example";

function request(method: string, headers: Record<string, string>, url = `${SITE}/api/supplements`): Request {
  return new Request(url, { method, headers });
}

/** A plain-http site (local development): its requests' own origins are in its scheme. */
const HTTP_SITE = "http://stacktrack.example";

describe("isCrossOriginWrite", () => {
  test.each(["GET", "HEAD", "OPTIONS"])("%s is never refused, whatever its Origin", (method) => {
    expect(isCrossOriginWrite(request(method, {}), SITE)).toBe(false);
    expect(isCrossOriginWrite(request(method, { origin: "https://evil.example" }), SITE)).toBe(false);
  });

  const WRITES = ["POST", "PUT", "PATCH", "DELETE"];

  test.each(WRITES)("%s without Origin is refused", (method) => {
    expect(isCrossOriginWrite(request(method, {}), SITE)).toBe(true);
    expect(isCrossOriginWrite(request(method, { origin: "" }), SITE)).toBe(true);
  });

  test.each(WRITES)("%s from the configured origin is allowed", (method) => {
    // Addressed to another host (behind a proxy): only the configured origin matches.
    const url = "http://10.0.0.7:4321/api/supplements";
    expect(isCrossOriginWrite(request(method, { origin: SITE }, url), SITE)).toBe(false);
  });

  test("in development the origin the request was addressed to is allowed, in the site's scheme only", () => {
    const url = "http://127.0.0.1:4321/api/supplements";
    // With a PUBLIC_ORIGIN (development false), only the configured origin.
    expect(isCrossOriginWrite(request("POST", { origin: "http://127.0.0.1:4321" }, url), HTTP_SITE)).toBe(true);
    // For an https site, a request's http origin is refused.
    expect(isCrossOriginWrite(request("POST", { origin: "http://127.0.0.1:4321" }, url), SITE, true)).toBe(true);
    expect(isCrossOriginWrite(request("POST", { origin: "http://127.0.0.1:4321" }, url), HTTP_SITE, true)).toBe(false);
    // The Host header names the address the client used; the scheme is the request's.
    const viaHost = request("POST", { origin: "http://localhost:4321", host: "localhost:4321" }, url);
    expect(isCrossOriginWrite(viaHost, HTTP_SITE, true)).toBe(false);
    const otherScheme = request("POST", { origin: "https://localhost:4321", host: "localhost:4321" }, url);
    expect(isCrossOriginWrite(otherScheme, HTTP_SITE, true)).toBe(true);
  });

  /** Origins that resemble the site's and must all be refused. */
  const LOOK_ALIKES = [
    "https://evil.example",
    "null",
    `${SITE}.evil.example`,
    `${SITE}@evil.example`,
    `${SITE}:443.evil.example`,
    `${SITE}/`,
    `${SITE}:8443`,
    "http://stacktrack.example",
    "https://evil-stacktrack.example",
    "https://sub.stacktrack.example",
    SITE.toUpperCase(),
    SITE.slice(0, -1),
  ];

  test.each(WRITES.flatMap((m) => LOOK_ALIKES.map((o) => [m, o])))("%s from %p is refused", (method, origin) => {
    expect(isCrossOriginWrite(request(method, { origin }), SITE)).toBe(true);
    // Also when the request was addressed to the site itself (Host and URL both match it).
    const addressed = request(method, { origin, host: "stacktrack.example" }, `${SITE}/api/profile`);
    expect(isCrossOriginWrite(addressed, SITE)).toBe(true);
  });

  test("in development a Host header is the only other origin allowed, and only a local one", () => {
    const url = "http://127.0.0.1:4321/api/supplements";
    const withHost = (origin: string, host = "app.local:8080") => request("POST", { origin, host }, url);
    expect(isCrossOriginWrite(withHost("http://app.local:8080"), HTTP_SITE, true)).toBe(false);
    expect(isCrossOriginWrite(withHost("http://127.0.0.1:4321"), HTTP_SITE, true)).toBe(true);
    expect(isCrossOriginWrite(withHost("http://app.local"), HTTP_SITE, true)).toBe(true);
    expect(isCrossOriginWrite(withHost("http://app.local:8080.evil.example"), HTTP_SITE, true)).toBe(true);
    // A name that is not local (DNS rebinding) is refused even when it is the request's Host.
    const internal = withHost("http://app.internal:8080", "app.internal:8080");
    expect(isCrossOriginWrite(internal, HTTP_SITE, true)).toBe(true);
    // Without a Host header there is no second candidate (no "http://null").
    expect(isCrossOriginWrite(request("POST", { origin: "http://null" }, url), HTTP_SITE, true)).toBe(true);
    expect(isCrossOriginWrite(request("POST", { origin: "http://undefined" }, url), HTTP_SITE, true)).toBe(true);
  });
});

describe("securityHeaders", () => {
  const BASE = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": 'camera=(), microphone=(), geolocation=(), payment=(self "https://js.stripe.com")',
  };

  test("development: the fixed set, no HSTS", () => {
    expect(securityHeaders({ production: false })).toEqual(BASE);
  });

  test("production adds HSTS for a year, subdomains included", () => {
    expect(securityHeaders({ production: true })).toEqual({
      ...BASE,
      "Strict-Transport-Security": "max-age=31536000; includeSubDomains",
    });
  });
});

describe("cspFor", () => {
  const withHeaders = (headers: Record<string, string>) => new Response("x", { headers });

  test("the policies are exactly what they claim", () => {
    expect(FRAME_ANCESTORS).toBe("frame-ancestors 'none'");
    expect(STATIC_PAGE_CSP).toBe("frame-ancestors 'none'; base-uri 'self'; object-src 'none'; form-action 'self'");
    expect(NON_PAGE_CSP).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  test("a page's own policy gets frame-ancestors appended once", () => {
    const cases: [string, string][] = [
      ["script-src 'self'", "script-src 'self'; frame-ancestors 'none'"],
      ["script-src 'self';", "script-src 'self'; frame-ancestors 'none'"],
      ["script-src 'self'; ", "script-src 'self'; frame-ancestors 'none'"],
      ["  script-src 'self'  ", "script-src 'self'; frame-ancestors 'none'"],
      ["script-src 'self'; frame-ancestors 'self'", "script-src 'self'; frame-ancestors 'self'"],
    ];
    for (const [given, expected] of cases) {
      expect(cspFor(withHeaders({ "content-security-policy": given }))).toBe(expected);
    }
  });

  test("without a policy: HTML gets the static page policy, anything else the deny-all one", () => {
    expect(cspFor(withHeaders({ "content-type": "text/html; charset=utf-8" }))).toBe(STATIC_PAGE_CSP);
    expect(cspFor(withHeaders({ "content-type": "application/json" }))).toBe(NON_PAGE_CSP);
    expect(cspFor(withHeaders({ "content-type": "image/webp" }))).toBe(NON_PAGE_CSP);
    expect(cspFor(withHeaders({ "content-type": "application/xhtml; text/html" }))).toBe(NON_PAGE_CSP);
    expect(cspFor(new Response(null))).toBe(NON_PAGE_CSP);
  });
});

describe("withSecurityHeaders", () => {
  const HEADERS = { "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff" };

  test("adds the headers and the CSP in place, keeping a header the response set itself", () => {
    const response = new Response("{}", {
      headers: { "content-type": "application/json", "x-frame-options": "SAMEORIGIN" },
    });
    const out = withSecurityHeaders(response, HEADERS);
    expect(out).toBe(response);
    expect(out.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    expect(out.headers.get("x-content-type-options")).toBe("nosniff");
    expect(out.headers.get("content-security-policy")).toBe(NON_PAGE_CSP);
  });

  test("a response whose headers refuse changes (undici's immutable guard) is copied, body and status kept", async () => {
    // Bun's own responses are always mutable; Node's fetch and Response.redirect are not.
    const immutable = (response: Response) => {
      response.headers.set = () => {
        throw new TypeError("immutable");
      };
      return response;
    };
    const redirect = immutable(new Response(null, { status: 302, headers: { location: `${SITE}/dashboard` } }));
    const out = withSecurityHeaders(redirect, HEADERS);
    expect(out).not.toBe(redirect);
    expect(out.status).toBe(302);
    expect(out.headers.get("location")).toBe(`${SITE}/dashboard`);
    expect(out.headers.get("x-frame-options")).toBe("DENY");
    expect(out.headers.get("content-security-policy")).toBe(NON_PAGE_CSP);

    const page = immutable(new Response("<p>hi</p>", { headers: { "content-type": "text/html" } }));
    const copied = withSecurityHeaders(page, HEADERS);
    expect(copied.headers.get("x-content-type-options")).toBe("nosniff");
    expect(copied.headers.get("content-security-policy")).toBe(STATIC_PAGE_CSP);
    expect(await copied.text()).toBe("<p>hi</p>");
  });
});
