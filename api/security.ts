/** Security headers for every response, and the origin rule for state-changing API calls. */
import type { Config } from "./config";

const STRIPE_JS = "https://js.stripe.com";

export function contentSecurityPolicy(config: Pick<Config, "production">): string {
  const directives = [
    "default-src 'self'",
    // Astro's island loader is an external module file (no inline script is needed: see README).
    `script-src 'self' ${STRIPE_JS}${config.production ? "" : " 'unsafe-inline' 'unsafe-eval'"}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self'",
    `connect-src 'self' https://api.stripe.com${config.production ? "" : " ws: wss:"}`,
    `frame-src ${STRIPE_JS} https://hooks.stripe.com`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ];
  return directives.join("; ");
}

export function securityHeaders(config: Pick<Config, "production">): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Security-Policy": contentSecurityPolicy(config),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(self \"https://js.stripe.com\")",
  };
  if (config.production) headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains";
  return headers;
}

/** Adds the security headers to a response, in place when its headers can be changed. */
export function withSecurityHeaders(response: Response, headers: Record<string, string>): Response {
  let target = response;
  try {
    for (const [k, v] of Object.entries(headers)) if (!target.headers.has(k)) target.headers.set(k, v);
  } catch {
    // Immutable headers (a fetched or redirect response): copy it.
    target = new Response(response.body, response);
    for (const [k, v] of Object.entries(headers)) if (!target.headers.has(k)) target.headers.set(k, v);
  }
  return target;
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
