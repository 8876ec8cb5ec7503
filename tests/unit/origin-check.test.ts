/**
 * isCrossOriginWrite (api/lib/security.ts) for an https site behind a proxy, where the request
 * URL the app sees is http://: what the every-route suite (tests/api/security-sessions.test.ts,
 * an http server) cannot show. Only the exact origin, as a browser writes it, is ours.
 */
import { describe, expect, test } from "bun:test";
import { isCrossOriginWrite } from "../../api/lib/security";

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

/**
 * Development (no PUBLIC_ORIGIN, the site http://localhost:4321): a request whose Origin is its
 * own Host is accepted when that host is localhost, an IP literal or a .local name (a phone on
 * the LAN); any other name is refused, whatever it resolves to (DNS rebinding).
 */
describe("isCrossOriginWrite in development (no PUBLIC_ORIGIN)", () => {
  const DEV_SITE = "http://localhost:4321";
  const write = (origin: string, host: string, development = true) =>
    isCrossOriginWrite(
      new Request(`http://${host}/api/profile`, { method: "POST", headers: { origin, host } }),
      DEV_SITE,
      development,
    );
  const TABLE: [string, string, string, boolean][] = [
    // [what, Origin, Host, accepted]
    ["the printed address", "http://localhost:4321", "localhost:4321", true],
    ["127.0.0.1", "http://127.0.0.1:4321", "127.0.0.1:4321", true],
    ["a LAN address", "http://192.168.1.20:4321", "192.168.1.20:4321", true],
    ["IPv6 loopback", "http://[::1]:4321", "[::1]:4321", true],
    ["a .local name", "http://maya-laptop.local:4321", "maya-laptop.local:4321", true],
    ["a public name rebound to this machine", "http://evil.example:4321", "evil.example:4321", false],
    ["a name ending in local without the dot", "http://evillocal:4321", "evillocal:4321", false],
    [
      "localhost as a subdomain of another name",
      "http://localhost.evil.example:4321",
      "localhost.evil.example:4321",
      false,
    ],
    ["an IP origin with another Host", "http://192.168.1.20:4321", "evil.example:4321", false],
    ["another port than the Host's", "http://127.0.0.1:9999", "127.0.0.1:4321", false],
    ["https where the server is addressed over http", "https://127.0.0.1:4321", "127.0.0.1:4321", false],
  ];
  for (const [what, origin, host, accepted] of TABLE) {
    test(`${what}: ${origin} with Host ${host} is ${accepted ? "accepted" : "refused"}`, () => {
      expect(write(origin, host)).toBe(!accepted);
    });
  }

  test("with PUBLIC_ORIGIN set, an own local address is refused: only the configured origin counts", () => {
    expect(write("http://127.0.0.1:4321", "127.0.0.1:4321", false)).toBe(true);
    expect(write("http://localhost:4321", "localhost:4321", false)).toBe(false);
  });
});
