import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import { OFFLINE_MESSAGES } from "../lib/messages";
import { stampPrintDates } from "../lib/print";
import { printedOn, SHARING_TEXT } from "../lib/sharing";
import type { CurrentUser, Supplement } from "../lib/types";
import { $online, needsConnection } from "../stores/network";
import { $dialog, seedSupplements } from "../stores/supplements";
import { $user, seedUser } from "../stores/user";

/**
 * 'Welcome back, @username' with the Add Item and Share Profile buttons. Add Item is always
 * here, at the top (issue 51: on an empty dashboard it is the first run's way in, visible
 * without scrolling on a 320 × 640 phone); the empty list has none of its own.
 */
export default function DashboardHeader({
  user: initialUser,
  supplements,
}: {
  user: CurrentUser;
  supplements?: Supplement[] | null;
}) {
  seedUser(initialUser);
  seedSupplements(supplements ?? null);
  const user = useStore($user) ?? initialUser;
  const online = useStore($online);
  const offline = needsConnection(online);
  // The Print button exists only once JavaScript runs (issue 16); before any print the date is the reader's.
  const [canPrint, setCanPrint] = useState(false);
  useEffect(() => {
    setCanPrint(true);
    window.addEventListener("beforeprint", stampPrintDates);
    return () => window.removeEventListener("beforeprint", stampPrintDates);
  }, []);
  return (
    <>
      {/* While offline (issue 51): a polite live region, empty online. */}
      <div role="status">{!online && <p className="mt-4 rounded bg-amber-100 p-2">{OFFLINE_MESSAGES.banner}</p>}</div>
      <div className="flex flex-col gap-3 py-4 sm:flex-row sm:items-end sm:justify-between md:gap-4 md:py-8">
        <div className="min-w-0">
          <h1 className="user-text text-xl font-bold tracking-tight text-slate-900 sm:text-3xl">
            <span data-print="hide">Welcome back, </span>
            {user.username ? `@${user.username}` : <span data-print="hide">there</span>}
          </h1>
          <p className="mt-1 hidden text-slate-700 md:block" data-print="hide">
            Manage your supplement stack and share it with the world.
          </p>
          <p className="print-only" data-print-date suppressHydrationWarning>
            {printedOn(new Date())}
          </p>
        </div>
        <div className="flex flex-wrap gap-2 sm:shrink-0">
          {canPrint && (
            // Phones keep the row to Share and Add (Print is a desk's task; Ctrl+P prints the same).
            <button type="button" className="btn btn-ghost hidden sm:inline-flex" onClick={() => window.print()}>
              {SHARING_TEXT.print}
            </button>
          )}
          <button
            type="button"
            className="btn btn-outline flex-1 sm:flex-none"
            {...offline}
            onClick={() => $dialog.set({ kind: "share" })}
          >
            <svg
              aria-hidden="true"
              viewBox="0 0 24 24"
              className="size-4"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              strokeLinecap="round"
            >
              <path d="M4 12v7a1 1 0 0 0 1 1h14a1 1 0 0 0 1-1v-7M16 6l-4-4-4 4M12 2v13" />
            </svg>
            Share Profile
          </button>
          <button
            type="button"
            className="btn btn-primary flex-1 sm:flex-none"
            {...offline}
            onClick={() => $dialog.set({ kind: "add" })}
          >
            <svg
              aria-hidden="true"
              viewBox="0 0 24 24"
              className="size-4"
              fill="none"
              stroke="currentColor"
              strokeWidth="2.5"
              strokeLinecap="round"
            >
              <path d="M12 5v14M5 12h14" />
            </svg>
            Add Item
          </button>
        </div>
      </div>
    </>
  );
}
