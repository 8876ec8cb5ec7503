/**
 * The calendar feed's address (issue 50 §1): `/api/calendar/{token}.ics`, where the token is the
 * HMAC-SHA-256 of the feed's random id (32 bytes) under the server's secret, in base64url (43
 * characters). The settings can show the address again without the database keeping it: the
 * database holds the feed id and the token's SHA-256, by which a fetch finds its feed. A new
 * feed id (turned on again, or reset) is a new address; the old one answers 404 at once.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";

const PURPOSE = "stacktrack calendar feed";

/** A token as the address carries it. */
export const FEED_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new feed's id: 32 random bytes. */
export const newFeedId = (): string => randomBytes(32).toString("base64url");

/** The token of feed `feedId` under `secret`. */
export const feedToken = (secret: string, feedId: string): string =>
  createHmac("sha256", secret).update(`${PURPOSE}\n${feedId}`).digest("base64url");

/** What the database keeps of a token: its SHA-256, hex. */
export const feedTokenHash = (token: string): string => createHash("sha256").update(token).digest("hex");

/** The feed's address, and the same for calendar apps (`webcal://`). */
export function feedUrls(origin: string, token: string): { url: string; webcal: string } {
  const url = `${origin}/api/calendar/${token}.ics`;
  return { url, webcal: url.replace(/^https?:/, "webcal:") };
}
