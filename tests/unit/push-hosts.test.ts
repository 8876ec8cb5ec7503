/**
 * Push endpoints only at the push services (issue 45, src/lib/push-hosts.ts): the default list
 * takes the four services' real endpoint shapes and refuses every other host, scheme, port and
 * URL trick; a test list with `127.0.0.1:port` takes that one port of loopback and nothing more.
 */
import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../api/lib/config";
import { DEFAULT_PUSH_HOSTS, parsePushHosts, pushEndpointAllowed } from "../../src/lib/push-hosts";

const ACCEPTED = [
  "https://fcm.googleapis.com/fcm/send/dXbc:APA91bH",
  "https://fcm.googleapis.com/wp/dXbc:APA91bH",
  "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABl",
  "https://web.push.apple.com/QGm1aXBvc3Q",
  "https://db5p.notify.windows.com/w/?token=BQYAAAB",
  "https://wns2-by3p.notify.windows.com/w/?token=x",
  "https://FCM.GoogleAPIs.com/fcm/send/upper-case-host", // hosts are case-insensitive
  "https://fcm.googleapis.com:443/fcm/send/explicit-default-port",
  "https://fcm。googleapis。com/x", // ideographic full stops are dots to IDNA: the same host
];

const REFUSED = [
  // Not https, or not port 443.
  "http://fcm.googleapis.com/fcm/send/a",
  "wss://fcm.googleapis.com/fcm/send/a",
  "https://fcm.googleapis.com:8443/fcm/send/a",
  "https://fcm.googleapis.com:80/fcm/send/a",
  // Loopback, link-local, private and metadata addresses, however written.
  "https://127.0.0.1/x",
  "https://127.1/x",
  "https://2130706433/x",
  "https://0x7f.0.0.1/x",
  "https://localhost/x",
  "https://[::1]/x",
  "https://[::ffff:127.0.0.1]/x",
  "https://169.254.169.254/latest/meta-data",
  "https://10.0.0.1/x",
  "https://172.16.0.1/x",
  "https://192.168.1.1/x",
  "https://[fd00::1]/x",
  "https://[fe80::1]/x",
  "https://0.0.0.0/x",
  // User-info and look-alike tricks.
  "https://fcm.googleapis.com@evil.example/x",
  "https://fcm.googleapis.com:pw@evil.example/x",
  "https://user@fcm.googleapis.com/x",
  "https://user:pw@fcm.googleapis.com/x",
  "https://evil.example#@fcm.googleapis.com/x",
  "https://evil.example\\@fcm.googleapis.com/x",
  "https://fcm.googleapis.com.evil.example/x",
  "https://evilfcm.googleapis.com/x",
  "https://fcm.googleapis.com./x", // trailing dot: another name
  "https://fcm.googleapis.com../x",
  "https://fcm.googleapis.co/x",
  "https://fсm.googleapis.com/x", // Cyrillic es
  "https://xn--fm-gmc.googleapis.com/x",
  "https://fcm.googIeapis.com/x", // capital i
  // The wildcard is exactly one label.
  "https://notify.windows.com/w/",
  "https://a.b.notify.windows.com/w/",
  "https://.notify.windows.com/w/",
  "https://evil.example/x.notify.windows.com",
  "https://notify.windows.com.evil.example/w/",
  "https://evilnotify.windows.com/w/",
  // Not URLs.
  "",
  "fcm.googleapis.com/fcm/send/a",
  "//fcm.googleapis.com/fcm/send/a",
  "https://",
];

describe("the default PUSH_HOSTS", () => {
  const hosts = parseConfig({}).PUSH_HOSTS;
  test("is the four push services", () => {
    expect([...hosts]).toEqual([...DEFAULT_PUSH_HOSTS]);
  });
  for (const endpoint of ACCEPTED) {
    test(`accepts ${endpoint}`, () => expect(pushEndpointAllowed(endpoint, hosts)).toBe(true));
  }
  for (const endpoint of REFUSED) {
    test(`refuses ${JSON.stringify(endpoint)}`, () => expect(pushEndpointAllowed(endpoint, hosts)).toBe(false));
  }
});

describe("a test list naming a local push service's port", () => {
  const hosts = parseConfig({ PUSH_HOSTS: `${DEFAULT_PUSH_HOSTS.join(",")},127.0.0.1:41234` }).PUSH_HOSTS;
  const table: [string, boolean][] = [
    ["https://127.0.0.1:41234/push/a", true],
    ["https://127.1:41234/push/a", true], // the same host, written short
    ["https://127.0.0.1/push/a", false],
    ["https://127.0.0.1:41235/push/a", false],
    ["http://127.0.0.1:41234/push/a", false],
    ["https://localhost:41234/push/a", false],
    ["https://[::1]:41234/push/a", false],
    ["https://fcm.googleapis.com:41234/push/a", false],
    ["https://fcm.googleapis.com/fcm/send/a", true],
  ];
  for (const [endpoint, allowed] of table) {
    test(`${allowed ? "accepts" : "refuses"} ${endpoint}`, () =>
      expect(pushEndpointAllowed(endpoint, hosts)).toBe(allowed));
  }
});

describe("PUSH_HOSTS entries", () => {
  const good: [string, string[]][] = [
    [" FCM.googleapis.com , *.Notify.Windows.com ", ["fcm.googleapis.com", "*.notify.windows.com"]],
    ["push.example:8443", ["push.example:8443"]],
    ["a,,b", ["a", "b"]],
  ];
  for (const [value, parsed] of good)
    test(`parses ${JSON.stringify(value)}`, () => expect(parsePushHosts(value)).toEqual(parsed));
  const bad = [
    "https://fcm.googleapis.com",
    "fcm.googleapis.com/x",
    "*",
    "*.",
    "a.*.b",
    "host:99999",
    "host:",
    "user@host",
    "a b",
  ];
  for (const value of bad) {
    test(`refuses ${JSON.stringify(value)} at start`, () => {
      expect(() => parseConfig({ PUSH_HOSTS: value })).toThrow("PUSH_HOSTS");
    });
  }
});
