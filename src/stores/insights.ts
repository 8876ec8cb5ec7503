/**
 * Issue 14: the owner's insights, shared by the Insights card and the supplement rows (each
 * row with an affiliate link shows its 30-day clicks). Loaded once by the card; never polled.
 */
import { atom } from "nanostores";
import { api } from "../lib/api";
import type { InsightsAnswer, InsightsRange } from "../lib/insights";

/** Clicks per supplement id over the last 30 days (premium), once known. */
export const $linkClicks30 = atom<Record<number, number> | null>(null);

export async function loadInsights(days: InsightsRange): Promise<InsightsAnswer> {
  const answer = await api.get<InsightsAnswer>(`/api/insights?days=${days}`);
  if (days === 30) $linkClicks30.set(Object.fromEntries(answer.links.map((l) => [l.supplementId, l.clicks])));
  return answer;
}
