/** Shapes the API answers with, shared by the islands. */
export type { UserJson as CurrentUser } from "../../api/auth";
export type { BillingSummary } from "../../api/billing";

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
}
