/**
 * GET /go/{supplementId} (issue 14): a premium owner's 'View Product' link. 302 to the stored
 * affiliate URL (http/https only, checked again here), never cached, with no Referer sent on.
 * Unknown or ill-formed id, a free owner, no link stored or links turned off: 404 (server.ts
 * answers it with the site's 404 page). Whether the link shows is the public page's own rule
 * (`showsProductLink`, api/queries/profile.ts), read from Postgres once per supplement and then
 * kept in memory (api/link-cache.ts) until a change notification about its owner drops it on
 * every instance: premium ending, the switch turned off, the link edited or removed, the
 * supplement or the account deleted. A warm click costs no SQL statement.
 *
 * One click is counted per GET, in memory (api/insights/counter.ts): not HEAD, not a known bot,
 * not the signed-in owner. A request with no session cookie is answered by server.ts from memory
 * (`heldRedirect`) without going through the API's middleware; one with a session cookie comes
 * here, where the owner is recognised.
 */
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { supplements, users } from "../db/schema";
import type { AppEnv } from "./env";
import { countClick } from "./insights/count";
import type { HeldLink } from "./link-cache";
import { showsProductLink } from "./queries/profile";
import { markSecured, securedHeaders } from "./security";
import { hasSessionCookie } from "./session-cookie";
import type { AppContext } from "./types";

/** Supplement ids are positive int4 identities; anything else is no supplement. */
const ID = /^[1-9][0-9]{0,9}$/;
const INT4_MAX = 2_147_483_647;
const GO_PREFIX = "/go/";

/** The supplement id a /go/{id} segment names, or null when it cannot name one. */
function idOf(raw: string): number | null {
  if (!ID.test(raw)) return null;
  const id = Number(raw);
  return id > INT4_MAX ? null : id;
}

const notFound = () =>
  new Response(JSON.stringify({ message: "Not found" }), {
    status: 404,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });

const redirectHeaders = (target: string): [string, string][] => [
  ["Location", target],
  ["Cache-Control", "no-store"],
  ["Referrer-Policy", "no-referrer"],
];

/** Where /go/{id} leads: from memory, or read once from Postgres and kept. */
export async function resolveLink(ctx: AppContext, id: number): Promise<HeldLink> {
  const links = ctx.caches.links;
  const held = links.get(id);
  if (held) return held;
  const since = links.begin();
  const [row] = await ctx.database.db
    .select({
      ownerId: users.id,
      isPremium: users.isPremium,
      showAffiliateLinks: users.showAffiliateLinks,
      affiliateLink: supplements.affiliateLink,
    })
    .from(supplements)
    .innerJoin(users, eq(users.id, supplements.userId))
    .where(eq(supplements.id, id))
    .limit(1);
  const target = row && showsProductLink(row, row.affiliateLink) ? new URL(row.affiliateLink).href : null;
  return links.set(id, row?.ownerId ?? null, target, since);
}

/** The final headers of a held link's 302 (with the server's security headers), once per entry. */
const securedOf = new WeakMap<HeldLink, { security: Record<string, string>; headers: Headers }>();

/**
 * server.ts: the answer to a GET or HEAD of /go/{id} straight from memory, when the link is held
 * and leads somewhere and no session cookie asks who the visitor is (the owner's clicks are not
 * counted: those go through the route below). Undefined otherwise.
 */
export function heldRedirect(
  ctx: AppContext,
  request: Request,
  path: string,
  security: Record<string, string>,
): Response | undefined {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  const id = idOf(path.slice(GO_PREFIX.length));
  if (id === null) return undefined;
  const held = ctx.caches.links.get(id);
  if (!held?.target || hasSessionCookie(request.headers.get("cookie"))) return undefined;
  countClick(ctx, request, id, held.ownerId);
  let secured = securedOf.get(held);
  if (secured?.security !== security) {
    secured = { security, headers: securedHeaders(redirectHeaders(held.target), security) };
    securedOf.set(held, secured);
  }
  return markSecured(new Response(null, { status: 302, headers: secured.headers }));
}

export const goRoutes = new Hono<AppEnv>().get("/:id", async (c) => {
  const id = idOf(c.req.param("id"));
  if (id === null) return notFound();
  const ctx = c.get("ctx");
  const link = await resolveLink(ctx, id);
  if (!link.target) return notFound();
  countClick(ctx, c.req.raw, id, link.ownerId);
  return new Response(null, { status: 302, headers: redirectHeaders(link.target) });
});
