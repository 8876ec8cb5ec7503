/**
 * The day's totals (issue 47), shared by the 'What's in your stack' card and Today's warning:
 * one request per date, read again after a tick (the tracking counter) or a change to the list.
 */
import { atom } from "nanostores";
import { api } from "../lib/api";
import type { TotalsJson } from "../lib/totals";

/** Totals by date; `failed` when the last read of that date did not answer. */
export const $totals = atom<Record<string, TotalsJson | "failed">>({});

const reads = new Map<string, Promise<void>>();

/** Reads `date`'s totals (today when absent, stored under the answer's date), at most one read at a time per date. */
export function loadTotals(date?: string): Promise<void> {
  const key = date ?? "";
  const running = reads.get(key);
  if (running) return running;
  const read = api
    .get<TotalsJson>(date ? `/api/stack/totals?date=${date}` : "/api/stack/totals")
    .then((totals) => {
      $totals.set({ ...$totals.get(), [totals.date]: totals, ...(date ? {} : { "": totals }) });
    })
    .catch(() => {
      $totals.set({ ...$totals.get(), [key]: "failed" });
    })
    .finally(() => reads.delete(key));
  reads.set(key, read);
  return read;
}
