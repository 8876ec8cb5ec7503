/**
 * The two answers for a request that failed: 500 (a bug) and 503 (the database is unreachable,
 * try again shortly). One function each, used by server.ts, the API's error handler
 * (api/app.ts) and the pages' middleware (src/middleware.ts): JSON `{message}` for the API,
 * a page for a browser.
 */
import { PRODUCT_NAME } from "../../src/lib/constants";
import { pageTitle } from "../../src/lib/format";
import { COMMON_MESSAGES } from "../../src/lib/messages";

export type ErrorAnswer = "json" | "page";

/** The kind of answer a path gets: JSON under /api, a page elsewhere. */
export const answerFor = (path: string): ErrorAnswer => (path === "/api" || path.startsWith("/api/") ? "json" : "page");

/** 500: something went wrong on our side. */
export function serverError(kind: ErrorAnswer): Response {
  return kind === "json"
    ? Response.json({ message: COMMON_MESSAGES.serverError }, { status: 500 })
    : new Response(COMMON_MESSAGES.serverError, { status: 500 });
}

const UNAVAILABLE_PAGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${pageTitle("Temporarily unavailable")}</title></head><body><main><h1>${PRODUCT_NAME} is temporarily unavailable</h1><p>Please try again in a moment.</p></main></body></html>`;

/** 503 while the database is unreachable, with Retry-After: 5 (never cached). */
export function unavailable(kind: ErrorAnswer): Response {
  const headers = { "Retry-After": "5", "Cache-Control": "no-store" };
  return kind === "json"
    ? Response.json({ message: COMMON_MESSAGES.unavailable }, { status: 503, headers })
    : new Response(UNAVAILABLE_PAGE, {
        status: 503,
        headers: { ...headers, "Content-Type": "text/html; charset=utf-8" },
      });
}
