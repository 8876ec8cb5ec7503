/**
 * Issue 14: the owner's insights, shared by the Insights card and the supplement rows (each
 * row with an affiliate link shows its 30-day clicks). The card loads when scrolled to, so a
 * premium list with links reads the clicks at once, and the card's first 30-day read takes that
 * answer; never polled.
 */
import { atom } from "nanostores";
import { api } from "../lib/api";
import type { InsightsAnswer, InsightsRange } from "../lib/insights";

/** Clicks per supplement id over the last 30 days (premium), once known. */
export const $linkClicks30 = atom<Record<number, number> | null>(null);

async function read(days: InsightsRange): Promise<InsightsAnswer> {
  const answer = await api.get<InsightsAnswer>(`/api/insights?days=${days}`);
  if (days === 30) $linkClicks30.set(Object.fromEntries(answer.links.map((l) => [l.supplementId, l.clicks])));
  return answer;
}

/** The rows' read of the last 30 days, until the card takes it. */
let early: Promise<InsightsAnswer> | null = null;

/** The 30-day clicks for the list's rows, read once, before the card is scrolled to. */
export function loadLinkClicks(): void {
  if (early || $linkClicks30.get()) return;
  early = read(30);
  early.catch(() => {
    early = null;
  });
}

export function loadInsights(days: InsightsRange): Promise<InsightsAnswer> {
  if (days === 30 && early) {
    const answer = early;
    early = null;
    return answer;
  }
  return read(days);
}
