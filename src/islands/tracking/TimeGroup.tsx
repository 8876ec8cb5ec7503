/**
 * One time of day on Today (issues 19, 38): its heading, `Take all` while two or more of its
 * doses are open (As needed never), `Undo` right after a Take all, and its rows.
 */
import { lazy, Suspense } from "react";
import { changeKey } from "../../lib/offline-queue";
import { AS_NEEDED, type IntakeTime, TIME_LABELS } from "../../lib/schedule";
import DoseRow from "./DoseRow";
import type { Row } from "./today-rows";
import type { useTodayWrites } from "./useTodayWrites";
import type { useWaitingTicks } from "./useWaitingTicks";

// In the browser, loaded only for a stack with an as-needed supplement (the dashboard's 110 KB
// first load): until it has arrived, React keeps the row the server drew (a Suspense boundary
// whose server HTML waits to be hydrated). The server draws it at once: a lazy component there
// would send the fallback, and the browser would throw the row away (React #419) and run an
// inline script the page's CSP refuses.
const AsNeededRow = import.meta.env.SSR ? (await import("./AsNeededRow")).default : lazy(() => import("./AsNeededRow"));

export default function TimeGroup({
  time,
  rows,
  shown,
  ticks,
  writes,
  zone,
}: {
  time: IntakeTime;
  rows: Row[];
  shown: string;
  ticks: Pick<ReturnType<typeof useWaitingTicks>, "syncOf" | "refusal">;
  writes: ReturnType<typeof useTodayWrites>;
  /** The user's zone (as-needed rows' times). */
  zone: string;
}) {
  const label = TIME_LABELS[time];
  const open = time === AS_NEEDED ? [] : rows.filter((r) => r.status === null);
  const undo = open.length === 0 ? writes.undoable(shown, time) : [];
  return (
    <div className="mt-3">
      <div className="flex min-h-8 items-center justify-between gap-2">
        <h3 className="text-sm font-semibold tracking-wide text-slate-700 uppercase">{label}</h3>
        {open.length >= 2 ? (
          <button
            type="button"
            id={`take-all-${time}`}
            className="btn btn-outline btn-sm"
            aria-label={`Take all: ${label}`}
            onClick={() =>
              void writes.writeGroup(
                shown,
                time,
                open.map((r) => r.key),
                "taken",
              )
            }
          >
            Take all
          </button>
        ) : undo.length > 0 ? (
          <button
            type="button"
            id={`take-all-${time}`}
            className="btn btn-ghost btn-sm"
            aria-label={`Undo take all: ${label}`}
            onClick={() => void writes.writeGroup(shown, time, undo, null)}
          >
            Undo
          </button>
        ) : null}
      </div>
      <ul className="mt-1.5 space-y-2">
        {rows.map((row) => {
          const key = changeKey(row);
          const inputId = `dose-${shown}-${row.key.replace("/", "-")}`;
          if (row.time === AS_NEEDED) {
            return (
              <Suspense key={row.key} fallback={<li className="min-h-14 rounded-xl border border-slate-200" />}>
                <AsNeededRow
                  row={row}
                  rowId={inputId}
                  zone={zone}
                  sync={ticks.syncOf(key)}
                  refusal={ticks.refusal(key)}
                  onCount={(next) => void writes.writeCount(next)}
                />
              </Suspense>
            );
          }
          return (
            <DoseRow
              key={row.key}
              row={row}
              inputId={inputId}
              sync={ticks.syncOf(key)}
              refusal={ticks.refusal(key)}
              onWrite={(status) => void writes.write(row, status)}
            />
          );
        })}
      </ul>
    </div>
  );
}
