/**
 * Today's heading and day navigation (issues 19, 38, 51): `Today` or the day's long date, how
 * far back it is, `Offline · as of 08:14` when shown from a kept copy, and the arrows (7 days back).
 */
import { EDITABLE_DAYS } from "../../lib/schedule";
import { longDate } from "./today-rows";

export default function DayNav({
  shown,
  back,
  offline,
  onShow,
}: {
  shown: string;
  /** Days between the day shown and today (0: today). */
  back: number;
  /** The `Offline · as of` label, when the rows come from a kept copy. */
  offline: string | null;
  onShow: (step: -1 | 1) => void;
}) {
  const isToday = back === 0;
  return (
    <div className="flex items-start justify-between gap-2">
      <div className="min-w-0">
        <h2 id="today-heading" className="text-lg font-semibold text-slate-900">
          {isToday ? "Today" : longDate(shown)}
        </h2>
        <p className="text-sm text-slate-700" data-testid="today-date">
          <time dateTime={shown}>{isToday ? longDate(shown) : back === 1 ? "Yesterday" : `${back} days ago`}</time>
        </p>
        {offline && (
          <p className="badge mt-1 bg-slate-100" data-testid="today-offline">
            {offline}
          </p>
        )}
      </div>
      <div className="flex shrink-0 items-center gap-1">
        <button
          type="button"
          className="btn btn-outline btn-sm"
          aria-label="Previous day"
          disabled={back >= EDITABLE_DAYS}
          onClick={() => onShow(-1)}
        >
          <span aria-hidden="true">←</span>
        </button>
        <button
          type="button"
          className="btn btn-outline btn-sm"
          aria-label="Next day"
          disabled={back <= 0}
          onClick={() => onShow(1)}
        >
          <span aria-hidden="true">→</span>
        </button>
      </div>
    </div>
  );
}
