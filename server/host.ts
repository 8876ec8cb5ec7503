/**
 * The one way in (server.ts, and the API tests' server): built files from memory, then every
 * other request through the response cache (./cache.ts) to Hono (`/api`, images, `/go`, the
 * social card and QR code) or Astro (pages). Without `render` (the API tests) Hono answers all.
 */
import { hasSessionCookie } from "../api/auth/session-cookie";
import { isSharingPath } from "../api/sharing/qr";
import type { AppContext, HostEnv } from "../api/lib/types";
import { IMAGES_PREFIX } from "../src/lib/constants";
import { responseCache } from "./cache";
import { type ImportGraph, preloadModules } from "./preload";
import { type StaticFile, serveStatic } from "./static";

type Handler = (request: Request, env: HostEnv) => Response | Promise<Response>;

export interface HostOptions {
  ctx: AppContext;
  api: { fetch: Handler };
  render?: (request: Request) => Promise<Response>;
  files?: Map<string, StaticFile>;
  security?: Record<string, string>;
  /** The built modules' static imports: pages' island modules are preloaded from their head (./preload.ts). */
  modules?: ImportGraph;
}

/** Paths Hono answers whatever the method: the API, avatars, 'View Product' links. */
const isApiPath = (path: string) =>
  path === "/api" || path.startsWith("/api/") || path.startsWith(IMAGES_PREFIX) || path.startsWith("/go/");

export function createHost({ ctx, api, render, files, security, modules }: HostOptions) {
  const cached = responseCache(ctx, security);
  const page = (request: Request) =>
    (render as NonNullable<typeof render>)(request).then((answer) =>
      modules ? preloadModules(answer, modules) : answer,
    );

  /** Who answers `path`: Hono or Astro. */
  function route(request: Request, url: URL, env: HostEnv): Response | Promise<Response> {
    const path = url.pathname;
    if (!render || isApiPath(path)) return api.fetch(request, env);
    const read = request.method === "GET" || request.method === "HEAD";
    if (read && isSharingPath(path)) return api.fetch(request, env);
    // `/` is the prerendered landing page, unless the visitor has a session.
    if (read && path === "/" && hasSessionCookie(request.headers.get("cookie"))) {
      return page(new Request(new URL("/dashboard", url), request));
    }
    return page(request);
  }

  return function dispatch(request: Request, url: URL, env: HostEnv): Response | Promise<Response> {
    const path = url.pathname;
    if (files && (request.method === "GET" || request.method === "HEAD")) {
      const file = !(path === "/" && hasSessionCookie(request.headers.get("cookie"))) && files.get(path);
      if (file) return serveStatic(file, request, security ?? {});
    }
    const answer = cached(request, path, env, (forwarded) => route(forwarded, url, env));
    if (!render || !path.startsWith("/go/")) return answer;
    // Issue 14: a 'View Product' miss is the site's 404 page, made for this visitor (kept: only the API's decision).
    return Promise.resolve(answer).then((got) =>
      got.status === 404 ? render(new Request(new URL("/404", url), request)) : got,
    );
  };
}
