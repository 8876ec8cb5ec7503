/**
 * A user's calendar feed, read and changed (issue 50 §1): one row in `calendar_feeds`. Turning
 * it on (again) and a reset give a new feed id, so a new address; off keeps the row so that
 * `hideNames` is remembered, and its address answers 404 from then on.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { calendarFeeds } from "../../db/schema";
import type { CalendarJson } from "../../src/lib/calendar";
import { now } from "../lib/clock";
import { feedToken, feedTokenHash, feedUrls, newFeedId } from "./token";

export interface FeedKeys {
  origin: string;
  secret: string;
}

type FeedRow = typeof calendarFeeds.$inferSelect;

function jsonOf(row: FeedRow | undefined, keys: FeedKeys): CalendarJson {
  if (!row?.enabled) return { enabled: false, url: null, hideNames: row?.hideNames ?? false };
  return {
    enabled: true,
    url: feedUrls(keys.origin, feedToken(keys.secret, row.feedId)).url,
    hideNames: row.hideNames,
  };
}

/** A new feed id and the hash of its token: a new address. */
function freshAddress(secret: string) {
  const feedId = newFeedId();
  return { feedId, tokenHash: feedTokenHash(feedToken(secret, feedId)), fetches: 0, windowStart: now() };
}

export async function readCalendar(db: Db, userId: string, keys: FeedKeys): Promise<CalendarJson> {
  const [row] = await db.select().from(calendarFeeds).where(eq(calendarFeeds.userId, userId)).limit(1);
  // The server's secret changed since the address was made: the old address stopped working
  // (its hash no longer matches), so the feed's token is made again under the new secret and
  // the address shown is one that works.
  const tokenHash = row?.enabled ? feedTokenHash(feedToken(keys.secret, row.feedId)) : null;
  if (row && tokenHash && tokenHash !== row.tokenHash) {
    const [rekeyed] = await db
      .update(calendarFeeds)
      .set({ tokenHash })
      .where(and(eq(calendarFeeds.userId, userId), eq(calendarFeeds.feedId, row.feedId)))
      .returning();
    return jsonOf(rekeyed, keys);
  }
  return jsonOf(row, keys);
}

/** `enabled` and/or `hideNames` changed; on again after off is a new address. One statement. */
export async function updateCalendar(
  db: Db,
  userId: string,
  change: { enabled?: boolean; hideNames?: boolean },
  keys: FeedKeys,
): Promise<CalendarJson> {
  const [current] = await db.select().from(calendarFeeds).where(eq(calendarFeeds.userId, userId)).limit(1);
  const turningOn = change.enabled === true && !current?.enabled;
  const values = {
    ...(turningOn ? freshAddress(keys.secret) : {}),
    ...(change.enabled !== undefined ? { enabled: change.enabled } : {}),
    ...(change.hideNames !== undefined ? { hideNames: change.hideNames } : {}),
  };
  const [row] = current
    ? await db.update(calendarFeeds).set(values).where(eq(calendarFeeds.userId, userId)).returning()
    : await db
        .insert(calendarFeeds)
        .values({ userId, ...freshAddress(keys.secret), enabled: change.enabled ?? false, ...values })
        .returning();
  return jsonOf(row, keys);
}

/** A new address for a feed that is on (the old one answers 404 at once); null while off. */
export async function resetCalendar(db: Db, userId: string, keys: FeedKeys): Promise<CalendarJson | null> {
  const [row] = await db
    .update(calendarFeeds)
    .set(freshAddress(keys.secret))
    .where(and(eq(calendarFeeds.userId, userId), eq(calendarFeeds.enabled, true)))
    .returning();
  return row ? jsonOf(row, keys) : null;
}
