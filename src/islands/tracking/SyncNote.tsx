/** A Today row's note on a tick that waited: `Pending`, `Saved`, or `Not saved: …` (issue 40). */
import { OFFLINE_MESSAGES } from "../../lib/messages";
import type { SyncState } from "./useWaitingTicks";

export default function SyncNote({
  id,
  sync,
  refusal,
}: {
  id: string;
  sync: Exclude<SyncState, null>;
  refusal?: string;
}) {
  if (sync === "pending") {
    return (
      <span id={id} className="badge mt-1 bg-amber-100 text-amber-900" data-testid="dose-sync">
        <span aria-hidden="true">{OFFLINE_MESSAGES.pending}</span>
        <span className="sr-only">{OFFLINE_MESSAGES.pendingLong}</span>
      </span>
    );
  }
  if (sync === "saved") {
    return (
      <span id={id} className="mt-0.5 block text-xs text-brand-800" data-testid="dose-sync">
        {OFFLINE_MESSAGES.saved}
      </span>
    );
  }
  return (
    <span id={id} className="mt-0.5 block text-xs text-red-800" data-testid="dose-sync">
      {OFFLINE_MESSAGES.notSaved}: {refusal}
    </span>
  );
}
