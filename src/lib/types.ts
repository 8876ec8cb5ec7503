/** Shapes the API answers with, shared by the islands. */
export type { UserJson as CurrentUser } from "../../api/auth";

export interface Supplement {
  id: number;
  name: string;
  quantityType: string;
  frequency: string;
  affiliateLink: string | null;
  notes: string | null;
  sortOrder: number;
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
