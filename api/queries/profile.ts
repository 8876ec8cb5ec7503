/** The public profile at /{username} and GET /api/profile/{username}: what anyone may read. */
import { asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { supplements, type User, users } from "../../db/schema";
import { isReservedUsername, socialLinksOf } from "../../src/lib/constants";
import type { PublicProfile, PublicSupplement, PublicUser } from "../../src/lib/types";
import { isHttpUrl, usernameSchema } from "../../src/lib/validation";
import { shownAvatar } from "../user-fields";

/** The public face of a profile: no e-mail, no Stripe ids, nothing private. */
export function toPublicUser(user: User): PublicUser {
  return {
    username: user.username,
    bio: user.bio,
    profileImageUrl: shownAvatar(user.profileImageUrl),
    isPremium: user.isPremium,
    ...socialLinksOf(user),
  };
}

/** A profile as found: the wire answer, plus the owner's id for the cache's bookkeeping (never serialised). */
export type FoundProfile = PublicProfile & { userId?: string };

/** Whether the public page shows a supplement's 'View Product' link (also the rule of /go/{id}). */
export const showsProductLink = (
  owner: Pick<User, "isPremium" | "showAffiliateLinks">,
  affiliateLink: string | null,
): affiliateLink is string =>
  owner.isPremium && owner.showAffiliateLinks && !!affiliateLink && isHttpUrl(affiliateLink);

/** Whether the public page shows a supplement's notes. */
export const showsNotes = (owner: Pick<User, "isPremium" | "showNotes">, notes: string | null): notes is string =>
  owner.isPremium && owner.showNotes && !!notes?.trim();

/**
 * A profile by username in any case; null for unknown, reserved or ill-formed names. `origin`
 * makes the absolute 'View Product' URLs (issue 14): a supplement carries `productUrl` and
 * `notes` only when the page shows them, so a free member's profile is what it always was.
 */
export async function findPublicProfile(db: Db, name: string, origin: string): Promise<FoundProfile | null> {
  if (!usernameSchema.safeParse(name).success || isReservedUsername(name)) return null;
  const [user] = await db.select().from(users).where(sql`lower(${users.username}) = lower(${name})`).limit(1);
  if (!user) return null;
  const rows = await db
    .select({
      id: supplements.id,
      name: supplements.name,
      quantityType: supplements.quantityType,
      frequency: supplements.frequency,
      affiliateLink: supplements.affiliateLink,
      notes: supplements.notes,
      schedule: supplements.schedule,
      doseAmount: supplements.doseAmount,
    })
    .from(supplements)
    .where(eq(supplements.userId, user.id))
    .orderBy(asc(supplements.sortOrder), asc(supplements.id));
  const list = rows.map(({ affiliateLink, notes, schedule, doseAmount, ...shown }): PublicSupplement => {
    const item: PublicSupplement = shown;
    if (showsNotes(user, notes)) item.notes = notes;
    if (showsProductLink(user, affiliateLink)) item.productUrl = `${origin}/go/${shown.id}`;
    // Issue 19: when they take things is public only when the owner says so; whether they did, never.
    if (user.showSchedule) {
      item.schedule = schedule ?? null;
      item.doseAmount = doseAmount ?? null;
    }
    return item;
  });
  const profile: FoundProfile = { user: toPublicUser(user), supplements: list };
  Object.defineProperty(profile, "userId", { value: user.id, enumerable: false });
  return profile;
}
