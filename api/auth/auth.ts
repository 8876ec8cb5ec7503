/**
 * Identity: the better-auth instance (its endpoints at /api/auth/*) and the session
 * look-up every request uses (getSessionUser). Our own routes around it live in
 * api/account/ (GET /api/auth/user, /api/login, /api/logout).
 */
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import * as schema from "../../db/schema";
import { PASSWORD_MAX, PASSWORD_MIN, PRODUCT_NAME } from "../../src/lib/constants";
import { MAIL_MESSAGES } from "../../src/lib/messages";
import { resolveReturnPath } from "../../src/lib/return-path";
import { avatarSource } from "../../src/lib/validation";
import { endEmailChanges } from "../account/email-change";
import type { Caches } from "../lib/cache";
import type { Config } from "../lib/config";
import { log } from "../lib/log";
import { createMailer } from "../lib/mail";
import { developmentOrigin } from "../lib/security";
import { checkUserRow, mapProviderProfile, UserFieldError } from "../profile/user-fields";
import { sessionTokenCookie } from "./session-cookie";

type SocialProviders = NonNullable<Parameters<typeof betterAuth>[0]["socialProviders"]>;

/** The header the app middleware stamps with the client's address, replacing any a client sent. */
export const CLIENT_IP_HEADER = "x-stacktrack-client-ip";

/** better-auth's fields that name where the browser goes next, in bodies and query strings. */
export const RETURN_PATH_FIELDS = ["callbackURL", "newUserCallbackURL", "errorCallbackURL", "redirectTo"] as const;

/**
 * `source` with every return-path field passed through the app's one parser
 * (src/lib/return-path.ts): a refused one becomes "/". Null when nothing changes.
 */
export function withSafeReturnPaths(source: unknown, origin: string): Record<string, unknown> | null {
  if (!source || typeof source !== "object" || Array.isArray(source)) return null;
  const record = source as Record<string, unknown>;
  let changed: Record<string, unknown> | null = null;
  for (const field of RETURN_PATH_FIELDS) {
    const value = record[field];
    if (value === undefined || value === null) continue;
    const safe = typeof value === "string" ? resolveReturnPath(value, origin) : "/";
    if (safe !== value) {
      changed ??= { ...record };
      changed[field] = safe;
    }
  }
  return changed;
}

function splitName(name: string): { firstName: string | null; lastName: string | null } {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return { firstName: null, lastName: null };
  return { firstName: parts[0] ?? null, lastName: parts.length > 1 ? parts.slice(1).join(" ") : null };
}

export function createAuth(config: Config, database: Database, caches: Caches) {
  const sendMail = createMailer(config, database);
  const socialProviders: SocialProviders = {};
  // The provider's profile becomes a name and an avatar that follow the app's rules.
  if (config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET) {
    socialProviders.github = {
      clientId: config.GITHUB_CLIENT_ID,
      clientSecret: config.GITHUB_CLIENT_SECRET,
      mapProfileToUser: (profile) => mapProviderProfile("github", profile),
    };
  }
  if (config.GOOGLE_CLIENT_ID && config.GOOGLE_CLIENT_SECRET) {
    socialProviders.google = {
      clientId: config.GOOGLE_CLIENT_ID,
      clientSecret: config.GOOGLE_CLIENT_SECRET,
      mapProfileToUser: (profile) => mapProviderProfile("google", profile),
    };
  }
  /**
   * The last line for user fields (api/profile/user-fields.ts): whatever path writes a user row, with
   * or without a request body, a name or an avatar that breaks its rule is refused (400).
   */
  const userFieldsOk = async (
    data: Record<string, unknown>,
    who: { userId: string | null; creatingProvider?: string },
  ) => {
    try {
      return await checkUserRow(database.db, data, who);
    } catch (error) {
      if (error instanceof UserFieldError)
        throw new APIError("BAD_REQUEST", { message: error.message, code: "INVALID_USER_FIELD" });
      throw error;
    }
  };

  return betterAuth({
    appName: PRODUCT_NAME,
    baseURL: config.origin,
    basePath: "/api/auth",
    secret: config.authSecret,
    // In development (no PUBLIC_ORIGIN), also the address the page was opened at when it is
    // localhost, an IP literal or a .local name: the origin check's own rule (api/lib/security.ts).
    trustedOrigins: config.PUBLIC_ORIGIN
      ? [config.origin]
      : (request) => [config.origin, request ? developmentOrigin(request, config.origin) : undefined],
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
      // The e-mail change is the app's own (api/account/email-change.ts), not better-auth's.
      changeEmail: { enabled: false },
      // A new user's avatar may be a provider's only when that provider creates the account.
      validateUserInfo: async ({ user, source }) => {
        if (source.action !== "create-user") return;
        const creatingProvider = source.method === "oauth" ? source.oauth?.providerId : undefined;
        try {
          await checkUserRow(database.db, user, { userId: null, creatingProvider });
        } catch (error) {
          if (error instanceof UserFieldError) return { error: "invalid_user_field", errorDescription: error.message };
          throw error;
        }
      },
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
        await sendMail({ to: user.email, ...MAIL_MESSAGES.passwordReset(url) });
      },
      // A reset ends any pending e-mail change, as a password change does.
      onPasswordReset: async ({ user }) => endEmailChanges(database.db, user.id),
    },
    emailVerification: { sendOnSignUp: false },
    socialProviders,
    session: {
      expiresIn: 60 * 60 * 24 * 30,
      updateAge: 60 * 60 * 24,
      // Verified sessions are remembered in memory instead (getSessionUser), where an
      // ended session can be forgotten at once; a signed cookie could not be recalled.
      cookieCache: { enabled: false },
    },
    // The app's one table of limits applies to every served endpoint (api/lib/rate-limit.ts).
    rateLimit: { enabled: false },
    // An OAuth error with no errorCallbackURL lands on the sign-in page (better-auth's /error is not served).
    onAPIError: { errorURL: `${config.origin}/auth/sign-in` },
    advanced: {
      useSecureCookies: config.production,
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax", secure: config.production },
      // Only the address the app middleware stamps (api/lib/client-address.ts), never a header a
      // client wrote; IPv6 counted by its /64, as rateLimitKey does for our limits.
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER], ipv6Subnet: 64 },
    },
    hooks: {
      // Every endpoint, whoever calls it (HTTP or auth.api): a return path that is not a
      // plain path on this site is replaced by "/" before better-auth reads it.
      before: createAuthMiddleware(async (ctx) => {
        const body = withSafeReturnPaths(ctx.body, config.origin);
        const query = withSafeReturnPaths(ctx.query, config.origin);
        if (!body && !query) return;
        return { context: { ...(body ? { body } : {}), ...(query ? { query } : {}) } };
      }),
    },
    databaseHooks: {
      user: {
        create: {
          before: async (user) => {
            // No upload can be a user's before the user exists; a provider avatar was bound to
            // its provider by validateUserInfo, so its shape is what is left to check here.
            const provider = avatarSource(user.image as string | null | undefined);
            const creatingProvider = provider?.kind === "provider" ? provider.provider : undefined;
            const checked = await userFieldsOk(user, { userId: null, creatingProvider });
            const name = checked.name ?? user.name ?? "";
            return { data: { ...user, ...checked, name, ...splitName(name) } };
          },
        },
        update: {
          before: async (data, context) => {
            const userId = (context?.context.session?.user.id as string | undefined) ?? null;
            return { data: { ...data, ...(await userFieldsOk(data, { userId })) } };
          },
          // update-user (name, avatar) and every other better-auth write to a user row: this
          // instance drops its copies before the call answers, as PUT /api/profile does; other
          // instances hear it from Postgres (migration 0001).
          after: async (user) => {
            const username = (user as { username?: string | null }).username;
            caches.invalidate({ userId: user.id, names: username ? [username] : [] });
          },
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

/**
 * The signed-in user's row, or null (no session, an ended or expired one, or a deleted user).
 * better-auth verifies the cookie and reads the session from Postgres; the answer is then
 * remembered for SESSION_COOKIE_CACHE_SECONDS, so a signed-in request usually costs no
 * database round trip and no signature check. An ended session is forgotten by every
 * instance as soon as Postgres announces it (migration 0002), see docs/features.md, "Sign-in".
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
