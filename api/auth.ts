/**
 * Identity: the better-auth instance (its endpoints at /api/auth/*), and our own
 * calls around it: GET /api/auth/user, /api/login and /api/logout.
 */
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import * as schema from "../db/schema";
import type { Database } from "../db/client";
import { PASSWORD_MAX, PASSWORD_MIN } from "../src/lib/constants";
import type { Caches } from "./cache";
import { syncPendingSubscription } from "./billing";
import type { AppEnv } from "./env";
import type { Config } from "./config";
import { log } from "./log";
import { createMailer } from "./mail";

/** The header the app middleware stamps with the client's address, replacing any a client sent. */
export const CLIENT_IP_HEADER = "x-stacktrack-client-ip";

function splitName(name: string): { firstName: string | null; lastName: string | null } {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return { firstName: null, lastName: null };
  return { firstName: parts[0] ?? null, lastName: parts.length > 1 ? parts.slice(1).join(" ") : null };
}

export function createAuth(config: Config, database: Database, caches: Caches) {
  const sendMail = createMailer(config);
  const socialProviders: Record<string, { clientId: string; clientSecret: string }> = {};
  if (config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET) {
    socialProviders.github = { clientId: config.GITHUB_CLIENT_ID, clientSecret: config.GITHUB_CLIENT_SECRET };
  }
  if (config.GOOGLE_CLIENT_ID && config.GOOGLE_CLIENT_SECRET) {
    socialProviders.google = { clientId: config.GOOGLE_CLIENT_ID, clientSecret: config.GOOGLE_CLIENT_SECRET };
  }

  return betterAuth({
    appName: "StackTrack",
    baseURL: config.origin,
    basePath: "/api/auth",
    secret: config.authSecret,
    trustedOrigins: [config.origin],
    database: drizzleAdapter(database.db, {
      provider: "pg",
      schema: {
        user: schema.users,
        session: schema.sessions,
        account: schema.accounts,
        verification: schema.verifications,
        rateLimit: schema.authRateLimits,
      },
    }),
    user: {
      fields: { image: "profileImageUrl" },
      additionalFields: {
        firstName: { type: "string", required: false, input: false },
        lastName: { type: "string", required: false, input: false },
        username: { type: "string", required: false, input: false },
      },
    },
    emailAndPassword: {
      enabled: true,
      minPasswordLength: PASSWORD_MIN,
      maxPasswordLength: PASSWORD_MAX,
      autoSignIn: true,
      revokeSessionsOnPasswordReset: true,
      resetPasswordTokenExpiresIn: 60 * 60,
      sendResetPassword: async ({ user, url }) => {
        await sendMail({
          to: user.email,
          subject: "Reset your StackTrack password",
          text: `Someone asked to reset the password of your StackTrack account.\n\nTo choose a new password, open this link within an hour:\n${url}\n\nIf it wasn't you, ignore this e-mail: your password stays as it is.`,
        });
      },
    },
    socialProviders,
    session: {
      expiresIn: 60 * 60 * 24 * 30,
      updateAge: 60 * 60 * 24,
      // Verified sessions are remembered in memory instead (getSessionUser), where an
      // ended session can be forgotten at once; a signed cookie could not be recalled.
      cookieCache: { enabled: false },
    },
    rateLimit: {
      enabled: config.RATE_LIMIT === "on",
      storage: "database",
      window: 60,
      max: 100,
      customRules: {
        "/sign-in/email": { window: 60, max: 10 },
        "/sign-up/email": { window: 60, max: 5 },
        "/request-password-reset": { window: 300, max: 5 },
        "/reset-password": { window: 300, max: 10 },
        "/get-session": false,
      },
    },
    advanced: {
      useSecureCookies: config.production,
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax", secure: config.production },
      // Only the address the app middleware stamps (api/client-address.ts), never a header a
      // client wrote; IPv6 counted by its /64, as rateLimitKey does for our limits.
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER], ipv6Subnet: 64 },
    },
    databaseHooks: {
      user: {
        create: {
          before: async (user) => ({ data: { ...user, ...splitName(user.name ?? "") } }),
        },
      },
      session: {
        delete: {
          // Every session better-auth ends here (sign-out, revoked, a changed or reset
          // password), whoever asked: this instance forgets the user's verified sessions
          // before the call answers. Other instances hear it from Postgres (migration 0002).
          after: async (session) => caches.dropSessionsOf(session.userId),
        },
      },
    },
    logger: {
      log: (level, message, ...args) => {
        const fields = args.length ? { details: args.map((a) => (a instanceof Error ? a.message : a)) } : undefined;
        if (level === "error") log.error(`auth: ${message}`, fields);
        else if (level === "warn") log.warn(`auth: ${message}`, fields);
        else log.debug(`auth: ${message}`, fields);
      },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;

/** The user as the client sees it: every field of the spec but the Stripe ids. */
export function toUserJson(user: schema.User) {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    profileImageUrl: user.profileImageUrl,
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

/**
 * The session token cookie(s) a request carries, exactly as sent (signed by better-auth):
 * the key under which this instance remembers that it verified the session.
 */
export function sessionTokenCookie(cookieHeader: string | null | undefined): string | null {
  if (!cookieHeader?.includes("session_token")) return null;
  const found = cookieHeader
    .split(";")
    .map((part) => part.trim())
    .filter((part) => /^[^=]*session_token=./.test(part));
  return found.length > 0 ? found.join("; ") : null;
}

/**
 * The signed-in user's row, or null (no session, an ended or expired one, or a deleted user).
 * better-auth verifies the cookie and reads the session from Postgres; the answer is then
 * remembered for SESSION_COOKIE_CACHE_SECONDS, so a signed-in request usually costs no
 * database round trip and no signature check. An ended session is forgotten by every
 * instance as soon as Postgres announces it (migration 0002), see README "Sign-in".
 */
export async function getSessionUser(
  ctx: { auth: Auth; database: Database; caches: Caches; config: Pick<Config, "SESSION_COOKIE_CACHE_SECONDS"> },
  headers: Headers,
): Promise<schema.User | null> {
  const key = sessionTokenCookie(headers.get("cookie"));
  if (!key) return null;
  const windowMs = ctx.config.SESSION_COOKIE_CACHE_SECONDS * 1000;
  const known = windowMs > 0 ? ctx.caches.getSession(key, windowMs) : undefined;
  if (known) return findUserById(ctx, known);
  const since = ctx.caches.begin();
  const session = await ctx.auth.api.getSession({ headers });
  if (!session) return null;
  if (windowMs > 0) {
    ctx.caches.setSession(key, session.user.id, new Date(session.session.expiresAt).getTime(), since);
  }
  return findUserById(ctx, session.user.id);
}

const userByIdQueries = new WeakMap<Database, ReturnType<typeof prepareUserById>>();
const prepareUserById = (db: Database["db"]) =>
  db
    .select()
    .from(schema.users)
    .where(eq(schema.users.id, sql.placeholder("id")))
    .limit(1)
    .prepare("user_by_id");

/** A user row by id, from this instance's cache when it has it. */
export async function findUserById(
  ctx: { database: Database; caches: Caches },
  id: string,
): Promise<schema.User | null> {
  const cached = ctx.caches.getUser(id);
  if (cached) return cached;
  const since = ctx.caches.begin();
  let query = userByIdQueries.get(ctx.database);
  if (!query) {
    query = prepareUserById(ctx.database.db);
    userByIdQueries.set(ctx.database, query);
  }
  const [user] = await query.execute({ id });
  if (user) ctx.caches.setUser(user, since);
  return user ?? null;
}

/** Only same-site paths may be a post-sign-in destination (no open redirect). */
export function safeRedirectPath(value: string | null | undefined, fallback = "/"): string {
  if (!value?.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return fallback;
  if (value.startsWith("/api/")) return fallback;
  return value;
}

export const authRoutes = new Hono<AppEnv>()
  .get("/auth/user", async (c) => {
    c.header("Cache-Control", "no-store");
    const ctx = c.get("ctx");
    const user = await getSessionUser(ctx, c.req.raw.headers);
    if (!user) return c.json({ message: "Unauthorized" }, 401);
    // A subscription that may just have been paid is synced from Stripe, so premium does not wait for the webhook.
    return c.json(toUserJson(await syncPendingSubscription(ctx, user)));
  })
  .get("/login", (c) => {
    const redirectTo = safeRedirectPath(c.req.query("redirectTo"));
    const target = redirectTo === "/" ? "/auth/sign-in" : `/auth/sign-in?redirectTo=${encodeURIComponent(redirectTo)}`;
    return c.redirect(target, 302);
  })
  .get("/logout", async (c) => {
    const { auth } = c.get("ctx");
    const headers = new Headers({ Location: "/", "Cache-Control": "no-store" });
    try {
      const result = await auth.api.signOut({ headers: c.req.raw.headers, returnHeaders: true });
      for (const cookie of result.headers.getSetCookie()) headers.append("Set-Cookie", cookie);
    } catch {
      // No session to end: still clear whatever session cookies the browser sent.
      for (const name of sessionCookieNames(c.req.header("cookie"))) {
        headers.append("Set-Cookie", clearingCookie(name));
      }
    }
    return new Response(null, { status: 302, headers });
  });

/**
 * A Set-Cookie that removes `name`. A `__Secure-` (production) cookie can only be
 * replaced by a Secure one: browsers ignore the clearing cookie otherwise.
 */
export function clearingCookie(name: string): string {
  const secure = name.startsWith("__Secure-") || name.startsWith("__Host-") ? "; Secure" : "";
  return `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure}`;
}

export function sessionCookieNames(cookieHeader: string | undefined | null): string[] {
  if (!cookieHeader) return [];
  return cookieHeader
    .split(";")
    .map((part) => part.split("=")[0]?.trim() ?? "")
    .filter((name) => /(^|\.)session_(token|data)$/.test(name) || /better-auth\.session_/.test(name));
}
