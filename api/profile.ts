/** GET /api/profile/:username (public) and PUT /api/profile (the signed-in user's own). */
import { asc, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import type { Db } from "../db/client";
import { supplements, type User, users } from "../db/schema";
import { isReservedUsername, SOCIAL_FIELDS } from "../src/lib/constants";
import type { Schedule } from "../src/lib/schedule";
import { MESSAGES, profileUpdateSchema, usernameSchema } from "../src/lib/validation";
import { type AppEnv, requireUser } from "./env";
import { toUserJson } from "./auth";
import { rateLimitKey } from "./client-address";
import type { AppContext } from "./context";
import { BatchedLimiter, LIMITS } from "./rate-limit";
import { serveCached, toCachedBody } from "./cache";
import { HttpError, isUniqueViolation, notFound, readJson } from "./http";
import { pruneImages } from "./images";
import { avatarAllowed, invalidAvatar, shownAvatar } from "./user-fields";

const limiters = new WeakMap<AppContext, BatchedLimiter>();
/** Per-address limit on the public profile API, shared across instances (see rate-limit.ts). */
function profileLimiter(ctx: AppContext): BatchedLimiter {
  let limiter = limiters.get(ctx);
  if (!limiter) {
    limiter = new BatchedLimiter(ctx, "profile", LIMITS.publicProfile);
    limiters.set(ctx, limiter);
  }
  return limiter;
}

export const usernameTaken = () => new HttpError(409, MESSAGES.usernameTaken, { username: [MESSAGES.usernameTaken] });

/** The public face of a profile: no e-mail, no Stripe ids, nothing private. */
export function toPublicUser(user: User) {
  return {
    username: user.username,
    bio: user.bio,
    profileImageUrl: shownAvatar(user.profileImageUrl),
    isPremium: user.isPremium,
    instagramUrl: user.instagramUrl,
    twitterUrl: user.twitterUrl,
    facebookUrl: user.facebookUrl,
    youtubeUrl: user.youtubeUrl,
    tiktokUrl: user.tiktokUrl,
    linkedinUrl: user.linkedinUrl,
    etsyUrl: user.etsyUrl,
    websiteUrl: user.websiteUrl,
  };
}

export interface PublicProfile {
  user: ReturnType<typeof toPublicUser>;
  supplements: {
    id: number;
    name: string;
    quantityType: string;
    frequency: string;
    /** Only when the owner turned on `showSchedule` (issue 19). */
    schedule?: Schedule | null;
    doseAmount?: number | null;
  }[];
  /** Internal (cache bookkeeping); never serialised. */
  userId?: string;
}

/** A profile by username in any case; null for unknown, reserved or ill-formed names. */
export async function findPublicProfile(db: Db, name: string): Promise<PublicProfile | null> {
  if (!usernameSchema.safeParse(name).success || isReservedUsername(name)) return null;
  const [user] = await db.select().from(users).where(sql`lower(${users.username}) = lower(${name})`).limit(1);
  if (!user) return null;
  const list = await db
    .select({
      id: supplements.id,
      name: supplements.name,
      quantityType: supplements.quantityType,
      frequency: supplements.frequency,
      schedule: supplements.schedule,
      doseAmount: supplements.doseAmount,
    })
    .from(supplements)
    .where(eq(supplements.userId, user.id))
    .orderBy(asc(supplements.sortOrder), asc(supplements.id));
  // When they take things is public only when the owner says so; whether they did, never.
  const shown = list.map(({ schedule, doseAmount, ...rest }) =>
    user.showSchedule ? { ...rest, schedule: schedule ?? null, doseAmount: doseAmount ?? null } : rest,
  );
  const profile: PublicProfile = { user: toPublicUser(user), supplements: shown };
  Object.defineProperty(profile, "userId", { value: user.id, enumerable: false });
  return profile;
}

export const profileRoutes = new Hono<AppEnv>()
  .get("/profile/:username", async (c) => {
    const ctx = c.get("ctx");
    const address = c.get("clientAddress");
    if (address) profileLimiter(ctx).hit(rateLimitKey(address));
    const name = c.req.param("username");
    const cached = ctx.caches.getProfile(name, "json");
    if (cached) return serveCached(cached, c.req.raw);
    const since = ctx.caches.begin();
    const profile = await findPublicProfile(ctx.database.db, name);
    const response = profile
      ? c.json(profile, 200, { "Cache-Control": "no-cache" })
      : c.json({ message: "Profile not found" }, 404, { "Cache-Control": "no-cache" });
    const body = await toCachedBody(response);
    ctx.caches.setProfile(name, "json", profile?.userId ?? null, body, since);
    return serveCached(body, c.req.raw);
  })
  .put("/profile", async (c) => {
    const user = await requireUser(c);
    const input = await readJson(c, profileUpdateSchema);
    const changes: Partial<typeof users.$inferInsert> = {};
    if (input.username !== undefined) {
      if (isReservedUsername(input.username)) throw usernameTaken();
      changes.username = input.username;
    }
    if (input.bio !== undefined) changes.bio = input.bio.trim() === "" ? null : input.bio;
    if (input.profileImageUrl !== undefined) {
      // The shape passed the schema; the image must also be this user's (api/user-fields.ts).
      if (!(await avatarAllowed(c.get("ctx").database.db, input.profileImageUrl, { userId: user.id }))) {
        throw invalidAvatar("profileImageUrl");
      }
      changes.profileImageUrl = input.profileImageUrl || null;
    }
    for (const key of SOCIAL_FIELDS) {
      const value = input[key];
      if (value !== undefined) changes[key] = value === "" ? null : value;
    }
    // Issue 19: the zone arrives canonical (src/lib/validation.ts); the switch as sent.
    if (input.timeZone !== undefined) changes.timeZone = input.timeZone;
    if (input.showSchedule !== undefined) changes.showSchedule = input.showSchedule;
    if (Object.keys(changes).length === 0) return c.json(toUserJson(user));
    try {
      const [updated] = await c
        .get("ctx")
        .database.db.update(users)
        .set({ ...changes, updatedAt: new Date() })
        .where(eq(users.id, user.id))
        .returning();
      if (!updated) throw notFound("User not found");
      c.get("ctx").caches.invalidate({ userId: user.id, names: [user.username, updated.username] });
      if (changes.profileImageUrl !== undefined && changes.profileImageUrl !== user.profileImageUrl) {
        // The old avatar is no longer anyone's: remove it.
        await pruneImages(c.get("ctx").database.db, user.id);
      }
      return c.json(toUserJson(updated));
    } catch (error) {
      if (isUniqueViolation(error)) throw usernameTaken();
      throw error;
    }
  });
