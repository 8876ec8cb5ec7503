/** Shapes the API answers with, shared by the islands. */
export type { UserJson as CurrentUser } from "../../api/queries/user";
export type { BillingSummary } from "../../api/billing";

export interface Supplement {
  id: number;
  name: string;
  quantityType: string;
  frequency: string;
  affiliateLink: string | null;
  notes: string | null;
  sortOrder: number;
}
