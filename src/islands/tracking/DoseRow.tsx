/**
 * One dose on Today (issues 19, 40): its checkbox, Skip or Undo, and under its name the note
 * of its tick: `Pending` while it waits on this device, `Saved` once it reached the server,
 * `Not saved: …` when refused.
 */
import { AS_NEEDED, type IntakeStatus } from "../../lib/schedule";
import SyncNote from "./SyncNote";
import type { Row } from "./today-rows";
import type { SyncState } from "./useWaitingTicks";

export default function DoseRow({
  row,
  inputId,
  sync,
  refusal,
  onWrite,
}: {
  row: Row;
  inputId: string;
  sync: SyncState;
  refusal?: string;
  onWrite: (status: IntakeStatus | null) => void;
}) {
  const label = row.amount ? `${row.name}, ${row.amount}` : row.name;
  return (
    <li className="flex items-center gap-3 rounded-xl border border-slate-200 p-2.5" data-testid="dose-row">
      <input
        id={inputId}
        type="checkbox"
        className="size-5 shrink-0 accent-brand-700"
        checked={row.status === "taken"}
        aria-describedby={sync ? `${inputId}-sync` : undefined}
        onChange={(e) => onWrite(e.target.checked ? "taken" : null)}
      />
      <div className="min-w-0 flex-1">
        <label
          htmlFor={inputId}
          className={`user-text block text-sm ${row.status === "skipped" ? "text-slate-600 line-through" : "text-slate-900"}`}
        >
          {label}
        </label>
        {sync && <SyncNote id={`${inputId}-sync`} sync={sync} refusal={refusal} />}
      </div>
      {row.status === "skipped" && <span className="shrink-0 text-xs text-slate-700">Skipped</span>}
      {row.status === null && row.time !== AS_NEEDED && (
        <button
          type="button"
          className="btn btn-ghost btn-sm shrink-0"
          aria-label={`Skip ${label}`}
          onClick={() => onWrite("skipped")}
        >
          Skip
        </button>
      )}
      {row.status !== null && (
        <button
          type="button"
          className="btn btn-ghost btn-sm shrink-0"
          aria-label={`Undo ${label}`}
          onClick={() => onWrite(null)}
        >
          Undo
        </button>
      )}
    </li>
  );
}
