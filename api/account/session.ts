/** GET /api/login and /api/logout (GET and POST): our own doors around better-auth's session. */
import type { Context } from "hono";
import { Hono } from "hono";
import { resolveReturnPath } from "../../src/lib/return-path";
import { clearingCookie, sessionCookieNames } from "../auth/session-cookie";
import type { AppEnv } from "../lib/env";

/** What sign-out removes from the browser: caches, storage (IndexedDB, Cache Storage, service workers). */
export const CLEAR_SITE_DATA = '"cache", "storage"';

export const sessionRoutes = new Hono<AppEnv>()
  .get("/login", (c) => {
    const redirectTo = resolveReturnPath(c.req.query("redirectTo"), c.get("ctx").config.origin);
    const target = redirectTo === "/" ? "/auth/sign-in" : `/auth/sign-in?redirectTo=${encodeURIComponent(redirectTo)}`;
    return c.redirect(target, 302);
  })
  // The avatar menu's Logout is a form POST (origin-checked in api/app.ts like every write).
  .post("/logout", (c) => endSession(c, 303))
  // The spec's link, kept for compatibility: it ends the session only for a top-level
  // navigation. An <img>, <script>, <iframe> or fetch() pointing here (Sec-Fetch-Dest other
  // than "document") changes nothing; a client that sends no Sec-Fetch-Dest (curl, old
  // browsers) is served as before.
  .get("/logout", (c) => {
    const dest = c.req.header("sec-fetch-dest");
    if (dest !== undefined && dest.toLowerCase() !== "document") {
      return new Response(null, { status: 302, headers: { Location: "/", "Cache-Control": "no-store" } });
    }
    return endSession(c, 302);
  });

/**
 * Ends the request's session (if any), clears the session cookies and sends the browser to "/".
 * Clear-Site-Data empties this browser's offline copies (the service worker's caches, the
 * waiting ticks, the worker itself: docs/offline.md), with or without JavaScript.
 */
async function endSession(c: Context<AppEnv>, status: 302 | 303): Promise<Response> {
  const { auth } = c.get("ctx");
  const headers = new Headers({ Location: "/", "Cache-Control": "no-store", "Clear-Site-Data": CLEAR_SITE_DATA });
  try {
    const result = await auth.api.signOut({ headers: c.req.raw.headers, returnHeaders: true });
    for (const cookie of result.headers.getSetCookie()) headers.append("Set-Cookie", cookie);
  } catch {
    // No session to end: still clear whatever session cookies the browser sent.
    for (const name of sessionCookieNames(c.req.header("cookie"))) {
      headers.append("Set-Cookie", clearingCookie(name));
    }
  }
  return new Response(null, { status, headers });
}
