/**
 * Validation schemas shared by the forms (islands) and the API: one rule, one place.
 * Messages are the spec's.
 */
import { z } from "zod";
import { ACCOUNT_MESSAGES, MESSAGES } from "./account-messages";
import { AS_NEEDED_MESSAGES, limitsOrNull, MAX_PER_DAY_MAX, MIN_HOURS_MAX, MIN_HOURS_MIN } from "./as-needed-input";
import {
  BIO_MAX,
  MAX_SUPPLEMENTS,
  NAME_MAX,
  NOTES_MAX,
  PASSWORD_MAX,
  PASSWORD_MIN,
  QUANTITY_TYPES,
  SOCIAL_FIELDS,
  type SocialField,
  SUPPLEMENT_TEXT_MAX,
  UPLOADED_IMAGE_PATH,
  URL_MAX,
  USERNAME_MAX,
  USERNAME_MIN,
  USERNAME_PATTERN,
} from "./constants";
import { canonicalTimeZone, isCalendarDate } from "./dates";
import {
  CUSTOM_UNITS,
  INGREDIENT_AMOUNT_MAX,
  INGREDIENT_MESSAGES,
  INGREDIENT_NAME_MAX,
  INGREDIENTS_MAX,
  normalizeUnit,
  SERVING_SIZE_MAX,
  type StoredIngredient,
  toNutrientUnit,
} from "./ingredients";
import { DEFAULT_INSIGHTS_RANGE, INSIGHTS_DAYS_MESSAGE, type InsightsRange } from "./insights";
import { SUPPLEMENT_MESSAGES } from "./messages";
import { NUTRIENTS_BY_ID } from "./nutrients";
import { ALL_DAYS, canonicalSchedule, DOSE_AMOUNT_MAX, DOSE_TIMES, type Schedule, TRACKING_MESSAGES } from "./schedule";
import { CYCLE_MAX, EVERY_MAX, EVERY_MIN, SCHEDULE_RULE_MESSAGES as RULES } from "./schedule-rules";

export const doseAmountSchema = z
  .number({ message: TRACKING_MESSAGES.doseAmount })
  .gt(0, TRACKING_MESSAGES.doseAmount)
  .lte(DOSE_AMOUNT_MAX, TRACKING_MESSAGES.doseAmount)
  .refine((value) => Math.abs(Math.round(value * 100) - value * 100) < 1e-6, TRACKING_MESSAGES.doseAmount);

const wholeIn = (min: number, max: number, message: string) =>
  z.number({ message }).int(message).min(min, message).max(max, message);
const calendarDate = (message: string) => z.string({ message }).refine(isCalendarDate, message);

// Issue 19: a supplement's schedule and amount (rules and labels in schedule.ts); issue 48:
// start, end, every N days, cycles and amounts per time (the day rule: due.ts).
export const scheduleSchema = z
  .strictObject(
    {
      times: z
        .array(z.enum(DOSE_TIMES, { message: TRACKING_MESSAGES.times }), { message: TRACKING_MESSAGES.times })
        .min(1, TRACKING_MESSAGES.times)
        .max(DOSE_TIMES.length, TRACKING_MESSAGES.times)
        .refine((times) => new Set(times).size === times.length, TRACKING_MESSAGES.times)
        .refine((times) => !times.includes("anytime") || times.length === 1, TRACKING_MESSAGES.anytimeAlone),
      days: z
        .array(
          z
            .number({ message: TRACKING_MESSAGES.days })
            .int(TRACKING_MESSAGES.days)
            .min(1, TRACKING_MESSAGES.days)
            .max(7, TRACKING_MESSAGES.days),
          {
            message: TRACKING_MESSAGES.days,
          },
        )
        .min(1, TRACKING_MESSAGES.days)
        .max(7, TRACKING_MESSAGES.days)
        .refine((days) => new Set(days).size === days.length, TRACKING_MESSAGES.days)
        .optional(),
      startsOn: calendarDate(RULES.startsOn).optional(),
      endsOn: calendarDate(RULES.endsOn).nullable().optional(),
      every: z.strictObject({ days: wholeIn(EVERY_MIN, EVERY_MAX, RULES.every) }, { message: RULES.every }).optional(),
      cycle: z
        .strictObject(
          {
            on: wholeIn(1, CYCLE_MAX, RULES.cycle),
            off: wholeIn(1, CYCLE_MAX, RULES.cycle),
          },
          { message: RULES.cycle },
        )
        .optional(),
      amounts: z.record(z.string(), doseAmountSchema, { message: RULES.amounts }).optional(),
    },
    { message: TRACKING_MESSAGES.scheduleShape },
  )
  .superRefine((s, ctx) => {
    const fail = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (s.every && s.cycle) fail("cycle", RULES.everyAndCycle);
    if (s.every || s.cycle) {
      if (s.days && s.days.length !== 7) fail("days", RULES.daysWithPattern);
    } else if (!s.days) fail("days", TRACKING_MESSAGES.days);
    if (s.startsOn && s.endsOn && s.endsOn < s.startsOn) fail("endsOn", RULES.endsOn);
    for (const key of Object.keys(s.amounts ?? {})) {
      if (!(s.times as string[]).includes(key)) fail("amounts", RULES.amountsTimes);
    }
  })
  .transform((s) => canonicalSchedule({ ...s, days: s.days ?? [...ALL_DAYS] } as Schedule));

/** At most `places` decimals (float noise aside). */
const decimals = (places: number) => (value: number) => {
  const scaled = value * 10 ** places;
  return Math.abs(Math.round(scaled) - scaled) < 1e-6 * Math.max(1, Math.abs(scaled));
};

// Issue 47: what is in a serving (rules, units and messages in ingredients.ts).
export const servingSizeSchema = z
  .number({ message: INGREDIENT_MESSAGES.servingSize })
  .gt(0, INGREDIENT_MESSAGES.servingSize)
  .lte(SERVING_SIZE_MAX, INGREDIENT_MESSAGES.servingSize)
  .refine(decimals(2), INGREDIENT_MESSAGES.servingSize);

const ingredientLineSchema = z
  .object(
    {
      nutrient: z.string({ message: INGREDIENT_MESSAGES.nutrient }).optional(),
      name: z
        .string({ message: INGREDIENT_MESSAGES.name })
        .trim()
        .min(1, INGREDIENT_MESSAGES.name)
        .max(INGREDIENT_NAME_MAX, INGREDIENT_MESSAGES.name)
        .refine((name) => !CONTROL_CHARACTERS.test(name), INGREDIENT_MESSAGES.name)
        .optional(),
      amount: z
        .number({ message: INGREDIENT_MESSAGES.amount })
        .gt(0, INGREDIENT_MESSAGES.amount)
        .lte(INGREDIENT_AMOUNT_MAX, INGREDIENT_MESSAGES.amount)
        .refine(decimals(3), INGREDIENT_MESSAGES.amount),
      unit: z.string({ message: INGREDIENT_MESSAGES.unit(CUSTOM_UNITS) }),
    },
    { message: INGREDIENT_MESSAGES.line },
  )
  .transform((line, ctx): StoredIngredient => {
    const unit = normalizeUnit(line.unit);
    const entered = { amount: line.amount, unit };
    if (line.nutrient !== undefined && line.name !== undefined) {
      ctx.addIssue({ code: "custom", message: INGREDIENT_MESSAGES.both, path: ["name"] });
      return z.NEVER;
    }
    if (line.nutrient === undefined) {
      if (line.name === undefined) {
        ctx.addIssue({ code: "custom", message: INGREDIENT_MESSAGES.line, path: ["nutrient"] });
        return z.NEVER;
      }
      if (!(CUSTOM_UNITS as readonly string[]).includes(unit)) {
        ctx.addIssue({ code: "custom", message: INGREDIENT_MESSAGES.unit(CUSTOM_UNITS), path: ["unit"] });
        return z.NEVER;
      }
      return { name: line.name, amount: line.amount, unit, entered };
    }
    const nutrient = NUTRIENTS_BY_ID.get(line.nutrient);
    if (!nutrient) {
      ctx.addIssue({ code: "custom", message: INGREDIENT_MESSAGES.nutrient, path: ["nutrient"] });
      return z.NEVER;
    }
    const amount = toNutrientUnit(nutrient, line.amount, unit);
    if (amount === null) {
      ctx.addIssue({ code: "custom", message: INGREDIENT_MESSAGES.unit(nutrient.units), path: ["unit"] });
      return z.NEVER;
    }
    return { nutrient: nutrient.id, amount, unit: nutrient.unit, entered };
  });

/** 0 to INGREDIENTS_MAX lines per serving, each nutrient (or custom name, in any case) once. */
export const ingredientsSchema = z
  .array(ingredientLineSchema, { message: INGREDIENT_MESSAGES.line })
  .max(INGREDIENTS_MAX, INGREDIENT_MESSAGES.lines)
  .superRefine((lines, ctx) => {
    const seen = new Set<string>();
    lines.forEach((line, index) => {
      const key = line.nutrient ?? `name:${(line.name ?? "").toLowerCase()}`;
      if (seen.has(key)) {
        ctx.addIssue({
          code: "custom",
          message: INGREDIENT_MESSAGES.duplicate,
          path: [index, line.nutrient ? "nutrient" : "name"],
        });
      }
      seen.add(key);
    });
  });

// Issue 48: an as-needed supplement's limits (rules in as-needed.ts); neither set is none (null).
export const asNeededSchema = z
  .strictObject(
    {
      maxPerDay: wholeIn(1, MAX_PER_DAY_MAX, AS_NEEDED_MESSAGES.maxPerDay).nullable().optional(),
      minHoursBetween: z
        .number({ message: AS_NEEDED_MESSAGES.minHoursBetween })
        .min(MIN_HOURS_MIN, AS_NEEDED_MESSAGES.minHoursBetween)
        .max(MIN_HOURS_MAX, AS_NEEDED_MESSAGES.minHoursBetween)
        .refine((hours) => Number.isInteger(hours * 2), AS_NEEDED_MESSAGES.minHoursBetween)
        .nullable()
        .optional(),
    },
    { message: AS_NEEDED_MESSAGES.shape },
  )
  .transform((limits) =>
    limitsOrNull({ maxPerDay: limits.maxPerDay ?? null, minHoursBetween: limits.minHoursBetween ?? null }),
  );

/** The schedule fields of the supplement body (merged into supplementInputSchema). */
export const scheduleFields = {
  schedule: scheduleSchema.nullable().optional(),
  doseAmount: doseAmountSchema.nullable().optional(),
  asNeeded: asNeededSchema.nullable().optional(),
};

export const usernameSchema = z
  .string({ message: MESSAGES.usernameShort })
  .trim()
  .min(USERNAME_MIN, MESSAGES.usernameShort)
  .max(USERNAME_MAX, MESSAGES.usernameLong)
  .regex(USERNAME_PATTERN, MESSAGES.usernameChars);

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
 * ownership check, api/profile/user-fields.ts):
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

/**
 * The platforms whose links may be typed the short way (issue 38): their hosts, the handle's
 * characters, and the full URL a handle stands for.
 */
const SOCIAL_PLATFORMS: Partial<Record<SocialField, { hosts: RegExp; handle: RegExp; url: (h: string) => string }>> = {
  instagramUrl: {
    hosts: /^(?:www\.)?instagram\.com$/i,
    handle: /^[A-Za-z0-9._]{1,30}$/,
    url: (h) => `https://www.instagram.com/${h}`,
  },
  twitterUrl: {
    hosts: /^(?:www\.|mobile\.)?(?:x|twitter)\.com$/i,
    handle: /^[A-Za-z0-9_]{1,15}$/,
    url: (h) => `https://x.com/${h}`,
  },
  tiktokUrl: {
    hosts: /^(?:www\.|m\.)?tiktok\.com$/i,
    handle: /^[A-Za-z0-9._]{2,24}$/,
    url: (h) => `https://www.tiktok.com/@${h}`,
  },
  youtubeUrl: {
    hosts: /^(?:www\.|m\.)?youtube\.com$/i,
    handle: /^[A-Za-z0-9._-]{3,30}$/,
    url: (h) => `https://www.youtube.com/@${h}`,
  },
};

/**
 * A social link as typed, made the URL stored: an http(s) URL stays as it is; for Instagram,
 * X, TikTok and YouTube, the platform's address without `https://` (`instagram.com/maya.runs`)
 * gets it, and a handle (`@maya.runs`) becomes the platform's profile URL; a Website typed as a
 * domain name without a scheme (`mayaruns.example`, `mayaruns.example/blog`) gets `https://` the
 * same way (issue 51). Empty stays empty. Anything else is null (refused with 'Please enter a
 * valid URL'). Client and server alike.
 */
export function normalizeSocialLink(field: SocialField, typed: string): string | null {
  const value = typed.trim();
  if (value === "" || isHttpUrl(value)) return value;
  if (field === "websiteUrl") return withHttps(value, DOMAIN_NAME);
  const platform = SOCIAL_PLATFORMS[field];
  if (!platform) return null;
  const handle = /^@(.+)$/.exec(value)?.[1];
  if (handle !== undefined) return platform.handle.test(handle) ? platform.url(handle) : null;
  return withHttps(value, platform.hosts);
}

/** A domain name: dot-separated labels of letters, digits and hyphens, ending in a letters-only TLD. */
const DOMAIN_NAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/** `host/path` typed without a scheme, as `https://host/path` when its host matches `hosts`; else null. */
function withHttps(value: string, hosts: RegExp): string | null {
  const host = /^([^/?#\s]+)(?:[/?#]|$)/.exec(value)?.[1];
  if (!host || !hosts.test(host)) return null;
  const url = `https://${value}`;
  return isHttpUrl(url) ? url : null;
}

/** Each of the eight social links: an http(s) URL or empty (or the short forms above), optional. */
const socialUrlSchemas = Object.fromEntries(
  SOCIAL_FIELDS.map((field) => [
    field,
    z
      .string({ message: MESSAGES.url })
      .max(URL_MAX, MESSAGES.url)
      .transform((value, ctx) => {
        const url = normalizeSocialLink(field, value);
        if (url === null || url.length > URL_MAX) {
          ctx.addIssue({ code: "custom", message: MESSAGES.url });
          return z.NEVER;
        }
        return url;
      })
      .optional(),
  ]),
) as Record<SocialField, z.ZodOptional<z.ZodPipe<z.ZodString, z.ZodTransform<string, string>>>>;

/** PUT /api/profile: any subset of the editable fields; unknown fields are ignored. */
export const profileUpdateSchema = z.object({
  username: usernameSchema.optional(),
  bio: bioSchema.optional(),
  profileImageUrl: z.string({ message: MESSAGES.url }).trim().pipe(avatarUrlSchema).optional(),
  ...socialUrlSchemas,
  // Issue 14: the public page's switches (premium content; stored for everyone).
  showNotes: z.boolean({ message: "Show notes must be true or false" }).optional(),
  showAffiliateLinks: z.boolean({ message: "Show affiliate links must be true or false" }).optional(),
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
  /** Issue 50 §3: visitors may copy the public list. */
  allowCopies: z.boolean({ message: "allowCopies must be true or false" }).optional(),
});

const requiredText = (label: string) =>
  z
    .string({ message: SUPPLEMENT_MESSAGES.required(label) })
    .trim()
    .min(1, SUPPLEMENT_MESSAGES.required(label))
    .max(SUPPLEMENT_TEXT_MAX, SUPPLEMENT_MESSAGES.textLong(label));

/** The supplement form: add and edit alike. */
export const supplementInputSchema = z
  .object({
    name: requiredText("Name"),
    quantityType: z.enum(QUANTITY_TYPES, { message: SUPPLEMENT_MESSAGES.quantityType }),
    frequency: requiredText("Frequency"),
    affiliateLink: optionalUrlSchema.nullish(),
    notes: z
      .string({ message: SUPPLEMENT_MESSAGES.notesText })
      .trim()
      .max(NOTES_MAX, SUPPLEMENT_MESSAGES.notesLong)
      .nullish(),
    ...scheduleFields,
    servingSize: servingSizeSchema.optional(),
    ingredients: ingredientsSchema.optional(),
  })
  .superRefine((input, ctx) => {
    // Limits belong to an as-needed supplement (a body that keeps the stored schedule: the API checks it).
    if (input.asNeeded && input.schedule) {
      ctx.addIssue({ code: "custom", path: ["asNeeded"], message: AS_NEEDED_MESSAGES.scheduled });
    }
  });
export type SupplementInput = z.infer<typeof supplementInputSchema>;
/** What the dialog sends: ingredient lines as typed (the server converts them, keeping what was typed). */
export type SupplementBody = z.input<typeof supplementInputSchema>;

export const reorderSchema = z.object({
  supplementIds: z
    .array(z.number({ message: SUPPLEMENT_MESSAGES.supplementIds }).int().positive(), {
      message: SUPPLEMENT_MESSAGES.supplementIds,
    })
    .max(MAX_SUPPLEMENTS, SUPPLEMENT_MESSAGES.supplementIds),
});

export const emailSchema = z.email({ message: ACCOUNT_MESSAGES.email });
export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN, ACCOUNT_MESSAGES.passwordShort)
  .max(PASSWORD_MAX, ACCOUNT_MESSAGES.passwordLong);

export const signUpSchema = z.object({
  name: nameSchema,
  email: emailSchema,
  password: passwordSchema,
});
export const signInSchema = z.object({
  email: emailSchema,
  password: z.string().min(1, ACCOUNT_MESSAGES.passwordRequired),
});

// Issue 14.
/** The query of GET /api/insights: `days` absent (30) or exactly one of the ranges. */
export const insightsQuerySchema = z.object({
  days: z
    .enum(["7", "30", "90"], { message: INSIGHTS_DAYS_MESSAGE })
    .optional()
    .transform((v) => (v === undefined ? DEFAULT_INSIGHTS_RANGE : (Number(v) as InsightsRange))),
});
