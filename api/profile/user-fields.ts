/**
 * The user fields better-auth writes (`name`, `image` = profileImageUrl), held to the app's
 * rules wherever they come from: one schema per field (src/lib/validation.ts) and one avatar
 * ownership check (avatarAllowed), applied at the request (checkUserFieldWrites with
 * USER_FIELD_WRITES: a 400 before better-auth runs), in the social sign-in mapping
 * (mapProviderProfile), and in better-auth's database hooks (api/auth/auth.ts), the last line for
 * every path. docs/features.md, "Avatar URLs and user fields".
 */
import { and, eq, getTableColumns } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../db/client";
import { accounts, images, users } from "../../db/schema";
import { MESSAGES } from "../../src/lib/account-messages";
import { NAME_MAX, PRODUCT_NAME } from "../../src/lib/constants";
import {
  type AvatarProvider,
  avatarSource,
  avatarUrlSchema,
  CONTROL_CHARACTERS,
  emailSchema,
  nameSchema,
} from "../../src/lib/validation";
import { badRequest, fieldErrors } from "../lib/http";

/**
 * May `userId` show `value` as their avatar? Empty: yes. `/images/<id>.webp`: only an image
 * this user uploaded (a row of theirs in `images`). A provider's avatar URL: only for a user
 * with an account of that provider (or one being created by it, `creatingProvider`).
 */
export async function avatarAllowed(
  db: Db,
  value: string | null | undefined,
  who: { userId: string | null; creatingProvider?: string },
): Promise<boolean> {
  const source = avatarSource(value);
  if (!source) return false;
  if (source.kind === "none") return true;
  if (source.kind === "provider" && who.creatingProvider === source.provider) return true;
  if (!who.userId) return false;
  if (source.kind === "upload") {
    const [row] = await db
      .select({ id: images.id })
      .from(images)
      .where(and(eq(images.id, source.id), eq(images.userId, who.userId)))
      .limit(1);
    return Boolean(row);
  }
  const [row] = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.userId, who.userId), eq(accounts.providerId, source.provider)))
    .limit(1);
  return Boolean(row);
}

/**
 * The avatar as pages and answers show it: a stored value of a shape no longer allowed (set
 * before these rules, e.g. a third-party URL or another page of this site) is shown as none.
 */
export function shownAvatar(value: string | null): string | null {
  const source = avatarSource(value);
  return source && source.kind !== "none" ? value : null;
}

/** A 400 for an avatar the user may not use, in the field's own name. */
export const invalidAvatar = (field: string) => badRequest(MESSAGES.url, { [field]: [MESSAGES.url] });

type FieldRule = { schema: z.ZodType; required?: boolean; avatar?: boolean };

/**
 * Every better-auth endpoint whose body writes user fields, and the fields each may write.
 * Any other user column in such a body (username, isPremium, firstName, a Stripe id…) is
 * refused. update-user and change-email are not served over HTTP (api/auth/paths.ts, issue 36);
 * their rules stay here should either be served again. Endpoints not listed write no user
 * field from their body: the social endpoints take the profile from the provider
 * (mapProviderProfile).
 */
export const USER_FIELD_WRITES: Record<string, Record<string, FieldRule>> = {
  "/api/auth/sign-up/email": {
    name: { schema: nameSchema, required: true },
    image: { schema: avatarUrlSchema, avatar: true },
    email: { schema: emailSchema, required: true },
  },
  "/api/auth/update-user": {
    name: { schema: nameSchema },
    image: { schema: avatarUrlSchema.nullable(), avatar: true },
  },
  "/api/auth/change-email": {
    newEmail: { schema: emailSchema, required: true },
  },
};

/**
 * Endpoints that act on the signed-in user: signed out, their body is not judged (better-auth
 * answers 401, as for any other signed-in call: who may call comes before what they send).
 */
const NEEDS_SESSION = new Set(["/api/auth/update-user", "/api/auth/change-email"]);

/** The keys a body could use to name a user column (better-auth's names and ours). */
const USER_KEYS = new Set([...Object.keys(getTableColumns(users)), "image"]);

/**
 * Checks a better-auth request body against USER_FIELD_WRITES; throws a 400 (nothing is
 * written then). `userId` is the signed-in user (null when signing up, or signed out: then
 * better-auth itself refuses an update).
 */
export async function checkUserFieldWrites(
  db: Db,
  path: string,
  body: unknown,
  userId: () => Promise<string | null>,
): Promise<void> {
  const rules = USER_FIELD_WRITES[path];
  if (!rules || typeof body !== "object" || body === null || Array.isArray(body)) return;
  if (NEEDS_SESSION.has(path) && !(await userId())) return;
  const record = body as Record<string, unknown>;
  const errors: Record<string, string[]> = {};
  for (const key of Object.keys(record)) {
    if (USER_KEYS.has(key) && !(key in rules)) errors[key] = [`${key} cannot be set here`];
  }
  for (const [field, rule] of Object.entries(rules)) {
    const value = record[field];
    if (value === undefined && !rule.required) continue;
    const result = rule.schema.safeParse(value);
    if (!result.success) {
      errors[field] = fieldErrors(result.error)._ ?? [MESSAGES.url];
      continue;
    }
    if (rule.avatar && !(await avatarAllowed(db, value as string | null, { userId: await userId() }))) {
      errors[field] = [MESSAGES.url];
    }
  }
  const first = Object.entries(errors)[0];
  if (first) throw badRequest(first[1][0] ?? "Invalid input", errors);
}

/** The parts of a provider profile the mapping reads (GitHub's and Google's names for them). */
export interface ProviderProfile {
  name?: unknown;
  login?: unknown;
  email?: unknown;
  avatar_url?: unknown;
  picture?: unknown;
}

/** A name from whatever a provider sent: no control characters, at most NAME_MAX characters. */
export function displayName(...candidates: unknown[]): string {
  for (const candidate of candidates) {
    if (typeof candidate !== "string") continue;
    const clean = candidate
      .replace(new RegExp(`${CONTROL_CHARACTERS.source}+`, "g"), " ")
      .replace(/\s+/g, " ")
      .trim();
    if (!clean) continue;
    const chars = Array.from(clean);
    const name = (chars.length > NAME_MAX ? chars.slice(0, NAME_MAX).join("") : clean).trim();
    // Cut by code points, the name may still exceed NAME_MAX UTF-16 units (the schema's measure).
    const fitted = name.length > NAME_MAX ? name.slice(0, NAME_MAX).replace(/[\ud800-\udbff]$/, "") : name;
    if (nameSchema.safeParse(fitted).success) return fitted;
  }
  return `${PRODUCT_NAME} user`;
}

/**
 * better-auth's `mapProfileToUser` for GitHub and Google: the user's name and avatar from the
 * provider profile, held to the app's rules. A name is cleaned and shortened rather than
 * refused (the sign-in must not fail over a long GitHub name); an avatar that is not the
 * provider's own https avatar URL is dropped (the user can upload one).
 */
export function mapProviderProfile(
  provider: AvatarProvider,
  profile: ProviderProfile,
): { name: string; image: string | undefined } {
  const email = typeof profile.email === "string" ? profile.email.split("@")[0] : undefined;
  const name = displayName(profile.name, profile.login, email);
  const picture = provider === "github" ? profile.avatar_url : profile.picture;
  const source = typeof picture === "string" ? avatarSource(picture) : null;
  const image = source?.kind === "provider" && source.provider === provider ? (picture as string) : undefined;
  return { name, image };
}

/**
 * The last line (better-auth's database hooks): the user fields about to be written, checked
 * with the same rules. Throws a message for the first broken one; returns the values to store.
 */
export async function checkUserRow(
  db: Db,
  data: Record<string, unknown>,
  who: { userId: string | null; creatingProvider?: string },
): Promise<{ name?: string; image?: string | null }> {
  const out: { name?: string; image?: string | null } = {};
  if (data.name !== undefined) {
    const name = nameSchema.safeParse(data.name);
    if (!name.success) throw new UserFieldError("name", name.error.issues[0]?.message ?? MESSAGES.nameRequired);
    out.name = name.data;
  }
  if (data.image !== undefined) {
    const image = data.image as string | null;
    if (typeof image !== "string" && image !== null) throw new UserFieldError("image", MESSAGES.url);
    if (!(await avatarAllowed(db, image, who))) throw new UserFieldError("image", MESSAGES.url);
    out.image = image || null; // "" clears the avatar, as in PUT /api/profile
  }
  return out;
}

export class UserFieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "UserFieldError";
  }
}
