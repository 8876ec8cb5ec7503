/**
 * An as-needed supplement on Today (issue 48): its count line (`2 of 3 today · next after 14:30`),
 * the warning its last dose earned, `−1` and `+1`. A `+1` over a limit asks first (`Take another
 * anyway?`, a dialog loaded only then: the dashboard's first load stays as it was).
 */
import { lazy, Suspense, useState } from "react";
import { countLine, oneMoreBreaksLimit, overLimitWarning, tooSoonWarning } from "../../lib/as-needed";
import { clockTime } from "../../lib/today-rules";
import { withCount } from "./as-needed-count";
import SyncNote from "./SyncNote";
import type { Row } from "./today-rows";
import type { SyncState } from "./useWaitingTicks";

const TakeAnotherDialog = lazy(() => import("./TakeAnotherDialog"));

export default function AsNeededRow({
  row,
  rowId,
  zone,
  sync,
  refusal,
  onCount,
}: {
  row: Row;
  rowId: string;
  zone: string;
  sync: SyncState;
  refusal?: string;
  /** The row with its new count, as shown until the server answers. */
  onCount: (next: Row) => void;
}) {
  // The question, once asked: kept mounted after it closes, so that the dialog gives focus back to `+1`.
  const [question, setQuestion] = useState<{ open: boolean; warning: string } | null>(null);
  const close = () => setQuestion((q) => q && { ...q, open: false });
  const label = row.amount ? `${row.name}, ${row.amount}` : row.name;
  const count = row.count ?? 0;
  const limits = row.limits ?? null;
  const state = { count, lastTakenAt: row.lastTakenAt ?? null, nextAllowedAt: row.nextAllowedAt ?? null };
  const line = countLine(state, limits, zone, Date.now());

  const setCount = (n: number) => onCount(withCount(row, n, Date.now(), zone));

  function plus() {
    const now = Date.now();
    if (!oneMoreBreaksLimit(state, now)) return setCount(count + 1);
    // What one more would be: over the day's limit, or sooner than the hours between.
    const max = limits?.maxPerDay ?? null;
    const next = state.nextAllowedAt ? Date.parse(state.nextAllowedAt) : now;
    const warning = max !== null && count + 1 > max ? overLimitWarning(max) : tooSoonWarning(clockTime(zone, next));
    setQuestion({ open: true, warning });
  }

  return (
    <li className="flex items-center gap-2 rounded-xl border border-slate-200 p-2.5" data-testid="dose-row">
      <div className="min-w-0 flex-1">
        <p id={`${rowId}-name`} className="user-text text-sm text-slate-900">
          {label}
        </p>
        {line && (
          <p className="text-xs text-slate-700" data-testid="as-needed-count">
            {line}
          </p>
        )}
        {row.warning && (
          <p className="mt-0.5 text-xs font-medium text-amber-900" data-testid="as-needed-warning">
            {row.warning}
          </p>
        )}
        {sync && <SyncNote id={`${rowId}-sync`} sync={sync} refusal={refusal} />}
      </div>
      {count > 0 && (
        <button
          type="button"
          className="btn btn-ghost btn-sm shrink-0 px-2.5"
          aria-label={`−1 ${label}`}
          onClick={() => setCount(count - 1)}
        >
          −1
        </button>
      )}
      <button
        type="button"
        className="btn btn-outline btn-sm shrink-0 px-2.5"
        aria-label={`+1 ${label}`}
        aria-describedby={sync ? `${rowId}-sync` : undefined}
        onClick={plus}
      >
        +1
      </button>
      {question !== null && (
        <Suspense fallback={null}>
          <TakeAnotherDialog
            open={question.open}
            name={row.name}
            warning={question.warning}
            onCancel={close}
            onConfirm={() => {
              close();
              setCount(count + 1);
            }}
          />
        </Suspense>
      )}
    </li>
  );
}
