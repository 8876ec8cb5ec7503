/**
 * clientAddress (api/lib/client-address.ts): the one function that decides a request's client
 * address from X-Forwarded-For, the socket and TRUST_PROXY hops. Forged entries on the left
 * never change the answer; short chains and malformed entries fall back to the socket.
 */
import { describe, expect, test } from "bun:test";
import { isValidIP, normalizeIP } from "@better-auth/core/utils/ip";
import { clientAddress, parseAddress, rateLimitKey } from "../../api/lib/client-address";

const SOCKET = "10.0.0.2"; // the nearest proxy, as the socket reports it

type Row = [what: string, forwardedFor: string | string[] | null, hops: number, expected: string | undefined];

const ROWS: Row[] = [
  // hops = 0 (TRUST_PROXY=false): the header is ignored, whatever it says.
  ["hops 0: no header", null, 0, SOCKET],
  ["hops 0: a header is ignored", "203.0.113.7", 0, SOCKET],
  ["hops 0: a forged chain is ignored", "198.51.100.1, 203.0.113.7", 0, SOCKET],
  // hops = 1: the entry our one proxy appended, the rightmost.
  ["hops 1: one entry", "203.0.113.7", 1, "203.0.113.7"],
  ["hops 1: a forged first entry is not the client", "198.51.100.1, 203.0.113.7", 1, "203.0.113.7"],
  ["hops 1: many forged entries", "1.1.1.1, 2.2.2.2, 3.3.3.3, 203.0.113.7", 1, "203.0.113.7"],
  ["hops 1: a forged garbage entry", "<script>, 203.0.113.7", 1, "203.0.113.7"],
  ["hops 1: forged empty entries", ", , 203.0.113.7", 1, "203.0.113.7"],
  ["hops 1: no spaces", "198.51.100.1,203.0.113.7", 1, "203.0.113.7"],
  ["hops 1: tabs and spaces around", " \t198.51.100.1 ,\t203.0.113.7 \t", 1, "203.0.113.7"],
  ["hops 1: two headers, joined in order", ["198.51.100.1", "203.0.113.7"], 1, "203.0.113.7"],
  ["hops 1: two headers with lists", ["9.9.9.9, 198.51.100.1", "8.8.8.8, 203.0.113.7"], 1, "203.0.113.7"],
  ["hops 1: no header: the socket", null, 1, SOCKET],
  ["hops 1: an empty header: the socket", "", 1, SOCKET],
  ["hops 1: a blank header: the socket", "   ", 1, SOCKET],
  ["hops 1: no headers in a list: the socket", [], 1, SOCKET],
  // hops = 2: a CDN appends the client, then nginx appends the CDN.
  ["hops 2: two appended entries", "203.0.113.7, 192.0.2.50", 2, "203.0.113.7"],
  ["hops 2: a forged entry before them", "198.51.100.1, 203.0.113.7, 192.0.2.50", 2, "203.0.113.7"],
  ["hops 2: only one entry (the CDN bypassed): the socket", "203.0.113.7", 2, SOCKET],
  ["hops 3: three appended entries", "9.9.9.9, 203.0.113.7, 192.0.2.50, 192.0.2.51", 3, "203.0.113.7"],
  ["hops 10: fewer entries than hops: the socket", "1.1.1.1, 2.2.2.2", 10, SOCKET],
  ["hops 3: exactly three entries", "203.0.113.7, 192.0.2.50, 192.0.2.51", 3, "203.0.113.7"],
  ["hops 4: one entry short: the socket", "203.0.113.7, 192.0.2.50, 192.0.2.51", 4, SOCKET],
  ["hops 2: an empty first entry", ",192.0.2.50", 2, SOCKET],
  ["hops 2: only commas", ",,", 2, SOCKET],
  ["hops 3: the first of three entries, no spaces", "203.0.113.7,192.0.2.50,192.0.2.51", 3, "203.0.113.7"],
  // Malformed chosen entry: the socket, never the client's string.
  ["malformed: a word", "unknown", 1, SOCKET],
  ["malformed: a host name", "198.51.100.1, proxy.example", 1, SOCKET],
  ["malformed: an empty entry at the chosen place", "198.51.100.1, ", 1, SOCKET],
  ["malformed: an empty entry at hops 2", "198.51.100.1, , 192.0.2.50", 2, SOCKET],
  ["malformed: an IPv4 octet over 255", "203.0.113.256", 1, SOCKET],
  ["malformed: three octets", "203.0.113", 1, SOCKET],
  ["malformed: a leading zero (octal to some parsers)", "010.0.0.1", 1, SOCKET],
  ["malformed: hex IPv4", "0x7f.0.0.1", 1, SOCKET],
  ["malformed: an IPv6 zone index", "fe80::1%eth0", 1, SOCKET],
  ["malformed: two '::'", "2001::db8::1", 1, SOCKET],
  ["malformed: nine IPv6 groups", "1:2:3:4:5:6:7:8:9", 1, SOCKET],
  ["malformed: a 5-digit IPv6 group", "2001:db8::10000", 1, SOCKET],
  ["malformed: IPv4 with a bad port", "203.0.113.7:http", 1, SOCKET],
  ["malformed: an unclosed bracket", "[2001:db8::1", 1, SOCKET],
  ["malformed: a URL", "http://203.0.113.7/", 1, SOCKET],
  ["malformed: RFC 7239 syntax", "for=203.0.113.7", 1, SOCKET],
  ["malformed: a quoted address", '"203.0.113.7"', 1, SOCKET],
  ["malformed: a NUL-padded address", "203.0.113.7\u0000", 1, SOCKET],
  ["malformed: a port followed by more", "203.0.113.7:80x", 1, SOCKET],
  ["malformed: something between the bracket and the port", "[2001:db8::1]x:443", 1, SOCKET],
  ["malformed: a 6-digit port", "203.0.113.7:123456", 1, SOCKET],
  ["malformed: a colon without a port", "203.0.113.7:", 1, SOCKET],
  ["malformed: a dotted IPv4 part before the last IPv6 group", "::203.0.113.7:1", 1, SOCKET],
  ["malformed: a dotted IPv4 part before '::'", "203.0.113.7::1", 1, SOCKET],
  ["malformed: '::' standing for no group (eight groups besides)", "1:2:3:4:5:6:7::8", 1, SOCKET],
  // Ports are dropped; forms are canonical.
  ["IPv4 with a port", "203.0.113.7:4711", 1, "203.0.113.7"],
  ["bracketed IPv6 with a port", "[2001:DB8::1]:443", 1, "2001:db8::1"],
  ["bracketed IPv6", "[2001:db8::1]", 1, "2001:db8::1"],
  ["IPv6 upper case, long form", "2001:0DB8:0000:0000:0000:0000:0000:0001", 1, "2001:db8::1"],
  ["IPv6 longest zero run compressed", "2001:db8:0:0:1:0:0:0", 1, "2001:db8:0:0:1::"],
  ["IPv6 single zero group not compressed", "2001:db8:0:1:1:1:1:1", 1, "2001:db8:0:1:1:1:1:1"],
  ["IPv6 '::' for one group", "2001:db8:1:1:1:1::1", 1, "2001:db8:1:1:1:1:0:1"],
  ["IPv6 two zero runs of one length: the first compressed", "2001:0:0:1:0:0:1:1", 1, "2001::1:0:0:1:1"],
  ["IPv4 octet 255", "203.0.113.255", 1, "203.0.113.255"],
  ["IPv4-mapped IPv6", "::ffff:203.0.113.7", 1, "203.0.113.7"],
  ["IPv4-mapped IPv6, hex form", "::FFFF:cb00:7107", 1, "203.0.113.7"],
  ["IPv6 with ffff in the sixth group (not mapped)", "2001:db8::ffff:cb00:7107", 1, "2001:db8::ffff:cb00:7107"],
  ["IPv6 with one non-zero group before ffff (not mapped)", "0:0:0:0:1:ffff:cb00:7107", 1, "::1:ffff:cb00:7107"],
  ["IPv6 with a dotted tail (not mapped)", "64:ff9b::203.0.113.7", 1, "64:ff9b::cb00:7107"],
  ["the loopback", "::1", 1, "::1"],
];

describe("clientAddress", () => {
  for (const [what, forwardedFor, hops, expected] of ROWS) {
    test(`${what}: ${JSON.stringify(forwardedFor)} with ${hops} hop(s) → ${expected}`, () => {
      expect(clientAddress({ forwardedFor, socketAddress: SOCKET, hops })).toBe(expected);
    });
  }

  test("whatever a client writes to the left of the proxies' entries, the answer is the same", () => {
    const forged = ["", "1.2.3.4", "203.0.113.8", "unknown", "::1", "a, b, c", "203.0.113.7:1", "x".repeat(4000)];
    for (const [hops, appended] of [
      [1, "203.0.113.7"],
      [2, "203.0.113.7, 192.0.2.50"],
    ] as const) {
      const answers = new Set(
        forged.map((f) => clientAddress({ forwardedFor: `${f}, ${appended}`, socketAddress: SOCKET, hops })),
      );
      expect([...answers]).toEqual(["203.0.113.7"]);
    }
  });

  test("the socket's address is canonical too; without one (astro dev), no address", () => {
    expect(clientAddress({ forwardedFor: null, socketAddress: "::ffff:127.0.0.1", hops: 0 })).toBe("127.0.0.1");
    expect(clientAddress({ forwardedFor: "junk", socketAddress: "::FFFF:7f00:1", hops: 1 })).toBe("127.0.0.1");
    expect(clientAddress({ forwardedFor: null, socketAddress: "2001:DB8::0:1", hops: 0 })).toBe("2001:db8::1");
    expect(clientAddress({ forwardedFor: "203.0.113.7", socketAddress: undefined, hops: 0 })).toBeUndefined();
    expect(clientAddress({ forwardedFor: "junk", socketAddress: null, hops: 1 })).toBeUndefined();
    expect(clientAddress({ forwardedFor: null, socketAddress: "", hops: 1 })).toBeUndefined();
    // A client-chosen string is never the answer, even when no socket is known.
    expect(clientAddress({ forwardedFor: "evil", socketAddress: undefined, hops: 1 })).toBeUndefined();
  });

  test("the socket's address may be a function: asked only when the answer needs it, with the same answers", () => {
    for (const [what, forwardedFor, hops, expected] of ROWS) {
      let asked = 0;
      const socketAddress = () => {
        asked++;
        return SOCKET;
      };
      expect(clientAddress({ forwardedFor, socketAddress, hops }), what).toBe(expected);
      // Only a fallback to the socket reads it (an entry that happens to equal SOCKET is not one here).
      expect(asked, what).toBe(expected === SOCKET ? 1 : 0);
    }
  });
});

describe("rateLimitKey: the same buckets as better-auth's limiter", () => {
  const ADDRESSES = [
    "203.0.113.7",
    "127.0.0.1",
    "::1",
    "2001:db8::1",
    "2001:db8::2",
    "2001:db8:0:0:ffff:1:2:3",
    "2001:db8:0:1::1",
    "fe80::1",
    "64:ff9b::cb00:7107",
  ];

  test("each canonical address keys as better-auth's normalizeIP (IPv6 by its /64) does", () => {
    for (const address of ADDRESSES) {
      expect([address, rateLimitKey(address)]).toEqual([address, normalizeIP(address, { ipv6Subnet: 64 })]);
    }
  });

  test("one /64 is one bucket; another /64 is another", () => {
    expect(rateLimitKey("2001:db8::1")).toBe(rateLimitKey("2001:db8::ffff:2"));
    expect(rateLimitKey("2001:db8::1")).not.toBe(rateLimitKey("2001:db8:0:1::1"));
    expect(rateLimitKey("203.0.113.7")).not.toBe(rateLimitKey("203.0.113.8"));
  });

  test("every address parseAddress gives is one better-auth reads from the stamped header", () => {
    // Else better-auth would find no address and count everyone in one shared bucket.
    const given = ROWS.flatMap(([, f]) => [f ?? []].flat().flatMap((h) => h.split(",")))
      .map(parseAddress)
      .filter((a) => a !== undefined);
    expect(given.length).toBeGreaterThan(20);
    for (const address of given) expect([address, isValidIP(address)]).toEqual([address, true]);
  });
});
