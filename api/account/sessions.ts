/**
 * The signed-in user's sessions: listed without their tokens (a token is a credential: it
 * never reaches the page), ended one by one or all but this one, through better-auth's own
 * revokeSession / revokeOtherSessions. Every ended session stops working at once on every
 * instance: better-auth's session delete hook drops this instance's copies before the
 * answer, and the sessions trigger (migration 0002) tells the others.
 */

import { SETTINGS_MESSAGES, type SessionInfo } from "../../src/lib/account";
import { deviceName } from "../../src/lib/user-agent";
import { nowMs } from "../lib/clock";
import type { AppContext } from "../lib/context";
import { HttpError, unauthorized } from "../lib/http";

/** The request's own session as better-auth reads it (from the database), or a 401. */
export async function currentSession(ctx: AppContext, headers: Headers) {
  const found = await ctx.auth.api.getSession({ headers, query: { disableCookieCache: true } });
  if (!found) throw unauthorized();
  return found;
}

/** The user's live sessions, newest activity first, the current one marked. */
export async function listSessions(ctx: AppContext, headers: Headers): Promise<SessionInfo[]> {
  const { session, user } = await currentSession(ctx, headers);
  const internal = (await ctx.auth.$context).internalAdapter;
  const rows = await internal.listSessions(user.id);
  return rows
    .filter((s) => new Date(s.expiresAt).getTime() > nowMs())
    .map((s) => ({
      id: s.id,
      device: deviceName(s.userAgent),
      createdAt: new Date(s.createdAt).toISOString(),
      lastActiveAt: new Date(s.updatedAt).toISOString(),
      current: s.id === session.id,
    }))
    .sort((a, b) => Number(b.current) - Number(a.current) || b.lastActiveAt.localeCompare(a.lastActiveAt));
}

/** Ends one of the user's sessions, by id; 404 for an id that is not one of theirs. */
export async function revokeSessionById(ctx: AppContext, headers: Headers, id: string): Promise<{ current: boolean }> {
  const { session, user } = await currentSession(ctx, headers);
  const internal = (await ctx.auth.$context).internalAdapter;
  const target = (await internal.listSessions(user.id)).find((s) => s.id === id);
  if (!target) throw new HttpError(404, SETTINGS_MESSAGES.sessionNotFound);
  await ctx.auth.api.revokeSession({ headers, body: { token: target.token } });
  ctx.caches.dropSessionsOf(user.id);
  return { current: target.id === session.id };
}

/** Ends every session of the user but the request's own. */
export async function revokeOtherSessions(ctx: AppContext, headers: Headers): Promise<void> {
  const { user } = await currentSession(ctx, headers);
  await ctx.auth.api.revokeOtherSessions({ headers });
  ctx.caches.dropSessionsOf(user.id);
}
