/**
 * api/insights/visitor-hash.ts: the hashing worker's keyed hash of a visitor, written without
 * allocating, gives exactly node:crypto's SHA-256(HMAC-SHA-256(salt, User-Agent "\n" profile) ‖
 * address) for every kind of input (SECURITY.md promises that definition;
 * tests/api/insights.test.ts checks a stored one end to end).
 */
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { PAIR_KEY_WORDS, VisitorHasher } from "../../api/insights/visitor-hash";
import { visitorHash } from "../support/visitor-hash";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";

const want = (key: Uint8Array, address: string, agent: string, profile: string) =>
  visitorHash(key, address, agent, profile).toString("hex");

const encoder = new TextEncoder();

/**
 * The worker's calls, each part as UTF-8 bytes: the pair key into the second of three key
 * places in a Uint32Array (as the worker keeps its batch's keys), then the visitor from it;
 * the address alone in its buffer, or (`within`) between two others.
 */
const hashWith = (hasher: VisitorHasher, address: string, agent: string, profile: string, within = false) => {
  const out = new Uint8Array(64);
  const keys = new Uint32Array(3 * PAIR_KEY_WORDS);
  hasher.pairKey(
    encoder.encode(agent),
    encoder.encode(profile),
    new Uint8Array(keys.buffer, PAIR_KEY_WORDS * 4, PAIR_KEY_WORDS * 4),
  );
  const before = within ? encoder.encode("10.0.0.1") : new Uint8Array(0);
  const after = within ? encoder.encode("10.0.0.2") : new Uint8Array(0);
  const encoded = encoder.encode(address);
  const bytes = new Uint8Array([...before, ...encoded, ...after]);
  hasher.visitor(keys, PAIR_KEY_WORDS, bytes, before.length, before.length + encoded.length, out);
  return Buffer.from(out.subarray(0, 32)).toString("hex");
};

const got = (key: Uint8Array, address: string, agent: string, profile: string, within = false) =>
  hashWith(new VisitorHasher(key), address, agent, profile, within);

describe("VisitorHasher", () => {
  const salt = randomBytes(32);
  test.each([
    ["IPv4 and Chrome", "203.0.113.7", CHROME, "user_abc"],
    ["IPv6", "2001:db8::1", CHROME, "user_abc"],
    ["no address", "", CHROME, "user_abc"],
    ["an empty User-Agent", "203.0.113.7", "", "user_abc"],
    ["non-ASCII User-Agent", "203.0.113.7", "Navigateur é ü 浏览器 🦊", "user_abc"],
    ["a lone surrogate", "203.0.113.7", "bad \ud800 half", "user_abc"],
    ["a newline inside the User-Agent", "203.0.113.7", "a\nb", "user_abc"],
    ["a long User-Agent (1,300 characters)", "203.0.113.7", "x".repeat(1300), "user_abc"],
    // The pair key's message, agent + 1 + 8 bytes: the in-place buffer holds 4,096.
    ["a pair key's message of exactly 4,096 bytes (in place)", "203.0.113.7", "x".repeat(4087), "user_abc"],
    ["a pair key's message of 4,097 bytes (the hasher)", "203.0.113.7", "x".repeat(4088), "user_abc"],
    // The visitor's message after the pair key: the in-place buffer holds 256 bytes of address.
    ["an address of 256 bytes (in place; no proxy writes one)", "1".repeat(256), CHROME, "user_abc"],
    ["an address of 257 bytes (the hasher)", "1".repeat(257), CHROME, "user_abc"],
    ["a User-Agent over the in-place limit (the hasher)", "203.0.113.7", "x".repeat(5000), "user_abc"],
    ["a long non-ASCII User-Agent", "203.0.113.7", "é".repeat(1500), "user_abc"],
    ["a 32-character profile id", "198.51.100.1", CHROME, "ShxyNFC0fPtv5wcdWTLAkQIn8ojoQUz0"],
  ])(
    "%s: node:crypto's hashes, the address alone in its buffer and between two others",
    (_what, address, agent, profile) => {
      expect(got(salt, address, agent, profile)).toBe(want(salt, address, agent, profile));
      expect(got(salt, address, agent, profile, true)).toBe(want(salt, address, agent, profile));
    },
  );

  test.each([
    ["a 16-byte key", 16],
    ["a 64-byte key (one block)", 64],
    ["a 65-byte key (hashed first)", 65],
    ["a 200-byte key", 200],
  ])("%s", (_what, length) => {
    const key = randomBytes(length);
    expect(got(key, "203.0.113.7", CHROME, "user_abc")).toBe(want(key, "203.0.113.7", CHROME, "user_abc"));
  });

  test("one hasher, many visitors in a row: each its own hash (nothing left from the one before)", () => {
    const hasher = new VisitorHasher(salt);
    const agents = ["x".repeat(900), "short", CHROME, "", "é".repeat(10)];
    for (let i = 0; i < 50; i++) {
      const address = `10.0.${i}.${i * 3}`;
      const agent = agents[i % agents.length] as string;
      expect(hashWith(hasher, address, agent, `user_${i}`)).toBe(want(salt, address, agent, `user_${i}`));
    }
  });
});
