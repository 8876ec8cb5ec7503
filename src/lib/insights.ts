/**
 * Issue 14, shared by the server and the islands: the public page's affiliate wording, the
 * owner's two switches, the Insights ranges and the wire type of GET /api/insights.
 */
import { formatWeekday } from "./date-format";

/** The link text on the public page, and the plain-text label beside each link. */
export const VIEW_PRODUCT = "View Product";
export const PAID_LINK = "Paid link";
/** `rel` of every 'View Product' link (an affiliate link is a paid endorsement). */
export const AFFILIATE_REL = "sponsored nofollow noopener";

/** Above the list when at least one 'View Product' link shows (US FTC endorsement guides). */
export const affiliateDisclosure = (username: string) =>
  `Some links on this page are affiliate links: @${username} may earn a commission from purchases made through them.`;

/** The two switches of Edit Profile (PUT /api/profile, GET /api/auth/user). */
export const SHOW_NOTES_LABEL = "Show notes on my public profile";
export const SHOW_AFFILIATE_LINKS_LABEL = "Show affiliate links on my public profile";

/** GET /api/insights?days=: the ranges offered, and the default. */
export const INSIGHTS_RANGES = [7, 30, 90] as const;
export type InsightsRange = (typeof INSIGHTS_RANGES)[number];
export const DEFAULT_INSIGHTS_RANGE: InsightsRange = 30;
export const INSIGHTS_DAYS_MESSAGE = "Days must be 7, 30 or 90";

export interface InsightsDay {
  /** A UTC date, YYYY-MM-DD. */
  date: string;
  views: number;
  visitors: number;
  clicks: number;
}

/** The answer of GET /api/insights. */
export interface InsightsAnswer {
  /** First and last UTC date of the range (YYYY-MM-DD), `to` being today. */
  from: string;
  to: string;
  totals: { views: number; visitors: number; clicks: number };
  /** Every day of the range, oldest first, zero days included. */
  days: InsightsDay[];
  /** Premium: each supplement with an affiliate link, in the list's order (empty for free members). */
  links: { supplementId: number; name: string; clicks: number }[];
  /**
   * Issue 50 §3: copies made of the owner's supplements ('Copy this stack'): in total, per day
   * (every day of the range, zero days included) and per supplement copied in the range, in the
   * list's order. Who copied is not stored.
   */
  copies: {
    total: number;
    days: { date: string; copies: number }[];
    supplements: { supplementId: number; name: string; copies: number }[];
  };
}

const DAY_MS = 86_400_000;
let lastDay = { start: 0, text: "1970-01-01" };

/** The UTC date (YYYY-MM-DD) of an instant (a Date or ms), worked out once a day: views ask for it each. */
export function utcDate(at: Date | number): string {
  const ms = typeof at === "number" ? at : at.getTime();
  if (!(ms >= lastDay.start && ms < lastDay.start + DAY_MS)) {
    lastDay = { start: Math.floor(ms / DAY_MS) * DAY_MS, text: new Date(ms).toISOString().slice(0, 10) };
  }
  return lastDay.text;
}

/** The UTC date `days` days after (or before, when negative) `date` (YYYY-MM-DD). */
export function addDays(date: string, days: number): string {
  const at = new Date(`${date}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return utcDate(at);
}

/** The Insights card's one-sentence text summary of the chart (for everyone, screen readers included). */
export function insightsSummary(answer: InsightsAnswer, premium: boolean): string {
  const days = answer.days.length;
  const busiest = answer.days.reduce<InsightsDay | null>((top, d) => (d.views > (top?.views ?? 0) ? d : top), null);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  let text = `${plural(answer.totals.views, "profile view")} from ${plural(answer.totals.visitors, "visitor")} in the last ${days} days`;
  if (premium) text += `, ${plural(answer.totals.clicks, "link click")}`;
  text += ".";
  if (busiest) text += ` Busiest day: ${formatWeekday(busiest.date)} (${plural(busiest.views, "view")}).`;
  return text;
}
