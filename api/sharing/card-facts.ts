/**
 * What a profile's social card shows, and its version: the pure half of the card, which the
 * profile page imports for its og:image tags (the renderer, with its fonts and native
 * modules, is api/sharing/card.ts and stays out of the page bundle).
 */
import { createHash } from "node:crypto";
import { PRODUCT_NAME } from "../../src/lib/constants";
import { CARD_HEIGHT, CARD_WIDTH, cardAlt, cardPath } from "../../src/lib/sharing";

/**
 * Bumped whenever the template, its fonts or the fallback rules change the picture for the
 * same facts: every card gets a new URL, so no cache anywhere keeps the old drawing.
 */
export const CARD_TEMPLATE_REVISION = 4; // 2: written as a palette PNG; 3: at zlib level 6 (api/sharing/card.ts CARD_PNG_OPTIONS); 4: the avatar laid on the raster (AVATAR_BOX)

/** How many supplement names the card lists. */
export const CARD_NAMES = 5;

/** Everything drawn on the card, and nothing else (the version is their hash). */
export interface CardFacts {
  username: string;
  bio: string | null;
  /** The avatar shown on the profile (already held to the avatar rules), or null. */
  avatar: string | null;
  count: number;
  /** The first CARD_NAMES supplement names, in the profile's order. */
  names: string[];
  product: string;
}

/** The part of a public profile the card needs (api/profile/routes.ts PublicProfile fits it). */
export interface CardSource {
  user: { username: string | null; bio: string | null; profileImageUrl: string | null };
  supplements: { name: string }[];
}

export function cardFacts(profile: CardSource): CardFacts {
  return {
    username: profile.user.username ?? "",
    bio: profile.user.bio?.trim() ? profile.user.bio.trim() : null,
    avatar: profile.user.profileImageUrl || null,
    count: profile.supplements.length,
    names: profile.supplements.slice(0, CARD_NAMES).map((s) => s.name),
    product: PRODUCT_NAME,
  };
}

/**
 * 16 URL-safe characters that change whenever anything on the card changes. `revision` is
 * the template revision the facts are (or were) drawn with: a stored old version is checked
 * against the revision it was recorded with (api/sharing/card-versions.ts).
 */
export function cardVersion(facts: CardFacts, revision = CARD_TEMPLATE_REVISION): string {
  const input = JSON.stringify([
    revision,
    facts.product,
    facts.username,
    facts.bio,
    facts.avatar,
    facts.count,
    facts.names,
  ]);
  return createHash("sha256").update(input).digest("base64url").slice(0, 16);
}

/** A version as cardVersion makes it: anything else in the URL is a 404 that costs nothing. */
export const CARD_VERSION_PATTERN = /^[A-Za-z0-9_-]{16}$/;

/** The og:image tags' values for a profile, with absolute URLs. */
export function cardMeta(origin: string, facts: CardFacts) {
  return {
    url: `${origin}${cardPath(facts.username, cardVersion(facts))}`,
    width: CARD_WIDTH,
    height: CARD_HEIGHT,
    alt: cardAlt(facts.username, facts.count, facts.product),
  };
}
