// Pages are rendered behind the host (server/host.ts) in production and in development
// (scripts/dev.ts) alike: it routes `/` with a session to the dashboard and reads the keep
// declaration of a page's answer. Here only: a database outage is a 503 page.

import { defineMiddleware } from "astro:middleware";
import { unavailable } from "../api/lib/errors";
import { isDatabaseUnavailable } from "../api/lib/http";

export const onRequest = defineMiddleware(async (_context, next) => {
  try {
    return await next();
  } catch (error) {
    // While the database is unreachable a page answers 503 (not a 404 or a bare 500).
    if (isDatabaseUnavailable(error)) return unavailable("page");
    throw error;
  }
});
