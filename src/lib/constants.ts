/** Business constants from the spec, imported by the pages and the server alike. */
export const PRODUCT_NAME = "StackTrack";

export const QUANTITY_TYPES = [
  "Capsule(s)",
  "Tablet(s)",
  "Gummy(ies)",
  "Soft Gel",
  "Lozenge",
  "Teaspoon(s)",
  "Tablespoon(s)",
  "Drop(s)",
  "Spray",
  "Other",
] as const;
export type QuantityType = (typeof QUANTITY_TYPES)[number];
export const DEFAULT_QUANTITY_TYPE: QuantityType = "Capsule(s)";

export const PREMIUM_PRICE = "$4.99";
export const PREMIUM_PRICE_CENTS = 499;

export const USERNAME_MIN = 3;
export const USERNAME_MAX = 50;
export const BIO_MAX = 500;
/** The display name (better-auth's `name`). */
export const NAME_MAX = 100;
export const SUPPLEMENT_TEXT_MAX = 100;
export const NOTES_MAX = 1000;
export const URL_MAX = 2048;
export const MAX_SUPPLEMENTS = 200;
/** How long the 'Supplement deleted' toast offers Undo (issue 38). */
export const UNDO_DELETE_MS = 6000;
export const PROFILE_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

/** The characters a username is made of (its length is USERNAME_MIN..USERNAME_MAX; see usernameSchema). */
export const USERNAME_PATTERN = /^[A-Za-z0-9_]+$/;
/** `/{name}`: the path of a public profile page, when the name passes the username rule (isValidUsername). */
export const PROFILE_PATH = /^\/([^/]+)$/;

/** Where uploaded images are served: `/images/<id>.webp`. */
export const IMAGES_PREFIX = "/images/";
const IMAGE_ID = "[A-Za-z0-9_-]{16,64}";
/** The file part of an image URL (`<id>.webp`); group 1 is the id. */
export const IMAGE_FILE = new RegExp(`^(${IMAGE_ID})\\.webp$`);
/** An uploaded image's path, exactly (no query, no dots, no encoding); group 1 is the id. */
export const UPLOADED_IMAGE_PATH = new RegExp(`^${IMAGES_PREFIX}(${IMAGE_ID})\\.webp$`);
/** The path an uploaded image is served at. */
export const imagePath = (id: string) => `${IMAGES_PREFIX}${id}.webp`;

/** The username box takes a little more than USERNAME_MAX, so the too-long message can show. */
export const USERNAME_INPUT_MAX = USERNAME_MAX + 10;

/** The live username check starts at this many characters. */
export const USERNAME_CHECK_MIN = USERNAME_MIN;

/** The eight social links: field, form label, button label, brand colour (white text passes AA on each). */
export const SOCIAL_LINKS = [
  { field: "instagramUrl", label: "Instagram", button: "Instagram", color: "#C13584" },
  { field: "twitterUrl", label: "X (Twitter)", button: "X", color: "#000000" },
  { field: "facebookUrl", label: "Facebook", button: "Facebook", color: "#1559C0" },
  { field: "youtubeUrl", label: "YouTube", button: "YouTube", color: "#CC0000" },
  { field: "tiktokUrl", label: "TikTok", button: "TikTok", color: "#111111" },
  { field: "linkedinUrl", label: "LinkedIn", button: "LinkedIn", color: "#0A66C2" },
  { field: "etsyUrl", label: "Etsy Shop", button: "Etsy", color: "#B3400E" },
  { field: "websiteUrl", label: "Website", button: "Website", color: "#047857" },
] as const;
export type SocialField = (typeof SOCIAL_LINKS)[number]["field"];
export const SOCIAL_FIELDS = SOCIAL_LINKS.map((l) => l.field) as SocialField[];

/** The eight social links of a row (any object with those fields), in SOCIAL_LINKS' order. */
export function socialLinksOf(row: { [F in SocialField]: string | null }): { [F in SocialField]: string | null } {
  return Object.fromEntries(SOCIAL_FIELDS.map((field) => [field, row[field]])) as { [F in SocialField]: string | null };
}

/** Issue 45: how long the link confirming an address for e-mail reminders works. */
export const EMAIL_CONFIRM_DAYS = 7;
/** ...and how soon turning E-mail on again sends a new one (the recipient's budget applies too). */
export const EMAIL_CONFIRM_RESEND_MINUTES = 10;
/** The query parameter that carries a name claimed on its free profile page to the set-up (issue 51). */
export const CLAIM_PARAM = "claim";
