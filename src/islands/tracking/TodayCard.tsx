/**
 * The dashboard's Today card (issues 19, 38, 40): the doses of the day it shows, ticked,
 * skipped and undone optimistically; `Take all` per time of day; `All done for today`. A write
 * names the day of its row (never 'now') and the time it was made; without a network it waits
 * on this device, shown `Pending`, and is sent on load, `online` and when the page is shown
 * again; a day not cached is planned from the list's schedules. Arrows go back 7 days. See
 * docs/daily-use.md and docs/offline.md.
 */
import { useStore } from "@nanostores/react";
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { ApiError, api, errorMessage } from "../../lib/api";
import { addDays, dateIn, daysBetween, isoWeekday } from "../../lib/dates";
import { dosePhrase } from "../../lib/dose";
import { AFFILIATE_REL } from "../../lib/insights";
import { OFFLINE_MESSAGES } from "../../lib/messages";
import { changeKey, claimOfflineData, type QueuedChange, queueChange, queuedChanges } from "../../lib/offline-queue";
import { flushQueue, type SendResult, sendChange } from "../../lib/offline-sync";
import {
  AS_NEEDED,
  DOSE_TIMES,
  dueOn,
  EDITABLE_DAYS,
  type IntakeStatus,
  type IntakeTime,
  TIME_LABELS,
  type TodayJson,
} from "../../lib/schedule";
import { PLUS_ONE_PACK, stockLine } from "../../lib/stock";
import { notify } from "../../lib/toast";
import type { CurrentUser, Supplement } from "../../lib/types";
import { $supplements, addPack, refreshStock } from "../../stores/supplements";
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
  time: IntakeTime;
  status: IntakeStatus | null;
}

/** The last Take all of a group, for its one-step Undo. */
interface TakenGroup {
  date: string;
  time: IntakeTime;
  keys: string[];
}

function rowsOf(day: TodayJson): Row[] {
  return [
    ...day.doses.map((d) => ({
      key: `${d.supplementId}/${d.time}`,
      date: day.date,
      supplementId: d.supplementId,
      name: d.name,
      amount: d.doseAmount == null ? "" : dosePhrase(d.doseAmount, d.quantityType),
      time: d.time as IntakeTime,
      status: d.status,
    })),
    ...day.asNeeded.map((d) => ({
      key: `${d.supplementId}/${AS_NEEDED}`,
      date: day.date,
      supplementId: d.supplementId,
      name: d.name,
      amount: d.doseAmount == null ? "" : dosePhrase(d.doseAmount, d.quantityType),
      time: AS_NEEDED as IntakeTime,
      status: d.status,
    })),
  ];
}

/**
 * A day no answer was cached for, with no network (after midnight, say): its doses planned
 * from the list's current schedules, nothing logged (waiting ticks are laid over it).
 */
function plannedDay(date: string, list: Supplement[]): Row[] {
  const row = (s: Supplement, time: IntakeTime): Row => ({
    key: `${s.id}/${time}`,
    date,
    supplementId: s.id,
    name: s.name,
    amount: s.doseAmount == null ? "" : dosePhrase(s.doseAmount, s.quantityType),
    time,
    status: null,
  });
  const due = dueOn(list, isoWeekday(date));
  return [...due.doses.map((d) => row(d.item, d.time)), ...due.asNeeded.map((s) => row(s, AS_NEEDED))];
}

/** Under a row's name: its tick waits on this device, reached the server, or was refused. */
function SyncNote({ id, sync, refusal }: { id: string; sync: "pending" | "saved" | "refused"; refusal?: string }) {
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

const isOffline = (error: unknown) => error instanceof ApiError && error.status === 0;

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
  const loadedRows = loaded?.date === shown ? loaded.rows : null;
  const [takenGroup, setTakenGroup] = useState<TakenGroup | null>(null);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const loadSeq = useRef(0);
  const writes = useRef(0);
  const todayRef = useRef(today);
  todayRef.current = today;
  const shownRef = useRef(shown);
  shownRef.current = shown;
  const listRef = useRef(list);
  listRef.current = list;
  // Ticks waiting on this device (by changeKey), those that waited and are now saved, and
  // the rows whose waiting tick the server refused.
  const [pending, setPending] = useState<Record<string, QueuedChange>>({});
  const [synced, setSynced] = useState<ReadonlySet<string>>(new Set());
  const [refused, setRefused] = useState<Record<string, string>>({});
  const [allSaved, setAllSaved] = useState(false);
  // The day's rows with this device's waiting ticks laid over what the server (or cache) said.
  const rows =
    loadedRows?.map((r) => {
      const waiting = pending[changeKey(r)];
      return waiting ? { ...r, status: waiting.status } : r;
    }) ?? null;
  const waited = useRef(new Set<string>());
  const [, waitedChanged] = useReducer((n: number) => n + 1, 0);

  /** The day's rows from the server (or the worker's copy); `quiet`: a failed read says nothing. */
  const load = useCallback(async (date: string, quiet = false) => {
    const seq = ++loadSeq.current;
    try {
      const day = await api.get<TodayJson>(`/api/today?date=${date}`);
      if (seq === loadSeq.current) setLoaded({ date: day.date, rows: rowsOf(day) });
    } catch (error) {
      if (seq !== loadSeq.current) return;
      if (isOffline(error)) setLoaded({ date, rows: plannedDay(date, listRef.current) });
      else if (!quiet) notify.error(errorMessage(error, "Failed to load today's doses"));
    }
  }, []);

  /** What a send came to: the row saved, kept waiting, or refused (and put back as it was). */
  const settle = useCallback(
    (result: SendResult) => {
      const { change } = result;
      const key = change.key;
      if (result.kind === "waiting") {
        setAllSaved(false);
        waited.current.add(key);
        waitedChanged();
        return;
      }
      setPending((current) => {
        if (current[key]?.tickedAt !== change.tickedAt) return current;
        const { [key]: _sent, ...rest } = current;
        return rest;
      });
      const wasWaiting = waited.current.delete(key);
      if (result.kind === "saved") {
        if (wasWaiting) setSynced((current) => new Set(current).add(key));
        if (wasWaiting && waited.current.size === 0) setAllSaved(true);
        // What the server keeps: this change, or a later one made elsewhere.
        const { answer } = result;
        const status = answer && !answer.applied ? answer.status : change.status;
        setLoaded((day) =>
          day && day.date === change.date
            ? { ...day, rows: day.rows.map((r) => (changeKey(r) === key ? { ...r, status } : r)) }
            : day,
        );
        trackingChanged();
        void refreshStock();
        return;
      }
      if (result.status === 404) notify.error(OFFLINE_MESSAGES.deleted);
      else notify.error(errorMessage(result.error, "Failed to save your change"));
      if (wasWaiting && result.status !== 404) {
        setRefused((current) => ({ ...current, [key]: errorMessage(result.error, "Failed to save your change") }));
      }
      // The server's state again (a day that left the window cannot be read: the note stays).
      if (change.date === shownRef.current) void load(change.date, true);
    },
    [load],
  );

  /** Sends what waits on this device (on load, when back online, when the page is shown). */
  const flush = useCallback(() => {
    void flushQueue(user.id, settle).catch(() => undefined);
  }, [user.id, settle]);

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        await claimOfflineData(user.id);
        const waiting = await queuedChanges(user.id);
        if (!live) return;
        for (const change of waiting) waited.current.add(change.key);
        setPending(Object.fromEntries(waiting.map((c) => [c.key, c])));
      } catch {
        return; // no IndexedDB here: ticks are sent at once, as before
      }
      flush();
    })();
    const onVisible = () => {
      if (document.visibilityState === "visible") flush();
    };
    window.addEventListener("online", flush);
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      live = false;
      window.removeEventListener("online", flush);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [user.id, flush]);

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
        // No network: this device's clock says whether a new day began; the next focus asks again.
        const local = todayNow();
        if (local !== todayRef.current) {
          todayRef.current = local;
          setToday(local);
          setShown(local);
        }
        return;
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
  }, [todayNow]);

  // The list's changes (add, edit, delete, reorder) reload the day; its stock (issue 40) does not.
  const listKey = list.map((s) => `${s.id}:${s.sortOrder}:${s.updatedAt}`).join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: listKey stands for the list's changes
  useEffect(() => {
    void load(shown);
  }, [shown, load, listKey]);

  async function write(row: Row, status: IntakeStatus | null) {
    if (!rows) return;
    writes.current += 1;
    // The row's own day, never 'now' nor what the card may show by the time this is sent.
    const { date } = row;
    setLoaded({ date, rows: rows.map((r) => (r.key === row.key ? { ...r, status } : r)) });
    setTakenGroup(null);
    const change: QueuedChange = {
      key: changeKey({ date, supplementId: row.supplementId, time: row.time }),
      userId: user.id,
      date,
      supplementId: row.supplementId,
      time: row.time,
      status,
      tickedAt: new Date().toISOString(),
    };
    setRefused(({ [change.key]: _old, ...rest }) => rest);
    setSynced((current) => {
      const next = new Set(current);
      next.delete(change.key);
      return next;
    });
    // Kept on this device first, so that a failed send waits instead of being lost; the row
    // says Pending once it is kept (a tab closed right after the tick still has it).
    await queueChange(change).catch(() => undefined);
    setPending((current) => ({ ...current, [change.key]: change }));
    const result = await sendChange(change);
    settle(result);
    if (result.kind === "saved") flush();
  }

  /** Take all (status 'taken') or its undo (null): one request for `keys`, optimistic. */
  async function writeGroup(date: string, time: IntakeTime, keys: string[], status: "taken" | null) {
    if (!rows || keys.length === 0) return;
    writes.current += 1;
    const before = rows;
    const chosen = new Set(keys);
    setLoaded({ date, rows: rows.map((r) => (chosen.has(r.key) ? { ...r, status } : r)) });
    setTakenGroup(status === "taken" ? { date, time, keys } : null);
    // Take all and Undo take each other's place: keep the keyboard there.
    requestAnimationFrame(() => document.getElementById(`take-all-${time}`)?.focus());
    const doses = rows.filter((r) => chosen.has(r.key)).map((r) => ({ supplementId: r.supplementId, time: r.time }));
    const tickedAt = new Date().toISOString();
    try {
      await api.put(`/api/intakes/${date}`, { status, doses, tickedAt });
      trackingChanged();
      void refreshStock();
    } catch (error) {
      if (isOffline(error)) {
        // No network: each dose waits on this device like a single tick.
        const changes = doses.map((d) => ({
          key: changeKey({ date, ...d }),
          userId: user.id,
          date,
          ...d,
          status,
          tickedAt,
        }));
        for (const change of changes) waited.current.add(change.key);
        await Promise.all(changes.map((c) => queueChange(c))).catch(() => undefined);
        setPending((current) => ({ ...current, ...Object.fromEntries(changes.map((c) => [c.key, c])) }));
        return;
      }
      if (date === shownRef.current) setLoaded({ date, rows: before });
      setTakenGroup(null);
      notify.error(errorMessage(error, "Failed to save your change"));
    }
  }

  const back = daysBetween(shown, today);
  const isToday = back === 0;
  const due = rows?.filter((r) => r.time !== AS_NEEDED) ?? [];
  const taken = due.filter((r) => r.status === "taken").length;
  const allDone = due.length > 0 && due.every((r) => r.status !== null);
  const groups = [...DOSE_TIMES, AS_NEEDED].map((time) => ({
    time: time as IntakeTime,
    rows: (rows ?? []).filter((r) => r.time === time),
  }));
  const undoable = (time: IntakeTime) => {
    if (!takenGroup || takenGroup.date !== shown || takenGroup.time !== time) return [];
    const keys = new Set(takenGroup.keys);
    return (rows ?? []).filter((r) => keys.has(r.key) && r.status === "taken").map((r) => r.key);
  };

  // Issue 40: supplements running out within the lead time (or below zero), on today only.
  // Shown once hydrated: the list store is seeded in the browser only (the first render matches the server's).
  const low = isToday && hydrated ? list.filter((s) => s.stock?.refillDue) : [];
  const reorder = user.isPremium && user.showAffiliateLinks;

  return (
    <section className="card p-4 sm:p-6" aria-labelledby="today-heading" data-testid="today-card">
      {/* Screen readers hear once that the ticks made offline reached the server. */}
      <p role="status" className="sr-only" data-testid="sync-status">
        {allSaved ? OFFLINE_MESSAGES.allSaved : ""}
      </p>
      <div className="flex items-start justify-between gap-2">
        <div className="min-w-0">
          <h2 id="today-heading" className="text-lg font-semibold text-slate-900">
            {isToday ? "Today" : longDate(shown)}
          </h2>
          <p className="text-sm text-slate-700" data-testid="today-date">
            <time dateTime={shown}>{isToday ? longDate(shown) : back === 1 ? "Yesterday" : `${back} days ago`}</time>
          </p>
        </div>
        <div className="flex shrink-0 items-center gap-1">
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
      {low.length > 0 && (
        <section
          className="mt-3 rounded-xl border border-amber-200 bg-amber-50 p-3"
          aria-labelledby="refill-heading"
          data-testid="refill-notice"
        >
          <h3 id="refill-heading" className="text-sm font-semibold text-amber-900">
            Running low
          </h3>
          <ul className="mt-1.5 space-y-2">
            {low.map((s) => (
              <li key={s.id} className="flex flex-wrap items-center gap-2">
                <p className="user-text min-w-0 flex-1 basis-48 text-sm text-slate-900">
                  <span className="font-medium">{s.name}</span>:{" "}
                  {s.stock ? stockLine(s.stock, s.quantityType, today) : ""}
                </p>
                {s.stock?.unitsPerPack != null && (
                  <button
                    type="button"
                    className="btn btn-outline btn-sm shrink-0"
                    aria-label={`${PLUS_ONE_PACK}: ${s.name}`}
                    onClick={() => void addPack(s.id)}
                  >
                    {PLUS_ONE_PACK}
                  </button>
                )}
                {reorder && s.affiliateLink && (
                  <a
                    href={`/go/${s.id}`}
                    target="_blank"
                    rel={AFFILIATE_REL}
                    className="btn btn-primary btn-sm shrink-0"
                    aria-label={`Reorder ${s.name}`}
                  >
                    Reorder
                  </a>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      {rows === null ? (
        <div className="mt-3 h-24 animate-pulse rounded-xl bg-slate-100" role="status">
          <span className="sr-only">Loading today</span>
        </div>
      ) : rows.length === 0 ? (
        <p className="mt-3 rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-slate-700">
          {isToday ? "Nothing scheduled today" : "Nothing scheduled that day"}
        </p>
      ) : (
        <>
          {due.length > 0 && (
            <div className="mt-3">
              <div className="flex flex-wrap items-baseline justify-between gap-x-3">
                <p className="text-sm font-medium text-slate-800" id="today-progress-label">
                  {taken} of {due.length} taken
                </p>
                {/* Always in place (no shift when it fills); a polite live region says it once. */}
                <p role="status" className="text-sm font-semibold text-brand-800" data-testid="all-done">
                  {allDone ? (isToday ? "All done for today" : "All done for that day") : ""}
                </p>
              </div>
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
            .map((group) => {
              const label = TIME_LABELS[group.time];
              const open = group.time === AS_NEEDED ? [] : group.rows.filter((r) => r.status === null);
              const undo = open.length === 0 ? undoable(group.time) : [];
              return (
                <div key={group.time} className="mt-3">
                  <div className="flex min-h-8 items-center justify-between gap-2">
                    <h3 className="text-sm font-semibold tracking-wide text-slate-700 uppercase">{label}</h3>
                    {open.length >= 2 ? (
                      <button
                        type="button"
                        id={`take-all-${group.time}`}
                        className="btn btn-outline btn-sm"
                        aria-label={`Take all: ${label}`}
                        onClick={() =>
                          void writeGroup(
                            shown,
                            group.time,
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
                        id={`take-all-${group.time}`}
                        className="btn btn-ghost btn-sm"
                        aria-label={`Undo take all: ${label}`}
                        onClick={() => void writeGroup(shown, group.time, undo, null)}
                      >
                        Undo
                      </button>
                    ) : null}
                  </div>
                  <ul className="mt-1.5 space-y-2">
                    {group.rows.map((row) => {
                      const label = row.amount ? `${row.name}, ${row.amount}` : row.name;
                      const inputId = `dose-${shown}-${row.key.replace("/", "-")}`;
                      const key = changeKey(row);
                      const sync =
                        pending[key] && waited.current.has(key)
                          ? "pending"
                          : synced.has(key)
                            ? "saved"
                            : refused[key]
                              ? "refused"
                              : null;
                      return (
                        <li
                          key={row.key}
                          className="flex items-center gap-3 rounded-xl border border-slate-200 p-2.5"
                          data-testid="dose-row"
                        >
                          <input
                            id={inputId}
                            type="checkbox"
                            className="size-5 shrink-0 accent-brand-700"
                            checked={row.status === "taken"}
                            aria-describedby={sync ? `${inputId}-sync` : undefined}
                            onChange={(e) => void write(row, e.target.checked ? "taken" : null)}
                          />
                          <div className="min-w-0 flex-1">
                            <label
                              htmlFor={inputId}
                              className={`user-text block text-sm ${row.status === "skipped" ? "text-slate-600 line-through" : "text-slate-900"}`}
                            >
                              {label}
                            </label>
                            {sync && <SyncNote id={`${inputId}-sync`} sync={sync} refusal={refused[key]} />}
                          </div>
                          {row.status === "skipped" && <span className="shrink-0 text-xs text-slate-700">Skipped</span>}
                          {row.status === null && row.time !== AS_NEEDED && (
                            <button
                              type="button"
                              className="btn btn-ghost btn-sm shrink-0"
                              aria-label={`Skip ${label}`}
                              onClick={() => void write(row, "skipped")}
                            >
                              Skip
                            </button>
                          )}
                          {row.status !== null && (
                            <button
                              type="button"
                              className="btn btn-ghost btn-sm shrink-0"
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
              );
            })}
        </>
      )}
    </section>
  );
}
