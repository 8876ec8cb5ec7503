import { useStore } from "@nanostores/react";
import { OFFLINE_MESSAGES } from "../lib/messages";
import { $online } from "../stores/network";

/** The dashboard's banner while the device is offline (issue 51): a polite live region, empty online. */
export default function OfflineBanner() {
  const online = useStore($online);
  return (
    <div role="status" data-testid="offline-banner">
      {!online && (
        <p className="mt-4 rounded-xl border border-amber-200 bg-amber-50 px-4 py-2.5 text-sm font-medium text-amber-900">
          {OFFLINE_MESSAGES.banner}
        </p>
      )}
    </div>
  );
}
