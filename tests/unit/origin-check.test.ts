/**
 * isCrossOriginWrite (api/security.ts) for an https site behind a proxy, where the request
 * URL the app sees is http://: what the every-route suite (tests/api/security-sessions.test.ts,
 * an http server) cannot show. Only the exact origin, as a browser writes it, is ours.
 */
import { describe, expect, test } from "bun:test";
import { isCrossOriginWrite } from "../../api/security";

const SITE = "https://stacktrack.example";

function refused(origin: string | null, method = "POST"): boolean {
  const headers = new Headers({ host: "stacktrack.example" });
  if (origin !== null) headers.set("origin", origin);
  // Behind the proxy the app is addressed over http on an internal port.
  return isCrossOriginWrite(new Request("http://10.0.0.5:4321/api/profile", { method, headers }), SITE);
}

describe("isCrossOriginWrite for https://stacktrack.example", () => {
  test("the site's own origin is accepted; safe methods are never refused", () => {
    expect(refused(SITE)).toBe(false);
    expect(refused(SITE, "DELETE")).toBe(false);
    expect(refused("https://evil.example", "GET")).toBe(false);
    expect(refused(null, "HEAD")).toBe(false);
  });

  const LOOK_ALIKES: [string, string | null][] = [
    ["http instead of https", "http://stacktrack.example"],
    ["https with the default port written out", "https://stacktrack.example:443"],
    ["another port", "https://stacktrack.example:8443"],
    ["{origin}.evil.example", `${SITE}.evil.example`],
    ["{origin}@evil.example", `${SITE}@evil.example`],
    ["{origin}:8080", `${SITE}:8080`],
    ["{origin}evil", `${SITE}evil`],
    ["{origin}/", `${SITE}/`],
    ["a subdomain", "https://www.stacktrack.example"],
    ["a parent-less look-alike", "https://evilstacktrack.example"],
    ["upper case", SITE.toUpperCase()],
    ["upper-case host", "https://MyApp.example"],
    ["a user name before our host", `https://evil.example@stacktrack.example`],
    ["two values", `${SITE}, https://evil.example`],
    ["null", "null"],
    ["empty", ""],
    ["none", null],
  ];
  for (const [what, origin] of LOOK_ALIKES) {
    test(`${what} (${JSON.stringify(origin)}) is refused`, () => {
      expect(refused(origin)).toBe(true);
    });
  }
});
