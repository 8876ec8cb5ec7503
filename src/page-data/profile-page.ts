/**
 * What the public profile page (/{username}) reads from the server besides the profile itself
 * (page-data/queries.ts publicProfile): its social card (issue 16) and the date it prints.
 */
import { now } from "../../api/lib/clock";
import { getContext } from "../../api/lib/context";
import type { FoundProfile } from "../../api/profile/queries";
import { cardFacts, cardMeta, cardVersion } from "../../api/sharing/card-facts";
import { recordCardVersion } from "../../api/sharing/card-versions";

/** How the page declares that the host may keep it (server/cache.ts). */
export { KEEP_HEADER, keepHeader, profileTags } from "../../api/lib/cache";

/**
 * The og:image tags of a profile's social card: a 1200 × 630 PNG whose URL changes with what
 * it shows. The version is recorded (once) so that its URL keeps its picture after an edit;
 * this runs only when the page is rendered, never for a page served from the cache.
 */
export async function profileCard(profile: FoundProfile, origin: string) {
  const facts = cardFacts(profile);
  if (profile.userId) {
    await recordCardVersion(await getContext(), profile.userId, facts, cardVersion(facts), profile.recordedCardVersion);
  }
  return cardMeta(origin, facts);
}

/** The instant the page is rendered (its 'Printed …' line without JavaScript). */
export const renderedAt = (): Date => now();
