// Under `astro dev` the landing page is rendered per request, so `/` is routed here
// the way server.ts routes it in production: a session cookie means the dashboard.
import { defineMiddleware } from "astro:middleware";

export const onRequest = defineMiddleware((context, next) => {
  if (import.meta.env.DEV && context.url.pathname === "/") {
    const cookie = context.request.headers.get("cookie");
    if (cookie?.includes("session_token")) return context.rewrite("/dashboard");
  }
  return next();
});
