/**
 * GET /go/{supplementId} (issue 14): a premium owner's 'View Product' link. 302 to the stored
 * affiliate URL (http/https only, checked again here), `no-store`, no Referer sent on. Unknown
 * or ill-formed id, a free owner, no link stored or links turned off: 404 (the host answers it
 * with the site's 404 page). Whether the link shows is the public page's rule
 * (`showsProductLink`). The answer is declared keepable, tagged with its owner (or as an unknown
 * id), so a warm click costs no statement and a change drops it on every instance; the host
 * counts one click per GET (server/cache.ts, api/insights/count.ts).
 */
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { supplements, users } from "../../db/schema";
import { kept, tags } from "../lib/cache";
import type { AppEnv } from "../lib/env";
import { idOrNull } from "../lib/id";
import type { AppContext } from "../lib/types";
import { showsProductLink } from "../profile/queries";

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

/** Where /go/{id} leads (null: nowhere), and the supplement's owner (null: no such supplement). */
async function resolveLink(ctx: AppContext, id: number): Promise<{ ownerId: string | null; target: string | null }> {
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
  return { ownerId: row?.ownerId ?? null, target };
}

export const goRoutes = new Hono<AppEnv>().get("/:id", async (c) => {
  const id = idOrNull(c.req.param("id"));
  if (id === null) return notFound();
  const { ownerId, target } = await resolveLink(c.get("ctx"), id);
  const linkTags = ownerId ? [tags.user(ownerId)] : [tags.unknownLink];
  if (!target) return kept(notFound(), { tags: linkTags });
  // The host counts the click (server/cache.ts), whether this answer or a kept one is sent.
  return kept(new Response(null, { status: 302, headers: redirectHeaders(target) }), {
    tags: linkTags,
    click: { id, owner: ownerId },
  });
});
