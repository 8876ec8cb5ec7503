/**
 * The two counting hooks (issue 14): a view of a public profile page, a 'View Product' click.
 * Each counts in memory (./counter.ts) when the request may count and the visitor is not the
 * owner; a visitor with a session cookie is checked once the answer is on its way.
 */
import { getSessionUser } from "../auth/auth";
import { sessionTokenCookie } from "../auth/session-cookie";
import { nowMs } from "../lib/clock";
import type { AppContext } from "../lib/types";
import { countable, counterOf } from "./counter";

export function countView(ctx: AppContext, request: Request, ownerId: string, address: string | undefined) {
  if (!countable(request)) return;
  const visitor = { address, agent: request.headers.get("user-agent") ?? "" };
  const at = nowMs();
  whenNotOwner(ctx, request, ownerId, () => counterOf(ctx).view(ownerId, visitor, at));
}

export function countClick(ctx: AppContext, request: Request, supplementId: number, ownerId: string | null) {
  if (!countable(request)) return;
  const at = nowMs();
  whenNotOwner(ctx, request, ownerId, () => counterOf(ctx).click(supplementId, at));
}

function whenNotOwner(ctx: AppContext, request: Request, ownerId: string | null, count: () => void) {
  if (!sessionTokenCookie(request.headers.get("cookie"))) return count();
  counterOf(ctx).track(
    getSessionUser(ctx, request.headers).then(
      (user) => user?.id !== ownerId && count(),
      () => count(),
    ),
  );
}
