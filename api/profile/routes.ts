/** GET /api/profile/:username (public) and PUT /api/profile (the signed-in user's own). */
import { eq, getTableColumns, sql } from "drizzle-orm";
import { Hono } from "hono";
import type { Db } from "../../db/client";
import { users } from "../../db/schema";
import { MESSAGES, PROFILE_MESSAGES } from "../../src/lib/account-messages";
import { SOCIAL_FIELDS } from "../../src/lib/constants";
import { COMMON_MESSAGES } from "../../src/lib/messages";
import { isReservedUsername } from "../../src/lib/reserved-usernames";
import { TRACKING_MESSAGES } from "../../src/lib/schedule";
import { isValidUsername, profileUpdateSchema } from "../../src/lib/validation";
import { isUsernameHeld } from "../account/holds";
import { pruneImages } from "../images/routes";
import { kept, profileTags } from "../lib/cache";
import { rateLimitKey } from "../lib/client-address";
import { type AppEnv, requireUser } from "../lib/env";
import { badRequest, HttpError, isUniqueViolation, notFound, readJson } from "../lib/http";
import { BatchedLimiter, LIMITS, PROFILE_LIMIT_PREFIX } from "../lib/rate-limit";
import type { AppContext } from "../lib/types";
import { findPublicProfile } from "./queries";
import { avatarAllowed, invalidAvatar } from "./user-fields";
import { toUserJson } from "./user-queries";

/** Counts one public profile request of `address` against its per-address limit (shared across instances); 429 past it. */
export function countProfileRequest(ctx: AppContext, address: string | undefined) {
  if (!address) return;
  const limiter = ctx.instance(
    "profile-limit",
    () => new BatchedLimiter(ctx, PROFILE_LIMIT_PREFIX, LIMITS.publicProfile),
  );
  limiter.hit(rateLimitKey(address));
}

const zoneLists = new WeakMap<Db, Promise<Set<string>>>();

/**
 * The zone names the database knows (pg_timezone_names: a slow view, so read once per
 * database). A stored zone must be one of them as well as one Intl knows (issue 45): the
 * planners and the stock statements convert with both.
 */
export function databaseZones(db: Db): Promise<Set<string>> {
  let list = zoneLists.get(db);
  if (!list) {
    list = db.execute(sql`select name from pg_timezone_names`).then((result) => {
      const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { name: string }[];
      return new Set(rows.map((r) => r.name));
    });
    list.catch(() => zoneLists.delete(db));
    zoneLists.set(db, list);
  }
  return list;
}

export const usernameTaken = () => new HttpError(409, MESSAGES.usernameTaken, { username: [MESSAGES.usernameTaken] });

export const profileRoutes = new Hono<AppEnv>()
  .get("/profile/:username", async (c) => {
    const ctx = c.get("ctx");
    countProfileRequest(ctx, c.get("clientAddress"));
    const name = c.req.param("username");
    const profile = await findPublicProfile(ctx.database.db, name, ctx.config.origin);
    const response = profile
      ? c.json(profile, 200, { "Cache-Control": "no-cache" })
      : c.json({ message: PROFILE_MESSAGES.notFound }, 404, { "Cache-Control": "no-cache" });
    return isValidUsername(name)
      ? kept(response, { tags: profileTags(name, profile?.userId), limit: "profile" })
      : response;
  })
  .put("/profile", async (c) => {
    const user = await requireUser(c);
    const input = await readJson(c, profileUpdateSchema);
    const changes: Partial<typeof users.$inferInsert> = {};
    if (input.username !== undefined) {
      if (isReservedUsername(input.username)) throw usernameTaken();
      // A deleted account's name is held for 30 days (api/account/holds.ts).
      if (await isUsernameHeld(c.get("ctx").database.db, input.username)) throw usernameTaken();
      changes.username = input.username;
    }
    if (input.bio !== undefined) changes.bio = input.bio.trim() === "" ? null : input.bio;
    if (input.profileImageUrl !== undefined) {
      // The shape passed the schema; the image must also be this user's (api/profile/user-fields.ts).
      if (!(await avatarAllowed(c.get("ctx").database.db, input.profileImageUrl, { userId: user.id }))) {
        throw invalidAvatar("profileImageUrl");
      }
      changes.profileImageUrl = input.profileImageUrl || null;
    }
    for (const key of SOCIAL_FIELDS) {
      const value = input[key];
      if (value !== undefined) changes[key] = value === "" ? null : value;
    }
    if (input.showNotes !== undefined) changes.showNotes = input.showNotes;
    if (input.showAffiliateLinks !== undefined) changes.showAffiliateLinks = input.showAffiliateLinks;
    // Issue 19: the zone arrives canonical (src/lib/validation.ts: a legacy alias as the zone it
    // links to); issue 45: it must be one the database knows too. The switch as sent.
    if (input.timeZone !== undefined) {
      if (!(await databaseZones(c.get("ctx").database.db)).has(input.timeZone)) {
        throw badRequest(TRACKING_MESSAGES.timeZone, { timeZone: [TRACKING_MESSAGES.timeZone] });
      }
      changes.timeZone = input.timeZone;
    }
    if (input.showSchedule !== undefined) changes.showSchedule = input.showSchedule;
    if (input.allowCopies !== undefined) changes.allowCopies = input.allowCopies;
    if (Object.keys(changes).length === 0) return c.json(toUserJson(user));
    try {
      const db = c.get("ctx").database.db;
      // The row as it was, locked by the same statement: the signed-in `user` may be a moment
      // old (the session's memory), and whether the avatar changed is decided from the row.
      const before = db
        .select({ id: users.id, username: users.username, profileImageUrl: users.profileImageUrl })
        .from(users)
        .where(eq(users.id, user.id))
        .for("update")
        .as("before");
      const [row] = await db
        .update(users)
        .set({ ...changes, updatedAt: new Date() })
        .from(before)
        .where(eq(users.id, before.id))
        .returning({
          ...getTableColumns(users),
          previousUsername: before.username,
          previousImageUrl: before.profileImageUrl,
        });
      if (!row) throw notFound(COMMON_MESSAGES.userNotFound);
      const { previousUsername, previousImageUrl, ...updated } = row;
      c.get("ctx").caches.invalidate({ userId: user.id, names: [previousUsername, updated.username] });
      if (changes.profileImageUrl !== undefined && changes.profileImageUrl !== previousImageUrl) {
        // The old avatar is no longer anyone's: remove it.
        await pruneImages(db, user.id, c.get("ctx").caches);
      }
      return c.json(toUserJson(updated));
    } catch (error) {
      if (isUniqueViolation(error)) throw usernameTaken();
      throw error;
    }
  });
