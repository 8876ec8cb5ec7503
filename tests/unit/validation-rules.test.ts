/**
 * src/lib/validation.ts as units: every schema's bounds at the exact boundary, the
 * characters it admits, and the spec's message for each refusal. Written to kill the
 * mutants StrykerJS makes of the module (docs/mutation-testing.md).
 */
import { describe, expect, test } from "bun:test";
import type { z } from "zod";
import { MESSAGES } from "../../src/lib/account-messages";
import { TRACKING_MESSAGES } from "../../src/lib/schedule";
import {
  avatarUrlSchema,
  bioSchema,
  emailSchema,
  isHttpUrl,
  nameSchema,
  optionalUrlSchema,
  passwordSchema,
  profileUpdateSchema,
  reorderSchema,
  signInSchema,
  signUpSchema,
  supplementInputSchema,
  usernameSchema,
} from "../../src/lib/validation";

/** The messages a value is refused with, or "ok" and the parsed value. */
function check<S extends z.ZodType>(
  schema: S,
  value: unknown,
): { ok: true; data: z.infer<S> } | { ok: false; messages: string[] } {
  const result = schema.safeParse(value);
  return result.success
    ? { ok: true, data: result.data }
    : { ok: false, messages: result.error.issues.map((i) => i.message) };
}
const refused = (schema: z.ZodType, value: unknown) => {
  const result = check(schema, value);
  if (result.ok) throw new Error(`accepted ${JSON.stringify(value)}`);
  return result.messages;
};
const accepted = <S extends z.ZodType>(schema: S, value: unknown): z.infer<S> => {
  const result = check(schema, value);
  if (!result.ok) throw new Error(`refused ${JSON.stringify(value)}: ${result.messages.join("; ")}`);
  return result.data;
};

describe("MESSAGES", () => {
  test("are the spec's words", () => {
    expect(MESSAGES).toEqual({
      usernameShort: "Username must be at least 3 characters",
      usernameLong: "Username must be less than 50 characters",
      usernameChars: "Username can only contain letters, numbers, and underscores",
      usernameTaken: "Username is already taken",
      bioLong: "Bio must be at most 500 characters",
      url: "Please enter a valid URL",
      imageType: "Please select a valid image file",
      imageSize: "Image must be smaller than 5MB",
      tooManySupplements: "You can track at most 200 supplements",
      nameRequired: "Please enter your name",
      nameLong: "Name must be at most 100 characters",
      nameChars: "Name cannot contain control characters",
    });
  });
});

describe("usernameSchema", () => {
  test.each(["abc", "a_1", "ABC_def_123", "x".repeat(50), "  trimmed_  ", "___"])("accepts %p", (name) => {
    expect(accepted(usernameSchema, name)).toBe(name.trim());
  });

  test("bounds: 3 to 50 characters after trimming", () => {
    expect(refused(usernameSchema, "ab")).toEqual([MESSAGES.usernameShort]);
    expect(refused(usernameSchema, "  ab  ")).toEqual([MESSAGES.usernameShort]);
    expect(refused(usernameSchema, "x".repeat(51))).toEqual([MESSAGES.usernameLong]);
    expect(accepted(usernameSchema, ` ${"x".repeat(50)} `)).toBe("x".repeat(50));
  });

  test.each(["abc-d", "abc d", "abc.d", "ab!c", "abcé", "ab\nc", "-abc", "abc-", "a\u0000bc", "дима_1"])(
    "refuses the characters of %p",
    (name) => {
      expect(refused(usernameSchema, name)).toContain(MESSAGES.usernameChars);
    },
  );

  test("a non-string is refused with the short message", () => {
    expect(refused(usernameSchema, 12345)).toEqual([MESSAGES.usernameShort]);
  });
});

describe("isHttpUrl", () => {
  test.each(["http://example.com", "https://example.com/path?q=1#x", "HTTPS://EXAMPLE.COM", "https://a.b"])(
    "accepts %p",
    (url) => {
      expect(isHttpUrl(url)).toBe(true);
    },
  );

  test.each([
    "javascript:alert(1)",
    "data:text/html,hi",
    "ftp://example.com",
    "example.com",
    "//example.com",
    "http:/example.com",
    "http://",
    "https://",
    " https://example.com",
    "xhttps://example.com",
    "http://exa mple.com",
    "http://[::1",
  ])("refuses %p", (url) => {
    expect(isHttpUrl(url)).toBe(false);
  });
});

describe("optionalUrlSchema", () => {
  test("an empty string clears the field; a URL is trimmed", () => {
    expect(accepted(optionalUrlSchema, "")).toBe("");
    expect(accepted(optionalUrlSchema, "   ")).toBe("");
    expect(accepted(optionalUrlSchema, "  https://example.com  ")).toBe("https://example.com");
  });

  test("at most 2048 characters, and the URL message for every refusal", () => {
    const base = "https://example.com/";
    expect(accepted(optionalUrlSchema, base + "a".repeat(2048 - base.length))).toHaveLength(2048);
    expect(refused(optionalUrlSchema, base + "a".repeat(2049 - base.length))).toContain(MESSAGES.url);
    expect(refused(optionalUrlSchema, "javascript:alert(1)")).toEqual([MESSAGES.url]);
    expect(refused(optionalUrlSchema, 42)).toEqual([MESSAGES.url]);
  });
});

describe("bioSchema", () => {
  test("at most 500 characters, whitespace counted", () => {
    expect(accepted(bioSchema, "b".repeat(500))).toHaveLength(500);
    expect(accepted(bioSchema, "  ")).toBe("  ");
    expect(refused(bioSchema, "b".repeat(501))).toEqual([MESSAGES.bioLong]);
    expect(refused(bioSchema, 5)).toEqual([MESSAGES.bioLong]);
  });
});

describe("profileUpdateSchema", () => {
  test("any subset of the fields; unknown fields are dropped", () => {
    expect(accepted(profileUpdateSchema, {})).toEqual({});
    expect(accepted(profileUpdateSchema, { bio: "hi", isPremium: true, email: "x@y.z" })).toEqual({ bio: "hi" });
  });

  test("every social field takes an http(s) URL or empty and refuses anything else", () => {
    const fields = [
      "instagramUrl",
      "twitterUrl",
      "facebookUrl",
      "youtubeUrl",
      "tiktokUrl",
      "linkedinUrl",
      "etsyUrl",
      "websiteUrl",
    ];
    for (const field of fields) {
      expect(accepted(profileUpdateSchema, { [field]: " https://example.com/me " })).toEqual({
        [field]: "https://example.com/me",
      });
      expect(accepted(profileUpdateSchema, { [field]: "" })).toEqual({ [field]: "" });
      expect(refused(profileUpdateSchema, { [field]: "javascript:alert(1)" })).toEqual([MESSAGES.url]);
    }
  });

  test("profileImageUrl: empty, one of our upload paths, or a provider's https avatar; nothing else", () => {
    for (const url of [
      "",
      "/images/abc_DEF-1_23456789ab.webp",
      "https://avatars.githubusercontent.com/u/1?v=4",
      "https://lh3.googleusercontent.com/a/x",
    ]) {
      expect(accepted(profileUpdateSchema, { profileImageUrl: url })).toEqual({ profileImageUrl: url });
    }
    for (const url of [
      "/images/",
      "/images/a.webp",
      "/images/abc_DEF-1.23456789ab.webp",
      "/images/a/b.webp",
      "/images/a b.webp",
      "x/images/abcdefghijklmnopq.webp",
      "/images/abcdefghijklmnopq.webp?x",
      "/imagesXabcdefghijklmnopq.webp",
      "/other/abcdefghijklmnopq.webp",
      "https://cdn.example/a.png",
      "/api/logout",
      "javascript:alert(1)",
      `/images/${"a".repeat(2048)}`,
    ]) {
      expect([...new Set(refused(profileUpdateSchema, { profileImageUrl: url }))]).toEqual([MESSAGES.url]);
    }
    expect(refused(profileUpdateSchema, { profileImageUrl: 1 })).toEqual([MESSAGES.url]);
  });

  test("profileImageUrl is trimmed before its shape is judged", () => {
    const url = "/images/abc_DEF-1_23456789ab.webp";
    expect(accepted(profileUpdateSchema, { profileImageUrl: `  ${url}\t` })).toEqual({ profileImageUrl: url });
  });

  test("the avatar URL and the name schemas refuse a value that is not a string with their own message", () => {
    for (const value of [1, true, null, {}, ["/images/abc_DEF-1_23456789ab.webp"]]) {
      expect(refused(avatarUrlSchema, value)).toEqual([MESSAGES.url]);
      expect(refused(nameSchema, value)).toEqual([MESSAGES.nameRequired]);
    }
  });

  test("username and bio follow their own schemas", () => {
    expect(accepted(profileUpdateSchema, { username: " new_name " })).toEqual({ username: "new_name" });
    expect(refused(profileUpdateSchema, { username: "no" })).toEqual([MESSAGES.usernameShort]);
    expect(refused(profileUpdateSchema, { bio: "b".repeat(501) })).toEqual([MESSAGES.bioLong]);
  });

  test("the public page's switches (issues 14 and 19) are booleans, each refused with its own message", () => {
    const switches = {
      showNotes: "Show notes must be true or false",
      showAffiliateLinks: "Show affiliate links must be true or false",
      showSchedule: "showSchedule must be true or false",
    };
    for (const [field, message] of Object.entries(switches)) {
      expect(accepted(profileUpdateSchema, { [field]: true })).toEqual({ [field]: true });
      expect(accepted(profileUpdateSchema, { [field]: false })).toEqual({ [field]: false });
      for (const bad of ["true", 1, 0, null, "", [], {}]) {
        expect(refused(profileUpdateSchema, { [field]: bad })).toEqual([message]);
      }
    }
  });

  test("timeZone: an IANA name the runtime knows, stored in its spelling; anything else is refused", () => {
    expect(accepted(profileUpdateSchema, { timeZone: "Europe/Berlin" })).toEqual({ timeZone: "Europe/Berlin" });
    expect(accepted(profileUpdateSchema, { timeZone: "europe/berlin" })).toEqual({ timeZone: "Europe/Berlin" });
    expect(accepted(profileUpdateSchema, { timeZone: "UTC" })).toEqual({ timeZone: "UTC" });
    expect(accepted(profileUpdateSchema, { timeZone: "Pacific/Kiritimati" })).toEqual({
      timeZone: "Pacific/Kiritimati",
    });
    expect(accepted(profileUpdateSchema, {})).toEqual({});
    for (const bad of [
      "Mars/Olympus_Mons",
      "",
      " Europe/Berlin",
      "Europe/Berlin\n",
      "x".repeat(65),
      1,
      null,
      true,
      ["UTC"],
    ]) {
      expect(refused(profileUpdateSchema, { timeZone: bad })).toEqual([TRACKING_MESSAGES.timeZone]);
    }
  });
});

describe("supplementInputSchema", () => {
  const valid = { name: "Vitamin D", quantityType: "Capsule(s)" as const, frequency: "Daily" };

  test("the required fields, trimmed; the optional ones may be absent or null", () => {
    expect(accepted(supplementInputSchema, { ...valid, name: "  Vitamin D  ", frequency: " Daily " })).toEqual(valid);
    expect(accepted(supplementInputSchema, { ...valid, affiliateLink: null, notes: null })).toEqual({
      ...valid,
      affiliateLink: null,
      notes: null,
    });
    expect(accepted(supplementInputSchema, { ...valid, notes: "  with food  " })).toEqual({
      ...valid,
      notes: "with food",
    });
  });

  test.each([
    ["name", "Name"],
    ["frequency", "Frequency"],
  ])("%s: required, at most 100 characters", (field, label) => {
    expect(refused(supplementInputSchema, { ...valid, [field]: "" })).toEqual([`${label} is required`]);
    expect(refused(supplementInputSchema, { ...valid, [field]: "   " })).toEqual([`${label} is required`]);
    expect(refused(supplementInputSchema, { ...valid, [field]: undefined })).toEqual([`${label} is required`]);
    expect(accepted(supplementInputSchema, { ...valid, [field]: "n".repeat(100) })).toEqual({
      ...valid,
      [field]: "n".repeat(100),
    });
    expect(refused(supplementInputSchema, { ...valid, [field]: "n".repeat(101) })).toEqual([
      `${label} must be at most 100 characters`,
    ]);
  });

  test("quantityType is one of the spec's list", () => {
    expect(accepted(supplementInputSchema, { ...valid, quantityType: "Other" }).quantityType).toBe("Other");
    expect(refused(supplementInputSchema, { ...valid, quantityType: "Bucket" })).toEqual([
      "Please choose a quantity type",
    ]);
  });

  test("affiliateLink is an http(s) URL or empty", () => {
    expect(accepted(supplementInputSchema, { ...valid, affiliateLink: "" }).affiliateLink).toBe("");
    expect(refused(supplementInputSchema, { ...valid, affiliateLink: "javascript:x" })).toEqual([MESSAGES.url]);
  });

  test("notes: text of at most 1000 characters", () => {
    expect(accepted(supplementInputSchema, { ...valid, notes: "n".repeat(1000) }).notes).toHaveLength(1000);
    expect(refused(supplementInputSchema, { ...valid, notes: "n".repeat(1001) })).toEqual([
      "Notes must be at most 1000 characters",
    ]);
    expect(refused(supplementInputSchema, { ...valid, notes: 7 })).toEqual(["Notes must be text"]);
  });
});

describe("reorderSchema", () => {
  const MESSAGE = "supplementIds must be a list of supplement ids";

  test("a list of positive integers, at most 200", () => {
    expect(accepted(reorderSchema, { supplementIds: [] })).toEqual({ supplementIds: [] });
    const ids = Array.from({ length: 200 }, (_, i) => i + 1);
    expect(accepted(reorderSchema, { supplementIds: ids })).toEqual({ supplementIds: ids });
    expect(refused(reorderSchema, { supplementIds: [...ids, 201] })).toEqual([MESSAGE]);
  });

  test.each([[[0]], [[-1]], [[1.5]], [["1"]], [null], ["1,2"], [[Number.NaN]]])("refuses %p", (supplementIds) => {
    expect(refused(reorderSchema, { supplementIds }).length).toBeGreaterThan(0);
  });

  test("the message names the field", () => {
    expect(refused(reorderSchema, { supplementIds: "x" })).toEqual([MESSAGE]);
    expect(refused(reorderSchema, { supplementIds: ["x"] })).toEqual([MESSAGE]);
  });
});

describe("sign-up and sign-in", () => {
  const valid = { name: "Ada", email: "ada@example.com", password: "p".repeat(8) };

  test("password: 8 to 128 characters", () => {
    expect(accepted(passwordSchema, "p".repeat(8))).toHaveLength(8);
    expect(accepted(passwordSchema, "p".repeat(128))).toHaveLength(128);
    expect(refused(passwordSchema, "p".repeat(7))).toEqual(["Password must be at least 8 characters"]);
    expect(refused(passwordSchema, "p".repeat(129))).toEqual(["Password must be at most 128 characters"]);
  });

  test("e-mail", () => {
    expect(accepted(emailSchema, "ada@example.com")).toBe("ada@example.com");
    expect(refused(emailSchema, "ada")).toEqual(["Please enter a valid e-mail address"]);
  });

  test("sign-up: a trimmed name of 1 to 100 characters", () => {
    expect(accepted(signUpSchema, { ...valid, name: "  Ada  " })).toEqual(valid);
    expect(accepted(signUpSchema, { ...valid, name: "n".repeat(100) }).name).toHaveLength(100);
    expect(refused(signUpSchema, { ...valid, name: "   " })).toEqual(["Please enter your name"]);
    expect(refused(signUpSchema, { ...valid, name: "n".repeat(101) })).toEqual(["Name must be at most 100 characters"]);
    expect(refused(signUpSchema, { ...valid, password: "short" })).toEqual(["Password must be at least 8 characters"]);
    expect(refused(signUpSchema, { ...valid, email: "nope" })).toEqual(["Please enter a valid e-mail address"]);
  });

  test("sign-in: any non-empty password", () => {
    expect(accepted(signInSchema, { email: valid.email, password: "x" })).toEqual({
      email: valid.email,
      password: "x",
    });
    expect(refused(signInSchema, { email: valid.email, password: "" })).toEqual(["Please enter your password"]);
    expect(refused(signInSchema, { email: "x", password: "x" })).toEqual(["Please enter a valid e-mail address"]);
  });
});
