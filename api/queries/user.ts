/** The signed-in user as the client sees it (GET /api/auth/user, every page's first paint). */
import type { User } from "../../db/schema";
import { shownAvatar } from "../user-fields";

/** Every field of the spec but the Stripe ids. */
export function toUserJson(user: User) {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    profileImageUrl: shownAvatar(user.profileImageUrl),
    username: user.username,
    bio: user.bio,
    isPremium: user.isPremium,
    instagramUrl: user.instagramUrl,
    twitterUrl: user.twitterUrl,
    facebookUrl: user.facebookUrl,
    etsyUrl: user.etsyUrl,
    youtubeUrl: user.youtubeUrl,
    tiktokUrl: user.tiktokUrl,
    linkedinUrl: user.linkedinUrl,
    websiteUrl: user.websiteUrl,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}
export type UserJson = ReturnType<typeof toUserJson>;
