/**
 * Return paths for the redirect tests (tests/unit/return-path.test.ts and
 * tests/api/return-paths.test.ts): values a hostile link may carry, each of which must end
 * on the site, and values people use, which must survive unchanged.
 * `SITE` stands for the site's host (with port), filled in per server.
 */
export const SITE = "{site}";

export const HOSTILE_RETURN_PATHS: string[] = [
  // control characters and white space, raw and percent-encoded
  "/%09/evil.com",
  "/\t/evil.com",
  "/%0a/evil.com",
  "/\n/evil.com",
  "/%0d/evil.com",
  "/\r/evil.com",
  "/%00/evil.com",
  "/\u0000/evil.com",
  "/%7f/evil.com",
  "/%c2%85/evil.com",
  "/\u0085/evil.com",
  "/%20/evil.com",
  " //evil.com",
  "%20//evil.com",
  "\u00a0//evil.com",
  "/%e3%80%80/evil.com",
  "/%2509/evil.com",
  // backslashes
  "\\evil.com",
  "/\\evil.com",
  "\\/evil.com",
  "/%5Cevil.com",
  "/%5c%5cevil.com",
  // slashes
  "//evil.com",
  "///evil.com",
  "////evil.com",
  "/%2F/evil.com",
  "/%2f%2fevil.com",
  "%2F%2Fevil.com",
  "/.//evil.com",
  "/a/..//evil.com",
  "\uff0f\uff0fevil.com",
  // schemes
  "https:evil.com",
  "https://evil.com",
  "http://evil.com/",
  "http:/\\evil.com",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "java%0ascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  // userinfo and look-alike hosts
  "//user@evil.com",
  "//user:pass@evil.com/",
  `http://${SITE}@evil.com/`,
  `https://${SITE}.evil.com/`,
  `http://${SITE}.evil.com/`,
  "http://evil.com#@{site}",
  // IDN
  "//évil.com",
  "//xn--vil-bma.com",
  // the API is never a destination
  "/api/logout",
  "/API/logout",
  "/%61pi/logout",
  "/api/auth/sign-out",
  // malformed encoding
  "/%",
  "/%zz",
  // relative to the current page, or another scheme's shorthand
  "evil.com",
  "http:/evil.com",
  "?next=//evil.com",
];

/** Paths people use, kept exactly. */
export const LEGITIMATE_RETURN_PATHS: string[] = [
  "/",
  "/subscribe",
  "/billing?x=1#y",
  "/alice",
  "/@evil.com",
  "/profile/edit",
  "/dashboard?tab=2",
];

/** `value` with the site's host filled in. */
export const forSite = (value: string, origin: string) => value.replaceAll(SITE, new URL(origin).host);
