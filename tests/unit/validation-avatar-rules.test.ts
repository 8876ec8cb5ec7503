/**
 * src/lib/validation.ts, the rules that issue 13-20 work added after validation-rules.test.ts:
 * where an avatar may come from (avatarSource: none, an upload of ours by its path, or a
 * provider's photo host over plain https) and which names may be looked up as a profile
 * (isValidUsername). Run by StrykerJS with validation-rules.test.ts (docs/mutation-testing.md).
 */
import { describe, expect, test } from "bun:test";
import { URL_MAX, USERNAME_MAX } from "../../src/lib/constants";
import { avatarSource, isValidUsername } from "../../src/lib/validation";

const ID16 = "abcdefghij_-KLMN";

describe("avatarSource", () => {
  const rows: [string, unknown, ReturnType<typeof avatarSource>][] = [
    ["null is none", null, { kind: "none" }],
    ["undefined is none", undefined, { kind: "none" }],
    ["empty is none", "", { kind: "none" }],
    ["an upload path (16 characters)", `/images/${ID16}.webp`, { kind: "upload", id: ID16 }],
    ["an upload path (64 characters)", `/images/${"a".repeat(64)}.webp`, { kind: "upload", id: "a".repeat(64) }],
    ["an upload id of 15 characters", `/images/${"a".repeat(15)}.webp`, null],
    ["an upload id of 65 characters", `/images/${"a".repeat(65)}.webp`, null],
    ["an upload id with a dot", `/images/${"a".repeat(15)}.x.webp`, null],
    ["something before the upload path", `x/images/${ID16}.webp`, null],
    ["something after the upload path", `/images/${ID16}.webp?x`, null],
    ["an upload path of another host", `https://evil.example/images/${ID16}.webp`, null],
    ["GitHub's avatar host", "https://avatars.githubusercontent.com/u/1?v=4", { kind: "provider", provider: "github" }],
    ["Google's lh3", "https://lh3.googleusercontent.com/a/abc", { kind: "provider", provider: "google" }],
    ["Google's lh6", "https://lh6.googleusercontent.com/a/abc", { kind: "provider", provider: "google" }],
    ["Google's lh7 (not a photo host)", "https://lh7.googleusercontent.com/a/abc", null],
    ["another googleusercontent host", "https://drive.googleusercontent.com/a", null],
    ["a look-alike ending", "https://lh3.googleusercontent.com.evil.example/a", null],
    ["a look-alike start", "https://evil-lh3.googleusercontent.com/a", null],
    ["another GitHub host", "https://raw.githubusercontent.com/u/1", null],
    ["plain http", "http://avatars.githubusercontent.com/u/1", null],
    ["credentials", "https://user:pw@avatars.githubusercontent.com/u/1", null],
    ["a user name only", "https://user@avatars.githubusercontent.com/u/1", null],
    ["a port", "https://avatars.githubusercontent.com:8443/u/1", null],
    ["not written as the URL parser writes it", "https://AVATARS.githubusercontent.com/u/1", null],
    ["any other https host", "https://example.com/a.png", null],
    ["not a URL", "https://", null],
    ["a javascript: URL", "javascript:alert(1)", null],
    ["longer than URL_MAX", `https://avatars.githubusercontent.com/${"a".repeat(URL_MAX)}`, null],
    ["not a string", 42, null],
  ];
  test.each(rows)("%s", (_what, value, expected) => {
    expect(avatarSource(value as string)).toEqual(expected);
  });

  test("a provider URL of exactly URL_MAX characters is still read", () => {
    const base = "https://avatars.githubusercontent.com/u/";
    const value = base + "1".repeat(URL_MAX - base.length);
    expect(value.length).toBe(URL_MAX);
    expect(avatarSource(value)).toEqual({ kind: "provider", provider: "github" });
  });
});

describe("isValidUsername", () => {
  test.each([
    ["alice", true],
    ["Alice_1", true],
    ["a".repeat(USERNAME_MAX), true],
    ["a".repeat(USERNAME_MAX + 1), false],
    [" alice", false],
    ["alice ", false],
    ["al ice", false],
    ["", false],
  ] as const)("%p → %p", (name, expected) => {
    expect(isValidUsername(name)).toBe(expected);
  });
});
