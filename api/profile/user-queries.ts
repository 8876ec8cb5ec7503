/** The signed-in user as the client sees it (GET /api/auth/user, PUT /api/profile, every page's first paint). */
import type { User } from "../../db/schema";
import { socialLinksOf } from "../../src/lib/constants";
import type { CurrentUser } from "../../src/lib/types";
import { shownAvatar } from "./user-fields";

/** Every field of the spec but the Stripe ids. */
export function toUserJson(user: User): CurrentUser {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    profileImageUrl: shownAvatar(user.profileImageUrl),
    username: user.username,
    bio: user.bio,
    isPremium: user.isPremium,
    ...socialLinksOf(user),
    showNotes: user.showNotes,
    showAffiliateLinks: user.showAffiliateLinks,
    timeZone: user.timeZone ?? null,
    showSchedule: user.showSchedule ?? false,
    allowCopies: user.allowCopies ?? true,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}
