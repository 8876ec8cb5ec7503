/**
 * The inside of 'What's in your stack' (issue 47), loaded once a supplement has ingredients: the
 * day's total per nutrient (name, planned a day, a bar against the adult upper limit), its
 * sources on tap, the over-the-limit warnings above. Information, not advice (docs/ingredients.md).
 */
import { useStore } from "@nanostores/react";
import { useEffect } from "react";
import { formatAmount } from "../../lib/strength";
import type { NutrientTotal } from "../../lib/totals";
import { TOTALS_MESSAGES } from "../../lib/totals-words";
import { $supplements } from "../../stores/supplements";
import { $totals, loadTotals } from "../../stores/totals";
import { $trackingChanges } from "../../stores/tracking";
import OverLimitLines from "./OverLimitLines";

function Row({ total }: { total: NutrientTotal }) {
  const percent = total.percentOfUl;
  const amount = `${formatAmount(total.planned)} ${total.unit}`;
  return (
    <li className="py-2">
      <details>
        <summary className="cursor-pointer list-none">
          <div className="flex items-baseline justify-between gap-2">
            <span className="user-text min-w-0 font-medium text-slate-900">{total.name}</span>
            <span className="shrink-0 text-sm text-slate-700">
              {amount} a day
              {total.taken > 0 && total.taken !== total.planned && ` · ${formatAmount(total.taken)} taken`}
            </span>
          </div>
          {total.ul !== null && percent !== null && (
            <div className="mt-1 flex items-center gap-2">
              <div
                className="h-2 flex-1 overflow-hidden rounded-full bg-slate-100"
                role="img"
                aria-label={`${percent}% of the ${formatAmount(total.ul)} ${total.unit} upper limit`}
              >
                <div
                  className={`h-full rounded-full ${total.over ? "bg-amber-600" : "bg-brand-600"}`}
                  style={{ width: `${Math.min(percent, 100)}%` }}
                />
              </div>
              <span className="w-12 shrink-0 text-right text-xs text-slate-700">{percent}%</span>
            </div>
          )}
        </summary>
        <ul className="mt-1 space-y-0.5 pl-3 text-sm text-slate-700">
          {total.sources.map((s) => (
            <li key={s.supplementId} className="user-text">
              {s.name}: {formatAmount(Math.max(s.planned, s.taken))} {total.unit}
            </li>
          ))}
        </ul>
      </details>
    </li>
  );
}

export default function TotalsBody() {
  const totals = useStore($totals)[""];
  const changes = useStore($trackingChanges);
  const list = useStore($supplements);
  useEffect(() => {
    void changes;
    void list;
    void loadTotals();
  }, [changes, list]);
  if (totals === "failed") return <p className="mt-2 text-sm text-slate-700">{TOTALS_MESSAGES.failed}</p>;
  if (!totals) return null;
  return (
    <>
      <div className="mt-3">
        <OverLimitLines nutrients={totals.nutrients} testId="totals-over-limit" />
      </div>
      <ul className="mt-2 divide-y divide-slate-100" data-testid="totals-rows">
        {totals.nutrients.map((n) => (
          <Row key={n.nutrient ?? n.name} total={n} />
        ))}
      </ul>
    </>
  );
}
