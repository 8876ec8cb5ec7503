/** The public profile at /{username} and GET /api/profile/{username}: what anyone may read. */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { cardVersions, supplements, type User, users } from "../../db/schema";
import { socialLinksOf } from "../../src/lib/constants";
import { isReservedUsername } from "../../src/lib/reserved-usernames";
import type { PublicProfile, PublicSupplement, PublicUser } from "../../src/lib/types";
import { isHttpUrl, usernameSchema } from "../../src/lib/validation";
import { shownAvatar } from "./user-fields";

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
export type FoundProfile = PublicProfile & {
  userId?: string;
  /** Issue 50 §3: the owner lets visitors copy the list (never serialised: the page's links say it). */
  allowCopies?: boolean;
  /** The newest social card version recorded for the owner (null: none), never serialised. */
  recordedCardVersion?: string | null;
};

/** Whether the public page shows a supplement's 'View Product' link (also the rule of /go/{id}). */
export const showsProductLink = (
  owner: Pick<User, "isPremium" | "showAffiliateLinks">,
  affiliateLink: string | null,
): affiliateLink is string =>
  owner.isPremium && owner.showAffiliateLinks && !!affiliateLink && isHttpUrl(affiliateLink);

/** Whether the public page shows a supplement's notes. */
export const showsNotes = (owner: Pick<User, "isPremium" | "showNotes">, notes: string | null): notes is string =>
  owner.isPremium && owner.showNotes && !!notes?.trim();

/** A supplement row as the profile query reads it (json_agg: one row per user, not per supplement). */
interface ProfileRow {
  id: number;
  name: string;
  quantityType: string;
  frequency: string;
  affiliateLink: string | null;
  notes: string | null;
  schedule: PublicSupplement["schedule"] | null;
  doseAmount: number | string | null;
}

/** A json/jsonb value as the driver hands it: parsed (postgres.js, PGlite) or as text. */
const parsedJson = <T>(value: unknown): T => (typeof value === "string" ? JSON.parse(value) : value) as T;

/**
 * A profile by username in any case; null for unknown, reserved or ill-formed names. `origin`
 * makes the absolute 'View Product' URLs (issue 14): a supplement carries `productUrl` and
 * `notes` only when the page shows them, so a free member's profile is what it always was.
 *
 * One statement (issue 17): the user row, the list (json_agg, in its order) and the newest
 * social card version recorded for the user (`recordedCardVersion`, so that rendering the page
 * of an unchanged profile writes nothing: api/sharing/card-versions.ts).
 */
export async function findPublicProfile(db: Db, name: string, origin: string): Promise<FoundProfile | null> {
  if (!usernameSchema.safeParse(name).success || isReservedUsername(name)) return null;
  const [row] = await db
    .select({
      user: users,
      list: sql<unknown>`(select coalesce(json_agg(json_build_object(
          'id', s.id, 'name', s.name, 'quantityType', s.quantity_type, 'frequency', s.frequency,
          'affiliateLink', s.affiliate_link, 'notes', s.notes, 'schedule', s.schedule, 'doseAmount', s.dose_amount
        ) order by s.sort_order, s.id), '[]'::json)
        from ${supplements} s where s.user_id = "users"."id")`,
      recordedCardVersion: sql<string | null>`(select cv.version from ${cardVersions} cv
        where cv.user_id = "users"."id" order by cv.seq desc limit 1)`,
    })
    .from(users)
    .where(sql`lower(${users.username}) = lower(${name})`)
    .limit(1);
  if (!row) return null;
  const user = row.user;
  const rows = parsedJson<ProfileRow[]>(row.list);
  const list = rows.map(({ affiliateLink, notes, schedule, doseAmount, ...shown }): PublicSupplement => {
    const item: PublicSupplement = shown;
    if (showsNotes(user, notes)) item.notes = notes;
    if (showsProductLink(user, affiliateLink)) item.productUrl = `${origin}/go/${shown.id}`;
    // Issue 19: when they take things is public only when the owner says so; whether they did, never.
    // Issue 48's fields (start, end, every N days, cycles, amounts per time) stay the owner's:
    // the page shows times and days, as before (docs/decisions/043).
    if (user.showSchedule) {
      item.schedule = schedule ? { times: schedule.times, days: schedule.days } : null;
      item.doseAmount = doseAmount === null || doseAmount === undefined ? null : Number(doseAmount);
    }
    return item;
  });
  const profile: FoundProfile = { user: toPublicUser(user), supplements: list };
  Object.defineProperty(profile, "userId", { value: user.id, enumerable: false });
  Object.defineProperty(profile, "allowCopies", { value: user.allowCopies, enumerable: false });
  Object.defineProperty(profile, "recordedCardVersion", { value: row.recordedCardVersion ?? null, enumerable: false });
  return profile;
}
