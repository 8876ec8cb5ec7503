import type { NutrientTotal } from "../../lib/totals";
import { overLimitLine } from "../../lib/totals-words";

/**
 * One warning per nutrient above its adult upper limit (issue 47), exactly:
 * `Vitamin D: 150 mcg a day, above the 100 mcg upper limit for adults`. Nothing when none is over.
 */
export default function OverLimitLines({ nutrients, testId }: { nutrients: readonly NutrientTotal[]; testId: string }) {
  const over = nutrients.filter((n) => n.over);
  if (over.length === 0) return null;
  return (
    <ul className="space-y-1 rounded-xl border border-amber-300 bg-amber-50 p-3" data-testid={testId}>
      {over.map((n) => (
        <li key={n.nutrient ?? n.name} className="text-sm font-medium text-amber-950">
          <span className="min-w-0 break-words">{overLimitLine(n)}</span>
        </li>
      ))}
    </ul>
  );
}
