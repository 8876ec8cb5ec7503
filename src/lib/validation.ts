/**
 * Validation schemas shared by the forms (islands) and the API: one rule, one place.
 * Messages are the spec's.
 */
import { z } from "zod";
import {
  BIO_MAX,
  MAX_SUPPLEMENTS,
  NOTES_MAX,
  PASSWORD_MAX,
  PASSWORD_MIN,
  QUANTITY_TYPES,
  SUPPLEMENT_TEXT_MAX,
  URL_MAX,
  USERNAME_MAX,
  USERNAME_MIN,
} from "./constants";

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

/** PUT /api/profile: any subset of the editable fields; unknown fields are ignored. */
export const profileUpdateSchema = z.object({
  username: usernameSchema.optional(),
  bio: bioSchema.optional(),
  profileImageUrl: z
    .string({ message: MESSAGES.url })
    .trim()
    .max(URL_MAX, MESSAGES.url)
    .refine((v) => v === "" || /^\/images\/[A-Za-z0-9_.-]+$/.test(v) || isHttpUrl(v), MESSAGES.url)
    .optional(),
  instagramUrl: optionalUrlSchema.optional(),
  twitterUrl: optionalUrlSchema.optional(),
  facebookUrl: optionalUrlSchema.optional(),
  youtubeUrl: optionalUrlSchema.optional(),
  tiktokUrl: optionalUrlSchema.optional(),
  linkedinUrl: optionalUrlSchema.optional(),
  etsyUrl: optionalUrlSchema.optional(),
  websiteUrl: optionalUrlSchema.optional(),
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
  name: z.string().trim().min(1, "Please enter your name").max(100, "Name must be at most 100 characters"),
  email: emailSchema,
  password: passwordSchema,
});
export const signInSchema = z.object({
  email: emailSchema,
  password: z.string().min(1, "Please enter your password"),
});
