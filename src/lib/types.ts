/**
 * The wire types: one per API answer, written by the server (api/) and read by the islands
 * and pages. The server's mappers (toUserJson, toPublicUser, toSupplementJson) return these.
 */
import type { SocialField } from "./constants";

/** The eight social links, each an http(s) URL or null. */
export type SocialLinks = Record<SocialField, string | null>;

/** GET /api/auth/user and PUT /api/profile: the signed-in user, every field of the spec but the Stripe ids. */
export interface CurrentUser extends SocialLinks {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  profileImageUrl: string | null;
  username: string | null;
  bio: string | null;
  isPremium: boolean;
  /** Issue 14: the public page shows notes (premium; default off). */
  showNotes: boolean;
  /** Issue 14: the public page shows 'View Product' links (premium; default on). */
  showAffiliateLinks: boolean;
  /** Issue 19: the user's IANA time zone (their 'today'); null until set (UTC meanwhile). */
  timeZone: string | null;
  /** Issue 19: the public page shows when they take things. */
  showSchedule: boolean;
  /** Issue 50 §3: visitors may copy the public list ('Copy this stack'); on by default. */
  allowCopies: boolean;
  /** ISO timestamps. */
  createdAt: string;
  updatedAt: string;
}

/** The public face of a profile: no e-mail, no Stripe ids, nothing private. */
export interface PublicUser extends SocialLinks {
  username: string | null;
  bio: string | null;
  profileImageUrl: string | null;
  isPremium: boolean;
}

/** GET /api/profile/:username. */
export interface PublicSupplement {
  id: number;
  name: string;
  quantityType: string;
  frequency: string;
  /** Issue 14: the absolute `/go/{id}` URL, only when the page shows 'View Product' (api/insights/go.ts). */
  productUrl?: string;
  /** Issue 14: only when the page shows notes (premium owner who turned them on). */
  notes?: string;
  /** Issue 19: only when the owner turned on `showSchedule`. */
  schedule?: import("./schedule").Schedule | null;
  doseAmount?: number | null;
}

export interface PublicProfile {
  user: PublicUser;
  supplements: PublicSupplement[];
}

/** GET /api/supplements (a list of them), POST and PUT /api/supplements/*: premium-only fields are null for free users. */
export interface Supplement {
  id: number;
  name: string;
  quantityType: string;
  frequency: string;
  affiliateLink: string | null;
  notes: string | null;
  sortOrder: number;
  /** Issue 19: times and days, or null for as needed; the amount per dose. */
  schedule?: import("./schedule").Schedule | null;
  doseAmount?: number | null;
  /** Issue 48: an as-needed supplement's limits (src/lib/as-needed.ts); null: none. Private. */
  asNeeded?: import("./as-needed-input").AsNeededLimits | null;
  /** Issue 48: where the schedule stands on the user's today; null for as needed (src/lib/due.ts). */
  status?: import("./due").ScheduleStatus | null;
  /** Issue 47: private; units of quantityType per serving, and what a serving holds. */
  servingSize?: number;
  ingredients?: import("./ingredients").IngredientJson[];
  /** Issue 40: private stock, on GET /api/supplements rows only (src/lib/stock.ts). */
  stock?: import("./stock").StockJson | null;
  /** Issue 50 §3: a copy's source ('From @alice's stack', 'Buy again'); null for one's own. */
  source: import("./copies").SupplementSource | null;
  /** ISO timestamps. */
  createdAt: string;
  updatedAt: string;
}

/** POST /api/upload/profile-image. */
export interface ImageUploadAnswer {
  /** `/images/<id>.webp` */
  imageUrl: string;
}

/** GET /api/billing. */
export interface BillingSummary {
  isPremium: boolean;
  status: string | null;
  /** ISO date of the next charge (or of the end, when cancelling at period end); null when none. */
  nextBillingDate: string | null;
  cancelAtPeriodEnd: boolean;
  /** In the smallest currency unit (499). */
  amount: number;
  currency: string;
  /** '$4.99' */
  amountFormatted: string;
  interval: string;
}

/** POST /api/get-or-create-subscription. */
export interface SubscribeAnswer {
  clientSecret: string | null;
  subscriptionId: string;
}

/** POST /api/cancel-subscription. */
export interface CancelSubscriptionAnswer {
  isPremium: boolean;
  status: string | null;
}

/** POST /api/create-portal-session. */
export interface PortalSessionAnswer {
  url: string;
}
