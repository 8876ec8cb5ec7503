// Under `astro dev` the landing page is rendered per request, so `/` is routed here
// the way server.ts routes it in production: a session cookie means the dashboard.
import type { APIContext, MiddlewareNext } from "astro";
import { defineMiddleware } from "astro:middleware";
import { PROFILE_USER_HEADER } from "../api/cache";
import { isDatabaseUnavailable } from "../api/http";
import { PRODUCT_NAME } from "./lib/constants";
import { pageTitle } from "./lib/format";

/** While the database is unreachable a page answers 503 (not a 404 or a bare 500). */
function unavailable(): Response {
  const html = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${pageTitle("Temporarily unavailable")}</title></head><body><main><h1>${PRODUCT_NAME} is temporarily unavailable</h1><p>Please try again in a moment.</p></main></body></html>`;
  return new Response(html, {
    status: 503,
    headers: { "Content-Type": "text/html; charset=utf-8", "Retry-After": "5", "Cache-Control": "no-store" },
  });
}

export const onRequest = defineMiddleware(async (context, next) => {
  try {
    return await route(context, next);
  } catch (error) {
    if (isDatabaseUnavailable(error)) return unavailable();
    throw error;
  }
});

const route = async (context: APIContext, next: MiddlewareNext): Promise<Response> => {
  if (!import.meta.env.DEV) return next();
  if (context.url.pathname === "/") {
    const cookie = context.request.headers.get("cookie");
    if (cookie?.includes("session_token")) return context.rewrite("/dashboard");
  }
  const response = await next();
  // In production server.ts reads and strips this header; in dev nothing needs it.
  response.headers.delete(PROFILE_USER_HEADER);
  return response;
};
