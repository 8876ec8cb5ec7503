/**
 * api/auth/session-cookie.ts: the session token cookie(s) of a Cookie header, as a table of
 * variants, checked against the rule written as the one-line split/filter it replaced.
 */
import { describe, expect, test } from "bun:test";
import { hasSessionCookie, sessionTokenCookie } from "../../api/auth/session-cookie";

/** The rule as written before (split, trim, a regex per part). */
const reference = (header: string | null | undefined): string | null => {
  if (!header?.includes("session_token")) return null;
  const found = header
    .split(";")
    .map((part) => part.trim())
    .filter((part) => /^[^=]*session_token=./.test(part));
  return found.length > 0 ? found.join("; ") : null;
};

const T = "better-auth.session_token";
const S = "__Secure-better-auth.session_token";

describe("sessionTokenCookie", () => {
  test.each<[string, string | null | undefined, string | null]>([
    ["no header", undefined, null],
    ["null", null, null],
    ["empty", "", null],
    ["only the token", `${T}=abc.sig`, `${T}=abc.sig`],
    ["the production name", `${S}=abc.sig`, `${S}=abc.sig`],
    ["among others", `theme=dark; ${T}=abc.sig; lang=en`, `${T}=abc.sig`],
    ["spaces around", `  ${T}=abc.sig  ;x=1`, `${T}=abc.sig`],
    ["no spaces", `a=1;${T}=v;b=2`, `${T}=v`],
    ["two of them, in order", `${T}=one; x=1; ${S}=two`, `${T}=one; ${S}=two`],
    ["an empty value", `${T}=; x=1`, null],
    ["a value of spaces", `${T}=   ; x=1`, null],
    ["no = at all", `${T}; x=1`, null],
    ["the name only in a value", `x=${T}=abc`, null],
    ["the name in another's value, then the real one", `x=${T}; ${T}=real`, `${T}=real`],
    ["a longer name ending differently", `${T}_x=abc`, null],
    ["session_data is not the token", "better-auth.session_data=abc", null],
    ["a value with = inside", `${T}=a=b==`, `${T}=a=b==`],
    ["a trailing semicolon", `${T}=abc;`, `${T}=abc`],
    ["only semicolons", ";;;session_token", null],
    ["a bare name", "session_token=x", "session_token=x"],
    ["a tab before", `\t${T}=abc`, `${T}=abc`],
  ])("%s", (_what, header, expected) => {
    expect(sessionTokenCookie(header)).toBe(expected);
    expect(reference(header)).toBe(expected);
    expect(hasSessionCookie(header)).toBe(expected !== null);
  });

  test("random headers made of the pieces that matter answer as the reference does", () => {
    const pieces = [T, S, "x", "session_token", "=", "==", ";", "; ", " ", "\t", "abc", "", "=v", "_"];
    let seed = 19;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let i = 0; i < 5000; i++) {
      let header = "";
      const n = 1 + Math.floor(random() * 10);
      for (let j = 0; j < n; j++) header += pieces[Math.floor(random() * pieces.length)];
      expect([header, sessionTokenCookie(header)]).toEqual([header, reference(header)]);
    }
  });
});
