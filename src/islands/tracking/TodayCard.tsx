/**
 * The dashboard's Today card (issue 19): the doses of the day it shows, ticked, skipped and
 * undone optimistically. A write names the day of the row ticked (never 'now'); a page left
 * open past midnight keeps writing to that day and, when next focused or made visible, asks
 * the server what day it is for the user (their zone, the server's clock) and moves to it.
 * Arrows go back up to 7 days.
 */
import { useStore } from "@nanostores/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { api, errorMessage } from "../../lib/api";
import { addDays, dateIn, daysBetween } from "../../lib/dates";
import {
  AS_NEEDED,
  DOSE_TIMES,
  EDITABLE_DAYS,
  formatDose,
  type IntakeStatus,
  TIME_LABELS,
  type TodayJson,
} from "../../lib/schedule";
import { notify } from "../../lib/toast";
import type { CurrentUser } from "../../lib/types";
import { $supplements } from "../../stores/supplements";
import { trackingChanged } from "../../stores/tracking";
import { $user, seedUser } from "../../stores/user";

const browserZone = () => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || null;
  } catch {
    return null;
  }
};

function longDate(date: string): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Intl.DateTimeFormat("en-GB", {
    weekday: "long",
    day: "numeric",
    month: "long",
    timeZone: "UTC",
  }).format(new Date(Date.UTC(y, m - 1, d)));
}

interface Row {
  key: string;
  /** The day the row belongs to: a write names it, whatever the card shows by then. */
  date: string;
  supplementId: number;
  name: string;
  amount: string;
  time: string;
  status: IntakeStatus | null;
}

function rowsOf(day: TodayJson): Row[] {
  return [
    ...day.doses.map((d) => ({
      key: `${d.supplementId}/${d.time}`,
      date: day.date,
      supplementId: d.supplementId,
      name: d.name,
      amount: formatDose(d.doseAmount, d.quantityType),
      time: d.time as string,
      status: d.status,
    })),
    ...day.asNeeded.map((d) => ({
      key: `${d.supplementId}/${AS_NEEDED}`,
      date: day.date,
      supplementId: d.supplementId,
      name: d.name,
      amount: formatDose(d.doseAmount, d.quantityType),
      time: AS_NEEDED,
      status: d.status,
    })),
  ];
}

export default function TodayCard({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  const list = useStore($supplements);
  const zone = user.timeZone;
  const todayNow = useCallback(() => dateIn(zone ?? browserZone() ?? "UTC", Date.now()), [zone]);
  const [today, setToday] = useState(todayNow);
  const [shown, setShown] = useState(today);
  // The rows of one day; shown only while that day is the one shown (a loading card between).
  const [loaded, setLoaded] = useState<{ date: string; rows: Row[] } | null>(null);
  const rows = loaded?.date === shown ? loaded.rows : null;
  const loadSeq = useRef(0);
  const writes = useRef(0);
  const todayRef = useRef(today);
  todayRef.current = today;
  const shownRef = useRef(shown);
  shownRef.current = shown;

  const load = useCallback(async (date: string) => {
    const seq = ++loadSeq.current;
    try {
      const day = await api.get<TodayJson>(`/api/today?date=${date}`);
      if (seq === loadSeq.current) setLoaded({ date: day.date, rows: rowsOf(day) });
    } catch (error) {
      if (seq === loadSeq.current) notify.error(errorMessage(error, "Failed to load today's doses"));
    }
  }, []);

  // The first visit from a browser sets the user's zone from it (null until then).
  useEffect(() => {
    if (user.timeZone !== null || !user.username) return;
    const detected = browserZone();
    if (!detected) return;
    api
      .put<CurrentUser>("/api/profile", { timeZone: detected })
      .then((updated) => $user.set(updated))
      .catch(() => {});
  }, [user.timeZone, user.username]);

  // When the zone is known or changes, 'today' is recomputed; a page showing today follows it.
  useEffect(() => {
    const next = todayNow();
    setToday((previous) => {
      setShown((current) => (current === previous ? next : current));
      return next;
    });
  }, [todayNow]);

  // Midnight: on focus or when made visible, the server says what day it is for the user now
  // (GET /api/today without a date: their zone, the server's clock, a zone changed elsewhere).
  // A new day moves the card to it; the same day refreshes the rows when today is shown.
  useEffect(() => {
    const check = async () => {
      if (document.visibilityState === "hidden") return;
      const [seq, written] = [loadSeq.current, writes.current];
      let day: TodayJson;
      try {
        day = await api.get<TodayJson>("/api/today");
      } catch {
        return; // the next focus asks again
      }
      const current = $user.get();
      if (current?.timeZone && current.timeZone !== day.timeZone) $user.set({ ...current, timeZone: day.timeZone });
      if (day.date !== todayRef.current) {
        todayRef.current = day.date;
        setToday(day.date);
        setShown(day.date);
      } else if (shownRef.current === day.date && seq === loadSeq.current && written === writes.current) {
        setLoaded({ date: day.date, rows: rowsOf(day) });
      }
    };
    const onFocus = () => void check();
    window.addEventListener("focus", onFocus);
    document.addEventListener("visibilitychange", onFocus);
    return () => {
      window.removeEventListener("focus", onFocus);
      document.removeEventListener("visibilitychange", onFocus);
    };
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the list's changes (add, edit, delete, reorder) reload the day
  useEffect(() => {
    void load(shown);
  }, [shown, load, list]);

  async function write(row: Row, status: IntakeStatus | null) {
    if (!rows) return;
    writes.current += 1;
    const before = rows;
    // The row's own day, never 'now' nor what the card may show by the time this is sent.
    const { date } = row;
    setLoaded({ date, rows: rows.map((r) => (r.key === row.key ? { ...r, status } : r)) });
    const path = `/api/intakes/${date}/${row.supplementId}/${row.time}`;
    try {
      if (status === null) await api.delete(path);
      else await api.put(path, { status });
      trackingChanged();
    } catch (error) {
      if (date === shownRef.current) setLoaded({ date, rows: before });
      notify.error(errorMessage(error, "Failed to save your change"));
    }
  }

  const back = daysBetween(shown, today);
  const due = rows?.filter((r) => r.time !== AS_NEEDED) ?? [];
  const taken = due.filter((r) => r.status === "taken").length;
  const groups = [...DOSE_TIMES, AS_NEEDED].map((time) => ({
    time,
    rows: (rows ?? []).filter((r) => r.time === time),
  }));

  return (
    <section className="card p-4 sm:p-6" aria-labelledby="today-heading" data-testid="today-card">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="min-w-0">
          <h2 id="today-heading" className="text-lg font-semibold text-slate-900">
            Today
          </h2>
          <p className="text-sm text-slate-700" data-testid="today-date">
            <time dateTime={shown}>{longDate(shown)}</time>
          </p>
        </div>
        <div className="flex items-center gap-1">
          <button
            type="button"
            className="btn btn-outline btn-sm"
            aria-label="Previous day"
            disabled={back >= EDITABLE_DAYS}
            onClick={() => setShown(addDays(shown, -1))}
          >
            <span aria-hidden="true">←</span>
          </button>
          <button
            type="button"
            className="btn btn-outline btn-sm"
            aria-label="Next day"
            disabled={back <= 0}
            onClick={() => setShown(addDays(shown, 1))}
          >
            <span aria-hidden="true">→</span>
          </button>
        </div>
      </div>
      {rows === null ? (
        <div className="mt-4 h-24 animate-pulse rounded-xl bg-slate-100" role="status">
          <span className="sr-only">Loading today</span>
        </div>
      ) : rows.length === 0 ? (
        <p className="mt-4 rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-slate-700">
          Nothing scheduled today
        </p>
      ) : (
        <>
          {due.length > 0 && (
            <div className="mt-4">
              <p className="text-sm font-medium text-slate-800" id="today-progress-label">
                {taken} of {due.length} taken
              </p>
              <div
                className="mt-1.5 h-2 overflow-hidden rounded-full bg-slate-200"
                role="progressbar"
                aria-labelledby="today-progress-label"
                aria-valuemin={0}
                aria-valuemax={due.length}
                aria-valuenow={taken}
              >
                <div
                  className="h-full bg-brand-600 transition-[width]"
                  style={{ width: `${(taken / due.length) * 100}%` }}
                />
              </div>
            </div>
          )}
          {groups
            .filter((g) => g.rows.length > 0)
            .map((group) => (
              <div key={group.time} className="mt-4">
                <h3 className="text-sm font-semibold tracking-wide text-slate-700 uppercase">
                  {TIME_LABELS[group.time as keyof typeof TIME_LABELS]}
                </h3>
                <ul className="mt-2 space-y-2">
                  {group.rows.map((row) => {
                    const label = row.amount ? `${row.name}, ${row.amount}` : row.name;
                    const inputId = `dose-${shown}-${row.key.replace("/", "-")}`;
                    return (
                      <li
                        key={row.key}
                        className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-xl border border-slate-200 p-2.5"
                        data-testid="dose-row"
                      >
                        <input
                          id={inputId}
                          type="checkbox"
                          className="size-5 shrink-0 accent-brand-700"
                          checked={row.status === "taken"}
                          onChange={(e) => void write(row, e.target.checked ? "taken" : null)}
                        />
                        <label
                          htmlFor={inputId}
                          className={`user-text min-w-0 flex-1 basis-40 text-sm ${row.status === "skipped" ? "text-slate-600 line-through" : "text-slate-900"}`}
                        >
                          {label}
                        </label>
                        {row.status === "skipped" && <span className="text-xs text-slate-700">Skipped</span>}
                        {row.status === null && row.time !== AS_NEEDED && (
                          <button
                            type="button"
                            className="btn btn-ghost btn-sm"
                            aria-label={`Skip ${label}`}
                            onClick={() => void write(row, "skipped")}
                          >
                            Skip
                          </button>
                        )}
                        {row.status !== null && (
                          <button
                            type="button"
                            className="btn btn-ghost btn-sm"
                            aria-label={`Undo ${label}`}
                            onClick={() => void write(row, null)}
                          >
                            Undo
                          </button>
                        )}
                      </li>
                    );
                  })}
                </ul>
              </div>
            ))}
        </>
      )}
    </section>
  );
}
