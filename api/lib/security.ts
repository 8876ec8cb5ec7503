/** Security headers for every response, and the origin rule for state-changing API calls. */
import type { Config } from "./config";

/**
 * Content-Security-Policy. Pages carry Astro's policy (script hashes for its island
 * loader, Stripe allowed; see astro.config.mjs): as a response header on server-rendered
 * pages and as a <meta> in prerendered ones. A <meta> cannot say frame-ancestors, so the
 * header adds it; everything that is not a page gets a policy that allows nothing.
 */
export const FRAME_ANCESTORS = "frame-ancestors 'none'";
export const STATIC_PAGE_CSP = `${FRAME_ANCESTORS}; base-uri 'self'; object-src 'none'; form-action 'self'`;
export const NON_PAGE_CSP = `default-src 'none'; ${FRAME_ANCESTORS}`;

export function securityHeaders(config: Pick<Config, "production">): Record<string, string> {
  const headers: Record<string, string> = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": 'camera=(), microphone=(), geolocation=(), payment=(self "https://js.stripe.com")',
  };
  if (config.production) headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains";
  return headers;
}

/** The CSP header a response should carry, given the one (if any) Astro gave it. */
export function cspFor(response: Response): string {
  const existing = response.headers.get("content-security-policy");
  if (existing)
    return existing.includes("frame-ancestors")
      ? existing
      : `${existing.trim().replace(/;?$/, ";")} ${FRAME_ANCESTORS}`;
  const type = response.headers.get("content-type") ?? "";
  return type.startsWith("text/html") ? STATIC_PAGE_CSP : NON_PAGE_CSP;
}

function applySecurityHeaders(target: Response, headers: Record<string, string>): Response {
  for (const k in headers) if (!target.headers.has(k)) target.headers.set(k, headers[k] as string);
  target.headers.set("Content-Security-Policy", cspFor(target));
  return target;
}

/** Answers made with `securedHeaders` (nothing left to add): withSecurityHeaders passes them through. */
const secured = new WeakSet<Response>();

/** Adds the security headers to a response, in place when its headers can be changed. */
export function withSecurityHeaders(response: Response, headers: Record<string, string>): Response {
  if (secured.has(response)) return response;
  try {
    return applySecurityHeaders(response, headers);
  } catch {
    // Immutable headers (a fetched or redirect response): copy it.
    return applySecurityHeaders(new Response(response.body, response), headers);
  }
}

/**
 * The headers withSecurityHeaders leaves on an answer that carries `list`, worked out once:
 * for answers kept in memory (profile pages, images), made at fill time instead of per request.
 */
export function securedHeaders(list: HeadersInit, headers: Record<string, string>): Headers {
  return applySecurityHeaders(new Response(null, { headers: list }), headers).headers;
}

/** `response`, whose headers came from `securedHeaders`: withSecurityHeaders leaves it as it is. */
export function markSecured(response: Response): Response {
  secured.add(response);
  return response;
}

const memo = new WeakMap<object, Record<string, string>>();
/** securityHeaders(config), made once per configuration (one object, so cached answers can be keyed by it). */
export function securityHeadersOf(config: Pick<Config, "production">): Record<string, string> {
  let headers = memo.get(config);
  if (!headers) {
    headers = securityHeaders(config);
    memo.set(config, headers);
  }
  return headers;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * State-changing requests must come from our own pages: the Origin header must be the
 * configured origin. A request without Origin (not a browser form or fetch; a Referer is not
 * looked at) is refused too.
 *
 * Origins are compared whole, as parsed origins: the header must be an origin exactly as
 * a browser writes it (`scheme://host[:port]`, lower case, no default port, no path), and
 * equal to one of ours. A look-alike that merely starts with ours (`…example.evil.test`,
 * `…example@evil.test`, `…example:8080`), another scheme or port, `null`, or a list of
 * several origins is refused.
 *
 * In development (`development`: no PUBLIC_ORIGIN) the origin the request was addressed to
 * (its Host, in the site's scheme) counts too, when that host is `localhost`, an IP literal or
 * a `.local` name (developmentOrigin): a phone on the LAN works; a name rebound by DNS to this
 * machine does not.
 */
export function isCrossOriginWrite(request: Request, allowedOrigin: string, development = false): boolean {
  if (SAFE_METHODS.has(request.method)) return false;
  const origin = request.headers.get("origin");
  if (!origin || parsedOrigin(origin) !== origin) return true;
  if (origin === parsedOrigin(allowedOrigin)) return false;
  return !development || origin !== developmentOrigin(request, allowedOrigin);
}

/**
 * The origin a development request was addressed to (its Host header, else its URL's host, in
 * the site's scheme), when that host is `localhost`, an IP literal or ends in `.local`;
 * undefined otherwise. Better-auth trusts the same origin (api/auth/auth.ts).
 */
export function developmentOrigin(request: Request, allowedOrigin: string): string | undefined {
  const site = parsedOrigin(allowedOrigin);
  if (!site) return undefined;
  const url = new URL(request.url);
  // Behind a TLS proxy the app is addressed over http: http://<host> must not pass for https://<host>.
  if (url.protocol !== new URL(site).protocol) return undefined;
  const own = parsedOrigin(`${url.protocol}//${request.headers.get("host") ?? url.host}`);
  if (!own) return undefined;
  const { hostname } = new URL(own);
  const local =
    hostname === "localhost" ||
    hostname.endsWith(".local") ||
    /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) ||
    (hostname.startsWith("[") && hostname.endsWith("]"));
  return local ? own : undefined;
}

/** The origin of a URL as a browser serialises it; undefined for what has none (`null`, junk). */
function parsedOrigin(text: string): string | undefined {
  try {
    const origin = new URL(text).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}
