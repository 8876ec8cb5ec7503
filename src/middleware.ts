// Under `astro dev` the landing page is rendered per request, so `/` is routed here
// the way server.ts routes it in production: a session cookie means the dashboard.

import { defineMiddleware } from "astro:middleware";
import type { APIContext, MiddlewareNext } from "astro";
import { KEEP_HEADER } from "../api/cache";
import { isDatabaseUnavailable } from "../api/http";
import { hasSessionCookie } from "../api/session-cookie";
import { unavailable } from "./host/errors";

export const onRequest = defineMiddleware(async (context, next) => {
  try {
    return await route(context, next);
  } catch (error) {
    // While the database is unreachable a page answers 503 (not a 404 or a bare 500).
    if (isDatabaseUnavailable(error)) return unavailable("page");
    throw error;
  }
});

const route = async (context: APIContext, next: MiddlewareNext): Promise<Response> => {
  if (!import.meta.env.DEV) return next();
  if (context.url.pathname === "/") {
    if (hasSessionCookie(context.request.headers.get("cookie"))) return context.rewrite("/dashboard");
  }
  const response = await next();
  // In production the host's cache reads and strips this header; in dev nothing needs it.
  response.headers.delete(KEEP_HEADER);
  return response;
};
