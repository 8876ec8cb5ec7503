/**
 * Validation schemas shared by the forms (islands) and the API: one rule, one place.
 * Messages are the spec's.
 */
import { z } from "zod";
import {
  BIO_MAX,
  MAX_SUPPLEMENTS,
  NAME_MAX,
  NOTES_MAX,
  PASSWORD_MAX,
  PASSWORD_MIN,
  QUANTITY_TYPES,
  SUPPLEMENT_TEXT_MAX,
  URL_MAX,
  USERNAME_MAX,
  USERNAME_MIN,
} from "./constants";
import { canonicalTimeZone } from "./dates";
import { scheduleFields, TRACKING_MESSAGES } from "./schedule";

export const MESSAGES = {
  usernameShort: "Username must be at least 3 characters",
  usernameLong: "Username must be less than 50 characters",
  usernameChars: "Username can only contain letters, numbers, and underscores",
  usernameTaken: "Username is already taken",
  bioLong: "Bio must be at most 500 characters",
  url: "Please enter a valid URL",
  imageType: "Please select a valid image file",
  imageSize: "Image must be smaller than 5MB",
  tooManySupplements: `You can track at most ${MAX_SUPPLEMENTS} supplements`,
  nameRequired: "Please enter your name",
  nameLong: `Name must be at most ${NAME_MAX} characters`,
  nameChars: "Name cannot contain control characters",
} as const;

export const usernameSchema = z
  .string({ message: MESSAGES.usernameShort })
  .trim()
  .min(USERNAME_MIN, MESSAGES.usernameShort)
  .max(USERNAME_MAX, MESSAGES.usernameLong)
  .regex(/^[A-Za-z0-9_]+$/, MESSAGES.usernameChars);

/** Whether `name` passes the username rule (the one above): what may be looked up or cached as a profile. */
export const isValidUsername = (name: string): boolean => {
  if (name.length > USERNAME_MAX) return false; // before parsing: trimming a 15 KB name costs too
  const result = usernameSchema.safeParse(name);
  return result.success && result.data === name; // exactly, not after trimming
};

/** True for an absolute http(s) URL; `javascript:`, `data:` and the like are not. */
export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** An http(s) URL or the empty string (which clears the field). */
export const optionalUrlSchema = z
  .string({ message: MESSAGES.url })
  .trim()
  .max(URL_MAX, MESSAGES.url)
  .refine((v) => v === "" || isHttpUrl(v), MESSAGES.url);

export const bioSchema = z.string({ message: MESSAGES.bioLong }).max(BIO_MAX, MESSAGES.bioLong);

/**
 * Where an avatar may come from, by the shape of its URL (the one rule; the server adds the
 * ownership check, api/user-fields.ts):
 * - `none`: empty (no avatar);
 * - `upload`: `/images/<id>.webp`, an image uploaded here (exactly that: no query, no dots,
 *   no encoding);
 * - `provider`: the https avatar of a sign-in provider, on that provider's own avatar host
 *   (no userinfo, no port, written in the canonical form a URL parser gives back, so
 *   `HTTPS://`, `https://host:443/`, a trailing dot or a backslash are refused).
 * Anything else (another URL of this site, a third-party URL, `javascript:`, `data:`) is null.
 */
export type AvatarSource =
  | { kind: "none" }
  | { kind: "upload"; id: string }
  | { kind: "provider"; provider: AvatarProvider };
export type AvatarProvider = "github" | "google";

/** The hosts each provider serves its users' avatars from (and nothing else). */
export const AVATAR_PROVIDER_HOSTS: Record<AvatarProvider, (host: string) => boolean> = {
  github: (host) => host === "avatars.githubusercontent.com",
  // Google's profile photos come from lh3 (formerly lh4-lh6); other *.googleusercontent.com
  // hosts serve content users publish (Apps Script pages, Drive files), so they are not allowed.
  google: (host) => /^lh[3-6]\.googleusercontent\.com$/.test(host),
};

export const UPLOADED_IMAGE_PATH = /^\/images\/([A-Za-z0-9_-]{16,64})\.webp$/;

export function avatarSource(value: string | null | undefined): AvatarSource | null {
  if (value === null || value === undefined || value === "") return { kind: "none" };
  if (typeof value !== "string" || value.length > URL_MAX) return null;
  const upload = UPLOADED_IMAGE_PATH.exec(value);
  if (upload?.[1]) return { kind: "upload", id: upload[1] };
  if (!value.startsWith("https://")) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.href !== value || url.protocol !== "https:" || url.username || url.password || url.port) return null;
  for (const provider of Object.keys(AVATAR_PROVIDER_HOSTS) as AvatarProvider[]) {
    if (AVATAR_PROVIDER_HOSTS[provider](url.hostname)) return { kind: "provider", provider };
  }
  return null;
}

/** An avatar URL of an allowed shape (see avatarSource), or the empty string. Not trimmed. */
export const avatarUrlSchema = z
  .string({ message: MESSAGES.url })
  .max(URL_MAX, MESSAGES.url)
  .refine((v) => avatarSource(v) !== null, MESSAGES.url);

/** C0 control characters and DEL: never part of a name. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** The display name (better-auth's `name`): sign-up, update-user and the social sign-in mapping. */
export const nameSchema = z
  .string({ message: MESSAGES.nameRequired })
  .trim()
  .min(1, MESSAGES.nameRequired)
  .max(NAME_MAX, MESSAGES.nameLong)
  .refine((v) => !CONTROL_CHARACTERS.test(v), MESSAGES.nameChars);

/** PUT /api/profile: any subset of the editable fields; unknown fields are ignored. */
export const profileUpdateSchema = z.object({
  username: usernameSchema.optional(),
  bio: bioSchema.optional(),
  profileImageUrl: z.string({ message: MESSAGES.url }).trim().pipe(avatarUrlSchema).optional(),
  instagramUrl: optionalUrlSchema.optional(),
  twitterUrl: optionalUrlSchema.optional(),
  facebookUrl: optionalUrlSchema.optional(),
  youtubeUrl: optionalUrlSchema.optional(),
  tiktokUrl: optionalUrlSchema.optional(),
  linkedinUrl: optionalUrlSchema.optional(),
  etsyUrl: optionalUrlSchema.optional(),
  websiteUrl: optionalUrlSchema.optional(),
  // Issue 19: the user's IANA zone (stored in the runtime's spelling) and the public schedule switch.
  timeZone: z
    .unknown()
    .transform((value, ctx) => {
      const zone = canonicalTimeZone(value);
      if (zone === null) ctx.addIssue({ code: "custom", message: TRACKING_MESSAGES.timeZone });
      return zone ?? "";
    })
    .optional(),
  showSchedule: z.boolean({ message: "showSchedule must be true or false" }).optional(),
});
export type ProfileUpdate = z.infer<typeof profileUpdateSchema>;

/** The profile setup form. */
export const profileSetupSchema = z.object({
  username: usernameSchema,
  bio: bioSchema.optional(),
});

const requiredText = (label: string) =>
  z
    .string({ message: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(SUPPLEMENT_TEXT_MAX, `${label} must be at most ${SUPPLEMENT_TEXT_MAX} characters`);

/** The supplement form: add and edit alike. */
export const supplementInputSchema = z.object({
  name: requiredText("Name"),
  quantityType: z.enum(QUANTITY_TYPES, { message: "Please choose a quantity type" }),
  frequency: requiredText("Frequency"),
  affiliateLink: optionalUrlSchema.nullish(),
  notes: z
    .string({ message: "Notes must be text" })
    .trim()
    .max(NOTES_MAX, `Notes must be at most ${NOTES_MAX} characters`)
    .nullish(),
  ...scheduleFields,
});
export type SupplementInput = z.infer<typeof supplementInputSchema>;

export const reorderSchema = z.object({
  supplementIds: z
    .array(z.number({ message: "supplementIds must be a list of supplement ids" }).int().positive(), {
      message: "supplementIds must be a list of supplement ids",
    })
    .max(MAX_SUPPLEMENTS, "supplementIds must be a list of supplement ids"),
});

export const emailSchema = z.email({ message: "Please enter a valid e-mail address" });
export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN, `Password must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`);

export const signUpSchema = z.object({
  name: nameSchema,
  email: emailSchema,
  password: passwordSchema,
});
export const signInSchema = z.object({
  email: emailSchema,
  password: z.string().min(1, "Please enter your password"),
});
