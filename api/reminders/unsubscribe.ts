/**
 * E-mail reminders' one-click unsubscribe (RFC 8058): a link signed per user with the app's
 * secret, good for turning that user's e-mail reminders off and nothing else. The token is a
 * secret: it is in the List-Unsubscribe header only, never in a log line.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Config } from "../lib/config";

const PURPOSE = "stacktrack reminder e-mail unsubscribe v1";

export function unsubscribeToken(config: Config, userId: string): string {
  return createHmac("sha256", config.authSecret).update(`${PURPOSE}\n${userId}`).digest("base64url");
}

export function checkUnsubscribeToken(config: Config, userId: string, token: string): boolean {
  const expected = Buffer.from(unsubscribeToken(config, userId));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export const UNSUBSCRIBE_PATH = "/api/reminders/unsubscribe";

export function unsubscribeUrl(config: Config, userId: string): string {
  const params = new URLSearchParams({ u: userId, t: unsubscribeToken(config, userId) });
  return `${config.origin}${UNSUBSCRIBE_PATH}?${params}`;
}
