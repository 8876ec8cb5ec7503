/**
 * GET /go/{supplementId} (issue 14): a premium owner's 'View Product' link. 302 to the stored
 * affiliate URL (http/https only, checked again here), never cached, with no Referer sent on.
 * Unknown or ill-formed id, a free owner, no link stored or links turned off: 404 (server.ts
 * answers it with the site's 404 page). Whether the link shows is the public page's own rule
 * (`showsProductLink`, api/queries/profile.ts), read from Postgres on every request, so premium ending
 * or the switch turned off takes effect on every instance at once.
 *
 * One click is counted per GET, in memory (api/insights/counter.ts): not HEAD, not a known bot,
 * not the signed-in owner.
 */
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { supplements, users } from "../db/schema";
import { now } from "./clock";
import type { AppEnv } from "./env";
import { countable, counterOf } from "./insights/counter";
import { showsProductLink } from "./queries/profile";
import { sessionTokenCookie } from "./session-cookie";

/** Supplement ids are positive int4 identities; anything else is no supplement. */
const ID = /^[1-9][0-9]{0,9}$/;
const INT4_MAX = 2_147_483_647;

const notFound = () =>
  new Response(JSON.stringify({ message: "Not found" }), {
    status: 404,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });

export const goRoutes = new Hono<AppEnv>().get("/:id", async (c) => {
  const raw = c.req.param("id");
  if (!ID.test(raw) || Number(raw) > INT4_MAX) return notFound();
  const id = Number(raw);
  const ctx = c.get("ctx");
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
  if (!row || !showsProductLink(row, row.affiliateLink)) return notFound();
  const target = new URL(row.affiliateLink).href;
  if (countable(c.req.raw)) {
    const at = now();
    const viewer = sessionTokenCookie(c.req.header("cookie")) ? await c.var.user() : null;
    if (viewer?.id !== row.ownerId) counterOf(ctx).click(id, at);
  }
  return new Response(null, {
    status: 302,
    headers: { Location: target, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" },
  });
});
