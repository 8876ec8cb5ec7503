/** Who is looking at a server-rendered page, resolved once per request. */
import type { AstroGlobal } from "astro";
import { getSessionUser } from "../../api/auth/auth";
import { clearingCookie, sessionCookieNames } from "../../api/auth/session-cookie";
import { getContext } from "../../api/lib/context";
import { toUserJson } from "../../api/profile/user-queries";
import { resolveReturnPath } from "../lib/return-path";
import type { CurrentUser } from "../lib/types";

export async function pageUser(Astro: Pick<AstroGlobal, "locals" | "request">): Promise<CurrentUser | null> {
  if (Astro.locals.user !== undefined) return Astro.locals.user;
  const ctx = await getContext();
  const row = await getSessionUser(ctx, Astro.request.headers);
  const user = row ? toUserJson(row) : null;
  Astro.locals.user = user;
  return user;
}

/** For pages that need a signed-in user: the user, or a redirect to sign in and back. */
export async function requirePageUser(
  Astro: Pick<AstroGlobal, "locals" | "request" | "url" | "redirect">,
): Promise<CurrentUser | Response> {
  const user = await pageUser(Astro);
  if (user) return user;
  const { config } = await getContext();
  const back = resolveReturnPath(Astro.url.pathname + Astro.url.search, config.origin);
  return Astro.redirect(back === "/" ? "/api/login" : `/api/login?redirectTo=${encodeURIComponent(back)}`, 302);
}

/** Expired-session cookies to clear when a signed-in page finds no session. */
export function clearSessionCookies(request: Request): string[] {
  return sessionCookieNames(request.headers.get("cookie")).map(clearingCookie);
}
