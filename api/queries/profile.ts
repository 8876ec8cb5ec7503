/** The public profile at /{username} and GET /api/profile/{username}: what anyone may read. */
import { asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { supplements, type User, users } from "../../db/schema";
import { isReservedUsername, socialLinksOf } from "../../src/lib/constants";
import type { PublicProfile, PublicUser } from "../../src/lib/types";
import { usernameSchema } from "../../src/lib/validation";
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

/** A profile by username in any case; null for unknown, reserved or ill-formed names. */
export async function findPublicProfile(db: Db, name: string): Promise<FoundProfile | null> {
  if (!usernameSchema.safeParse(name).success || isReservedUsername(name)) return null;
  const [user] = await db.select().from(users).where(sql`lower(${users.username}) = lower(${name})`).limit(1);
  if (!user) return null;
  const list = await db
    .select({
      id: supplements.id,
      name: supplements.name,
      quantityType: supplements.quantityType,
      frequency: supplements.frequency,
    })
    .from(supplements)
    .where(eq(supplements.userId, user.id))
    .orderBy(asc(supplements.sortOrder), asc(supplements.id));
  const profile: FoundProfile = { user: toPublicUser(user), supplements: list };
  Object.defineProperty(profile, "userId", { value: user.id, enumerable: false });
  return profile;
}
