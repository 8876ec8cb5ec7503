/** Issue 50 §1: the calendar feed's token, its hash and its addresses. */
import { expect, test } from "bun:test";
import { FEED_TOKEN_PATTERN, feedToken, feedTokenHash, feedUrls, newFeedId } from "../../api/calendar/token";

const SECRET = "a-secret-of-at-least-thirty-two-characters";

test("a feed id is 32 random bytes, new each time", () => {
  const ids = new Set(Array.from({ length: 50 }, newFeedId));
  expect(ids.size).toBe(50);
  for (const id of ids) expect(Buffer.from(id, "base64url").length).toBe(32);
});

test("the token: 43 URL-safe characters, the same for the same feed and secret, another for another of either", () => {
  const id = newFeedId();
  const token = feedToken(SECRET, id);
  expect(token).toMatch(FEED_TOKEN_PATTERN);
  expect(feedToken(SECRET, id)).toBe(token);
  expect(feedToken(SECRET, newFeedId())).not.toBe(token);
  expect(feedToken(`${SECRET}-other`, id)).not.toBe(token);
});

test.each([
  ["a token", "A".repeat(43), true],
  ["42 characters", "A".repeat(42), false],
  ["44 characters", "A".repeat(44), false],
  ["a dot", `${"A".repeat(42)}.`, false],
  ["a slash", `${"A".repeat(42)}/`, false],
  ["padding", `${"A".repeat(42)}=`, false],
])("the pattern: %s", (_what, token, ok) => {
  expect(FEED_TOKEN_PATTERN.test(token)).toBe(ok);
});

test("the database keeps the token's SHA-256, never the token", () => {
  const token = feedToken(SECRET, newFeedId());
  const hash = feedTokenHash(token);
  expect(hash).toMatch(/^[0-9a-f]{64}$/);
  expect(hash).not.toContain(token);
  expect(feedTokenHash(token)).toBe(hash);
});

test("the addresses: https and webcal", () => {
  expect(feedUrls("https://stacktrack.example.com", "T".repeat(43))).toEqual({
    url: `https://stacktrack.example.com/api/calendar/${"T".repeat(43)}.ics`,
    webcal: `webcal://stacktrack.example.com/api/calendar/${"T".repeat(43)}.ics`,
  });
});
