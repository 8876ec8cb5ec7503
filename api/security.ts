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

/** Adds the security headers to a response, in place when its headers can be changed. */
export function withSecurityHeaders(response: Response, headers: Record<string, string>): Response {
  const apply = (target: Response) => {
    for (const [k, v] of Object.entries(headers)) if (!target.headers.has(k)) target.headers.set(k, v);
    target.headers.set("Content-Security-Policy", cspFor(target));
    return target;
  };
  try {
    return apply(response);
  } catch {
    // Immutable headers (a fetched or redirect response): copy it.
    return apply(new Response(response.body, response));
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * State-changing requests must come from our own pages: the Origin header must be
 * the configured origin or the origin the request was addressed to. A request
 * without Origin (not a browser form or fetch) is refused too.
 */
export function isCrossOriginWrite(request: Request, allowedOrigin: string): boolean {
  if (SAFE_METHODS.has(request.method)) return false;
  const origin = request.headers.get("origin");
  if (!origin) return true;
  if (origin === allowedOrigin) return false;
  const host = request.headers.get("host");
  const own = new URL(request.url);
  const candidates = new Set([own.origin]);
  if (host) candidates.add(`${own.protocol}//${host}`);
  return !candidates.has(origin);
}
