// Under `astro dev` the landing page is rendered per request, so `/` is routed here
// the way server.ts routes it in production: a session cookie means the dashboard.
import { defineMiddleware } from "astro:middleware";
import { PROFILE_USER_HEADER } from "../api/cache";

export const onRequest = defineMiddleware(async (context, next) => {
  if (!import.meta.env.DEV) return next();
  if (context.url.pathname === "/") {
    const cookie = context.request.headers.get("cookie");
    if (cookie?.includes("session_token")) return context.rewrite("/dashboard");
  }
  const response = await next();
  // In production server.ts reads and strips this header; in dev nothing needs it.
  response.headers.delete(PROFILE_USER_HEADER);
  return response;
});
