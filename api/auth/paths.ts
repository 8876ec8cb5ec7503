/**
 * The better-auth endpoints served over HTTP: only those the product's own pages and flows
 * call. Every other /api/auth/* path answers 404 (api/app.ts), whatever better-auth serves;
 * the app still calls any endpoint it needs on the server side (auth.api). See SECURITY.md
 * "Served /api/auth paths".
 */

export interface ServedAuthPath {
  method: "GET" | "POST";
  /** better-auth's path under /api/auth; `:name` is one path segment. */
  path: string;
  /** Who calls it. */
  caller: string;
}

export const SERVED_AUTH_PATHS: readonly ServedAuthPath[] = [
  { method: "POST", path: "/sign-in/email", caller: "the sign-in page" },
  { method: "POST", path: "/sign-up/email", caller: "the sign-up page" },
  { method: "POST", path: "/request-password-reset", caller: "the forgot-password page" },
  { method: "GET", path: "/reset-password/:token", caller: "the link in the password-reset e-mail" },
  { method: "POST", path: "/reset-password", caller: "the reset-password page" },
  { method: "POST", path: "/sign-in/social", caller: "the GitHub and Google buttons (when configured)" },
  { method: "GET", path: "/callback/:id", caller: "GitHub or Google sending the user back (configured ones only)" },
  { method: "POST", path: "/callback/:id", caller: "a provider that answers by form post (configured ones only)" },
];

function matches(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const g = got[i] as string;
    if (w.startsWith(":")) {
      if (!g) return null;
      params[w.slice(1)] = g;
    } else if (w !== g) return null;
  }
  return params;
}

/**
 * The entry serving `method` `path` (the full path, /api/auth/…), or null: not served. An OAuth
 * callback is served only for a provider configured here (`providers`).
 */
export function servedAuthPath(method: string, path: string, providers: ReadonlySet<string>): ServedAuthPath | null {
  if (!path.startsWith("/api/auth/")) return null;
  const rest = path.slice("/api/auth".length);
  for (const entry of SERVED_AUTH_PATHS) {
    if (entry.method !== method) continue;
    const params = matches(entry.path, rest);
    if (!params) continue;
    if (params.id !== undefined && !providers.has(params.id)) return null;
    return entry;
  }
  return null;
}
