/**
 * 'What's in your stack' (issue 47): the card, its disclaimer under it always, and without
 * ingredients yet how to add them (opening the first supplement's dialog). The totals themselves
 * (TotalsBody) are fetched and loaded once a supplement has ingredients, keeping them out of the
 * dashboard's first load (its 110 KB budget).
 */
import { useStore } from "@nanostores/react";
import { lazy, Suspense, useEffect, useState } from "react";
import { TOTALS_MESSAGES } from "../../lib/totals-words";
import type { CurrentUser } from "../../lib/types";
import { $dialog, $supplements, $supplementsLoaded } from "../../stores/supplements";

const TotalsBody = lazy(() => import("./TotalsBody"));

export default function TotalsCard({ user: _user }: { user: CurrentUser }) {
  const list = useStore($supplements);
  // The list's store is seeded by the list's island, which may hydrate first: until this one
  // has, it draws what the server drew (nothing but the heading), or hydration fails (React #418).
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const loaded = useStore($supplementsLoaded) && hydrated;
  const any = list.some((s) => (s.ingredients?.length ?? 0) > 0);
  const first = list[0];
  return (
    <section className="card p-4 sm:p-6" aria-labelledby="totals-heading" data-testid="totals-card">
      <h2 id="totals-heading" className="text-lg font-semibold text-slate-900">
        {TOTALS_MESSAGES.title}
      </h2>
      {any && hydrated && (
        <Suspense fallback={null}>
          <TotalsBody />
        </Suspense>
      )}
      {loaded && !any && (
        <p className="mt-2 text-sm text-slate-700" data-testid="totals-empty">
          {TOTALS_MESSAGES.empty}{" "}
          {first && (
            <button
              type="button"
              className="font-medium text-brand-800 underline underline-offset-2"
              onClick={() => $dialog.set({ kind: "edit", supplement: first })}
            >
              {TOTALS_MESSAGES.emptyLink}
            </button>
          )}
        </p>
      )}
      <p className="mt-3 text-xs text-slate-700" data-testid="totals-disclaimer">
        {TOTALS_MESSAGES.disclaimer}
      </p>
    </section>
  );
}
