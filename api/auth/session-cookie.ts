/**
 * The session cookie, read in one place: whether a request carries one (server.ts and the
 * dev middleware send `/` to the dashboard then), its exact value (the key under which an
 * instance remembers a verified session, api/auth/auth.ts) and the names to clear on sign-out.
 * Pure functions of the Cookie header: safe for server.ts, the Astro bundle and the API.
 */

/**
 * The session token cookie(s) a request carries, exactly as sent (signed by better-auth):
 * the key under which this instance remembers that it verified the session.
 */
export function sessionTokenCookie(cookieHeader: string | null | undefined): string | null {
  if (!cookieHeader?.includes(TOKEN)) return null;
  // Every `;`-separated part whose name (up to its first `=`) ends in session_token and whose
  // value is not empty, trimmed, joined with "; ". A loop, not split/map/filter: it runs on
  // every signed-in request.
  let found: string | null = null;
  let start = 0;
  while (start <= cookieHeader.length) {
    let end = cookieHeader.indexOf(";", start);
    if (end < 0) end = cookieHeader.length;
    const name = cookieHeader.indexOf("=", start);
    if (name >= 0 && name < end - 1 && cookieHeader.endsWith(TOKEN, name)) {
      const part = cookieHeader.slice(start, end).trim();
      if (isTokenPart(part)) found = found === null ? part : `${found}; ${part}`;
    }
    start = end + 1;
  }
  return found;
}

const TOKEN = "session_token";
/** A trimmed part `…session_token=<at least one character>` (the first `=` right after the name). */
const isTokenPart = (part: string): boolean => /^[^=]*session_token=./.test(part);

/** Whether the request carries a (non-empty) session token cookie: worth looking the session up. */
export const hasSessionCookie = (cookieHeader: string | null | undefined): boolean =>
  sessionTokenCookie(cookieHeader) !== null;

/**
 * A Set-Cookie that removes `name`. A `__Secure-` (production) cookie can only be
 * replaced by a Secure one: browsers ignore the clearing cookie otherwise.
 */
export function clearingCookie(name: string): string {
  const secure = name.startsWith("__Secure-") || name.startsWith("__Host-") ? "; Secure" : "";
  return `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure}`;
}

/** The names of the session cookies (token, cached data) a Cookie header carries. */
export function sessionCookieNames(cookieHeader: string | undefined | null): string[] {
  if (!cookieHeader) return [];
  return cookieHeader
    .split(";")
    .map((part) => part.split("=")[0]?.trim() ?? "")
    .filter((name) => /(^|\.)session_(token|data)$/.test(name) || /better-auth\.session_/.test(name));
}
