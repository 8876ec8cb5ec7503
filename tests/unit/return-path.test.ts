/** The one return-path parser (src/lib/return-path.ts), on its own. */
import { describe, expect, test } from "bun:test";
import { resolveReturnPath } from "../../src/lib/return-path";
import { forSite, HOSTILE_RETURN_PATHS, LEGITIMATE_RETURN_PATHS } from "../support/return-paths";

const ORIGIN = "http://stacktrack.test:4321";

describe("resolveReturnPath", () => {
  test.each(HOSTILE_RETURN_PATHS.map((v) => [JSON.stringify(v), forSite(v, ORIGIN)]))(
    "%s becomes /",
    (_label, value) => {
      expect(resolveReturnPath(value, ORIGIN)).toBe("/");
    },
  );

  test.each(LEGITIMATE_RETURN_PATHS.map((v) => [v]))("%s survives unchanged", (value) => {
    expect(resolveReturnPath(value, ORIGIN)).toBe(value);
  });

  test("a missing, empty or overlong value is /", () => {
    expect(resolveReturnPath(null, ORIGIN)).toBe("/");
    expect(resolveReturnPath(undefined, ORIGIN)).toBe("/");
    expect(resolveReturnPath("", ORIGIN)).toBe("/");
    expect(resolveReturnPath(`/${"a".repeat(5000)}`, ORIGIN)).toBe("/");
  });

  test("a same-origin absolute URL becomes its path; the result is always a path on the site", () => {
    expect(resolveReturnPath(`${ORIGIN}/billing?x=1#y`, ORIGIN)).toBe("/billing?x=1#y");
    expect(resolveReturnPath("http://stacktrack.test:4322/billing", ORIGIN)).toBe("/");
    expect(resolveReturnPath("https://stacktrack.test:4321/billing", ORIGIN)).toBe("/");
    for (const value of [...HOSTILE_RETURN_PATHS, ...LEGITIMATE_RETURN_PATHS]) {
      const path = resolveReturnPath(forSite(value, ORIGIN), ORIGIN);
      expect(path.startsWith("/") && !path.startsWith("//")).toBe(true);
      expect(new URL(path, ORIGIN).origin).toBe(ORIGIN);
    }
  });
});
