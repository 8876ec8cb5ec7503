/**
 * The totals' words (issue 47): the over-the-limit line and the card's fixed texts. Apart from
 * strength.ts so that the dashboard's first load carries only what a dose's line needs.
 */
import { formatAmount } from "./strength";

/** `Vitamin D: 150 mcg a day, above the 100 mcg upper limit for adults` (the larger of planned and taken). */
export function overLimitLine(total: {
  name: string;
  unit: string;
  planned: number;
  taken: number;
  ul: number | null;
}) {
  const amount = Math.max(total.planned, total.taken);
  return `${total.name}: ${formatAmount(amount)} ${total.unit} a day, above the ${formatAmount(total.ul ?? 0)} ${total.unit} upper limit for adults`;
}

export const TOTALS_MESSAGES = {
  title: "What's in your stack",
  disclaimer:
    "Upper limits are for healthy adults (NIH Office of Dietary Supplements). Not medical advice: ask your doctor or pharmacist.",
  empty: "Add what's in each supplement to see your daily totals.",
  emptyLink: "Add ingredients",
  failed: "Totals could not be loaded.",
  tooOld: "Only the last 366 days can be read",
} as const;
