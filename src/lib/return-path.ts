/**
 * The one parser for return paths ("where to go after signing in"), for the server and the
 * browser alike (a pure leaf module).
 *
 * A value must be a path ("/…") or an absolute http(s) URL that stays on the site's origin;
 * anything a browser might read differently (control characters, whitespace, backslashes,
 * bad percent-encoding, a leading "//" once decoded) is refused, as are API routes. A
 * refused value becomes "/", silently. Callers and reasons: SECURITY.md, "No open redirect".
 */

/** Where a refused or missing return path leads. */
export const DEFAULT_RETURN_PATH = "/";

/**
 * Whether `value` holds a C0 control, DEL, a C1 control, any Unicode white space (space,
 * NBSP, U+2028, U+3000, BOM, …) or a backslash.
 */
function hasForbidden(value: string): boolean {
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code <= 0x20 || (code >= 0x7f && code <= 0xa0) || char === "\\" || /\s/u.test(char)) return true;
  }
  return false;
}
/** Characters browsers also treat as "/" or strip in URLs: full-width solidus, reverse solidus and friends. */
const LOOKALIKE_SLASHES = /[\uff0f\uff3c\u2215\u2044\u29f8\u29f9\ufe68]/u;

/** Decodes percent-encoding until it is stable; null when it is malformed. */
function fullyDecoded(value: string): string | null {
  let current = value;
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return null;
    }
    if (next === current) return current;
    current = next;
  }
  return null; // still changing after four rounds: not something a person wrote
}

const isApiPath = (path: string) => /^\/api(\/|$|\?|#)/i.test(path);

/**
 * `value` as a path on the site (pathname + search + hash), or "/" when it is missing, not
 * on `origin`, or contains anything that could be read as another destination.
 */
export function resolveReturnPath(value: string | null | undefined, origin: string): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 2048) return DEFAULT_RETURN_PATH;
  if (hasForbidden(value) || LOOKALIKE_SLASHES.test(value)) return DEFAULT_RETURN_PATH;
  // Only a path, or an absolute http(s) URL (which must then be on the site): nothing
  // relative to the current page, no other scheme, no "https:host" shorthand.
  if (!value.startsWith("/") && !/^https?:\/\//i.test(value)) return DEFAULT_RETURN_PATH;
  const decoded = fullyDecoded(value);
  if (decoded === null || hasForbidden(decoded) || LOOKALIKE_SLASHES.test(decoded)) return DEFAULT_RETURN_PATH;
  let site: URL;
  let url: URL;
  try {
    site = new URL(origin);
    url = new URL(value, site);
  } catch {
    return DEFAULT_RETURN_PATH;
  }
  if (url.origin !== site.origin || url.username || url.password) return DEFAULT_RETURN_PATH;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // A path that starts with two slashes is a host to a browser ("//evil.com"), whether
  // written so or encoded; the same for the decoded form of the input.
  if (!path.startsWith("/") || path.startsWith("//")) return DEFAULT_RETURN_PATH;
  const decodedPath = fullyDecoded(url.pathname);
  if (decodedPath === null || decodedPath.startsWith("//") || /^\/[\\/]/.test(decoded)) return DEFAULT_RETURN_PATH;
  if (/^\/%2f|^\/%5c|^%2f|^%5c/i.test(value)) return DEFAULT_RETURN_PATH;
  if (isApiPath(path) || isApiPath(decodedPath)) return DEFAULT_RETURN_PATH;
  return path;
}
