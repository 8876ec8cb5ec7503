/**
 * The calendar feed (issue 50 §1): `Add to your calendar` turns it on and shows its address (an
 * `https://` one to paste, a `webcal://` link that opens the device's calendar app, `Copy`);
 * `Hide supplement names`, `Reset address` (the old one stops at once) and `Turn off`. Off by
 * default: the feed is health data, the owner's only (docs/calendar.md).
 */
import { useCallback, useEffect, useId, useState } from "react";
import { api, errorMessage } from "../../lib/api";
import type { CalendarJson } from "../../lib/calendar";
import { notify } from "../../lib/toast";
import { SettingsCard } from "./parts";

export const CALENDAR_TOASTS = {
  on: "Calendar feed on",
  off: "Calendar feed off",
  saved: "Calendar saved",
  reset: "New address made: the old one no longer works",
  copied: "Address copied",
  copyFailed: "Could not copy the address. Please copy it from the box.",
} as const;

/** The same address for calendar apps that subscribe through `webcal:` (Apple Calendar, Outlook). */
export const webcalOf = (url: string) => url.replace(/^https?:\/\//, "webcal://");

type Busy = "on" | "off" | "names" | "reset" | null;

export default function CalendarCard() {
  const id = useId();
  const [feed, setFeed] = useState<CalendarJson | null>(null);
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState<Busy>(null);

  const load = useCallback(async () => {
    try {
      setFeed(await api.get<CalendarJson>("/api/calendar"));
      setFailed(false);
    } catch {
      setFailed(true);
    }
  }, []);
  useEffect(() => void load(), [load]);

  async function change(
    kind: Exclude<Busy, null>,
    request: () => Promise<CalendarJson>,
    done: string,
    failure: string,
  ) {
    setBusy(kind);
    try {
      setFeed(await request());
      notify.success(done);
    } catch (error) {
      notify.error(errorMessage(error, failure));
      await load();
    } finally {
      setBusy(null);
    }
  }

  async function copy(url: string) {
    try {
      await navigator.clipboard.writeText(url);
      notify.success(CALENDAR_TOASTS.copied);
    } catch {
      notify.error(CALENDAR_TOASTS.copyFailed);
    }
  }

  return (
    <SettingsCard
      id={`${id}-calendar`}
      title="Calendar"
      description="Your doses in Google Calendar, Apple Calendar or Outlook, as a calendar you subscribe to."
    >
      {failed && <p className="text-sm text-red-700">Could not load your calendar feed. Please reload the page.</p>}
      {!feed && !failed && <p className="text-sm text-slate-600">Loading…</p>}
      {feed && !feed.enabled && (
        <div className="space-y-3">
          <p className="text-sm text-slate-700">
            Each part of the day with something due becomes an event, from a week back to a month ahead, with what you
            took and your refill dates. Only someone with the address can read it.
          </p>
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy !== null}
            onClick={() =>
              void change(
                "on",
                () => api.put<CalendarJson>("/api/calendar", { enabled: true }),
                CALENDAR_TOASTS.on,
                "Failed to turn on the calendar feed",
              )
            }
          >
            {busy === "on" ? "Adding..." : "Add to your calendar"}
          </button>
        </div>
      )}
      {feed?.enabled && feed.url && (
        <div className="space-y-4">
          <div>
            <label htmlFor={`${id}-url`} className="field-label">
              Calendar address
            </label>
            <div className="flex flex-col gap-2 sm:flex-row">
              <input
                id={`${id}-url`}
                className="field-input min-w-0 flex-1 font-mono text-sm"
                readOnly
                value={feed.url}
                aria-describedby={`${id}-url-hint`}
                onFocus={(e) => e.currentTarget.select()}
              />
              <div className="flex flex-wrap gap-2">
                <button type="button" className="btn btn-outline" onClick={() => void copy(feed.url ?? "")}>
                  Copy
                </button>
                <a className="btn btn-outline" href={webcalOf(feed.url)}>
                  Open in calendar app
                </a>
              </div>
            </div>
            <p id={`${id}-url-hint`} className="mt-1 text-sm text-slate-600">
              In Google Calendar: Other calendars, +, From URL, and paste it. Google Calendar refreshes a subscription
              every few hours; Apple Calendar and Outlook more often. Keep the address to yourself: anyone who has it
              can read your doses.
            </p>
          </div>
          <label className="flex items-center gap-3 text-sm text-slate-800">
            <input
              type="checkbox"
              className="size-5"
              checked={feed.hideNames}
              disabled={busy !== null}
              aria-describedby={`${id}-names-hint`}
              onChange={(e) => {
                const hideNames = e.target.checked;
                // The switch moves at once; a failed save puts it back (the load after the error).
                setFeed({ ...feed, hideNames });
                void change(
                  "names",
                  () => api.put<CalendarJson>("/api/calendar", { hideNames }),
                  CALENDAR_TOASTS.saved,
                  "Failed to save your calendar",
                );
              }}
            />
            Hide supplement names
          </label>
          <p id={`${id}-names-hint`} className="-mt-2 ml-8 text-sm text-slate-600">
            Events then say "Morning: 2 supplements", for a calendar others can see.
          </p>
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              className="btn btn-outline"
              disabled={busy !== null}
              onClick={() =>
                void change(
                  "reset",
                  () => api.post<CalendarJson>("/api/calendar/reset"),
                  CALENDAR_TOASTS.reset,
                  "Failed to reset the address",
                )
              }
            >
              {busy === "reset" ? "Resetting..." : "Reset address"}
            </button>
            <button
              type="button"
              className="btn btn-outline"
              disabled={busy !== null}
              onClick={() =>
                void change(
                  "off",
                  () => api.put<CalendarJson>("/api/calendar", { enabled: false }),
                  CALENDAR_TOASTS.off,
                  "Failed to turn off the calendar feed",
                )
              }
            >
              {busy === "off" ? "Turning off..." : "Turn off"}
            </button>
          </div>
        </div>
      )}
    </SettingsCard>
  );
}
