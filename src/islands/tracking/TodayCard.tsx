/**
 * The dashboard's Today card (issues 19, 38, 40, 51): the doses of the day it shows, ticked,
 * skipped and undone optimistically; `Take all` per time of day; `All done for today`. A write
 * names the day of its row (never 'now') and the time it was made; without a network it waits
 * on this device (useWaitingTicks), shown `Pending`, and sends itself when the server is back.
 * Every change is laid over this device's copy of its day, shown `Offline · as of 08:14` when
 * the server cannot answer (src/lib/today-source.ts); a day with no copy is planned from the
 * list's schedules. At the user's midnight the card moves to the new day by itself. Arrows go
 * back 7 days. See docs/daily-use.md and docs/offline.md.
 */
import { useStore } from "@nanostores/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { api, errorMessage, isOffline, onServerAnswer } from "../../lib/api";
import { addDays, dateIn, daysBetween } from "../../lib/dates";
import { AFFILIATE_REL } from "../../lib/insights";
import { OFFLINE_MESSAGES } from "../../lib/messages";
import { changeKey, keepChanges, type QueuedChange } from "../../lib/offline-queue";
import {
  AS_NEEDED,
  DOSE_TIMES,
  EDITABLE_DAYS,
  type IntakeStatus,
  type IntakeTime,
  TIME_LABELS,
} from "../../lib/schedule";
import { PLUS_ONE_PACK, stockLine } from "../../lib/stock";
import { notify } from "../../lib/toast";
import { allDoneText, msToNextMidnight, offlineLabel, progressText } from "../../lib/today-rules";
import { keepServerDay, readDay } from "../../lib/today-source";
import type { CurrentUser } from "../../lib/types";
import { $online, needsConnection } from "../../stores/network";
import { $dialog, $supplements, $supplementsLoaded, addPack, refreshStock } from "../../stores/supplements";
import { trackingChanged } from "../../stores/tracking";
import { $user, seedUser } from "../../stores/user";
import TodayOverLimit from "../ingredients/TodayOverLimitLazy";
import DoseRow from "./DoseRow";
import { longDate, plannedDay, type Row, rowsOf } from "./today-rows";
import { useWaitingTicks } from "./useWaitingTicks";

const browserZone = () => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || null;
  } catch {
    return null;
  }
};

/** The last Take all of a group, for its one-step Undo. */
interface TakenGroup {
  date: string;
  time: IntakeTime;
  keys: string[];
}

/** A day's rows as shown: from the server just now, or from a kept copy (`asOf`: when the server confirmed it). */
interface Loaded {
  date: string;
  rows: Row[];
  kept: boolean;
  asOf: number | null;
}

/** While the page is shown, it asks the server what day it is this often (midnight, a zone changed elsewhere). */
const DAY_CHECK_MS = 30_000;

export default function TodayCard({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  const list = useStore($supplements);
  const listLoaded = useStore($supplementsLoaded);
  const online = useStore($online);
  const zone = user.timeZone;
  const todayNow = useCallback(() => dateIn(zone ?? browserZone() ?? "UTC", Date.now()), [zone]);
  const [today, setToday] = useState(todayNow);
  const [shown, setShown] = useState(today);
  // The rows of one day; shown only while that day is the one shown (a loading card between).
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const loadedRows = loaded?.date === shown ? loaded.rows : null;
  const [takenGroup, setTakenGroup] = useState<TakenGroup | null>(null);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const loadSeq = useRef(0);
  const loading = useRef(false);
  const writes = useRef(0);
  const todayRef = useRef(today);
  todayRef.current = today;
  const shownRef = useRef(shown);
  shownRef.current = shown;
  const listRef = useRef(list);
  listRef.current = list;
  const loadedRef = useRef(loaded);
  loadedRef.current = loaded;

  /** The day's rows from the server, else from a kept copy; `quiet`: a failed read says nothing. */
  const load = useCallback(
    async (date: string, quiet = false) => {
      const [seq, written] = [++loadSeq.current, writes.current];
      loading.current = true;
      try {
        const read = await readDay(user.id, date);
        $online.set(!read.kept);
        if (!read.kept && written === writes.current) keepServerDay(user.id, read.day);
        if (seq === loadSeq.current) setLoaded({ date: read.day.date, rows: rowsOf(read.day), ...read });
      } catch (error) {
        if (seq !== loadSeq.current) return;
        if (isOffline(error)) {
          $online.set(false);
          setLoaded({ date, rows: plannedDay(date, listRef.current), kept: true, asOf: null });
        } else if (!quiet) notify.error(errorMessage(error, "Failed to load today's doses"));
      } finally {
        if (seq === loadSeq.current) loading.current = false;
      }
    },
    [user.id],
  );

  const ticks = useWaitingTicks(user.id, {
    saved(change, status) {
      setLoaded((day) =>
        day && day.date === change.date
          ? { ...day, rows: day.rows.map((r) => (changeKey(r) === change.key ? { ...r, status } : r)) }
          : day,
      );
      void keepChanges(user.id, change.date, [{ ...change, status }]).catch(() => undefined);
      trackingChanged();
      void refreshStock();
    },
    // The server's state again (a day that left the window cannot be read: the note stays).
    dropped(change) {
      if (change.date === shownRef.current) void load(change.date, true);
    },
  });
  // The day's rows with this device's waiting ticks laid over what the server (or a copy) said.
  const rows =
    loadedRows?.map((r) => {
      const waiting = ticks.pending[changeKey(r)];
      return waiting ? { ...r, status: waiting.status } : r;
    }) ?? null;

  // A card shown from a kept copy reads the server again as soon as anything reached it.
  useEffect(
    () =>
      onServerAnswer(() => {
        if (loadedRef.current?.kept && !loading.current) void load(shownRef.current, true);
      }),
    [load],
  );

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
  // A day the server refused before it knew the zone (a date after its UTC today) is read again.
  useEffect(() => {
    const next = todayNow();
    setToday((previous) => {
      setShown((current) => (current === previous ? next : current));
      return next;
    });
    if (next === shownRef.current && loadedRef.current?.date !== next) void load(next, true);
  }, [todayNow, load]);

  // Midnight: the server says what day it is for the user now (GET /api/today without a date:
  // their zone, the server's one clock, a zone changed elsewhere), asked by a timer aimed at the
  // user's next midnight, every DAY_CHECK_MS while the page is shown, and on focus or when made
  // visible. A new day moves the card to it; the same day refreshes the rows when today is shown.
  useEffect(() => {
    const turnTo = (date: string) => {
      todayRef.current = date;
      setToday(date);
      setShown(date);
    };
    const check = async () => {
      if (document.visibilityState === "hidden") return;
      const [seq, written] = [loadSeq.current, writes.current];
      const read = await readDay(user.id).catch(() => null);
      if (read && !read.kept) {
        const { day } = read;
        const current = $user.get();
        if (current?.timeZone && current.timeZone !== day.timeZone) $user.set({ ...current, timeZone: day.timeZone });
        if (day.date !== todayRef.current) turnTo(day.date);
        else if (shownRef.current === day.date && seq === loadSeq.current && written === writes.current) {
          keepServerDay(user.id, day);
          setLoaded({ date: day.date, rows: rowsOf(day), kept: false, asOf: null });
        }
      } else {
        // No server: this device's clock says whether a new day began; the next check asks again.
        const local = todayNow();
        if (local !== todayRef.current) turnTo(local);
      }
    };
    let midnight: ReturnType<typeof setTimeout>;
    const aim = () => {
      midnight = setTimeout(
        () => {
          void check();
          aim();
        },
        msToNextMidnight(zone ?? browserZone() ?? "UTC", Date.now()),
      );
    };
    aim();
    const every = setInterval(() => void check(), DAY_CHECK_MS);
    const onFocus = () => void check();
    window.addEventListener("focus", onFocus);
    document.addEventListener("visibilitychange", onFocus);
    return () => {
      clearTimeout(midnight);
      clearInterval(every);
      window.removeEventListener("focus", onFocus);
      document.removeEventListener("visibilitychange", onFocus);
    };
  }, [todayNow, zone, user.id]);

  // The list's changes (add, edit, delete, reorder) reload the day; its stock (issue 40) does not.
  const listKey = list.map((s) => `${s.id}:${s.sortOrder}:${s.updatedAt}`).join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: listKey stands for the list's changes
  useEffect(() => {
    void load(shown);
  }, [shown, load, listKey]);

  /** Shows `status` on the rows of `keys` at once, and lays it over this device's copy of the day. */
  function show(date: string, keys: ReadonlySet<string>, status: IntakeStatus | null) {
    if (!rows) return;
    writes.current += 1;
    const changed = rows.filter((r) => keys.has(r.key));
    setLoaded((day) => ({
      date,
      kept: day?.kept ?? false,
      asOf: day?.asOf ?? null,
      rows: rows.map((r) => (keys.has(r.key) ? { ...r, status } : r)),
    }));
    void keepChanges(
      user.id,
      date,
      changed.map((r) => ({ supplementId: r.supplementId, time: r.time, status })),
    ).catch(() => undefined);
  }

  async function write(row: Row, status: IntakeStatus | null) {
    if (!rows) return;
    // The row's own day, never 'now' nor what the card may show by the time this is sent.
    const { date } = row;
    show(date, new Set([row.key]), status);
    setTakenGroup(null);
    await ticks.send({
      key: changeKey({ date, supplementId: row.supplementId, time: row.time }),
      userId: user.id,
      date,
      supplementId: row.supplementId,
      time: row.time,
      status,
      tickedAt: new Date().toISOString(),
    });
  }

  /** Take all (status 'taken') or its undo (null): one request for `keys`, optimistic. */
  async function writeGroup(date: string, time: IntakeTime, keys: string[], status: "taken" | null) {
    if (!rows || keys.length === 0) return;
    const before = rows;
    const chosen = new Set(keys);
    show(date, chosen, status);
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
        const changes: QueuedChange[] = doses.map((d) => ({
          key: changeKey({ date, ...d }),
          userId: user.id,
          date,
          ...d,
          status,
          tickedAt,
        }));
        await ticks.wait(changes);
        return;
      }
      // Back as it was, on the card and in this device's copy.
      if (date === shownRef.current) setLoaded((day) => (day ? { ...day, rows: before } : day));
      const undo = before.filter((r) => chosen.has(r.key));
      void keepChanges(user.id, date, undo).catch(() => undefined);
      setTakenGroup(null);
      notify.error(errorMessage(error, "Failed to save your change"));
    }
  }

  const back = daysBetween(shown, today);
  const isToday = back === 0;
  const due = rows?.filter((r) => r.time !== AS_NEEDED) ?? [];
  const taken = due.filter((r) => r.status === "taken").length;
  const skipped = due.filter((r) => r.status === "skipped").length;
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
        {ticks.allSaved ? OFFLINE_MESSAGES.allSaved : ""}
      </p>
      <div className="flex items-start justify-between gap-2">
        <div className="min-w-0">
          <h2 id="today-heading" className="text-lg font-semibold text-slate-900">
            {isToday ? "Today" : longDate(shown)}
          </h2>
          <p className="text-sm text-slate-700" data-testid="today-date">
            <time dateTime={shown}>{isToday ? longDate(shown) : back === 1 ? "Yesterday" : `${back} days ago`}</time>
          </p>
          {loaded?.date === shown && loaded.kept && (
            <p className="badge mt-1 bg-slate-100" data-testid="today-offline">
              {offlineLabel(zone ?? browserZone() ?? "UTC", loaded.asOf)}
            </p>
          )}
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
      {hydrated && list.some((s) => s.ingredients?.length) && <TodayOverLimit date={shown} />}
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
                    {...needsConnection(online)}
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
        <div className="mt-3 rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-slate-700">
          <p>{isToday ? "Nothing scheduled today" : "Nothing scheduled that day"}</p>
          {isToday && listLoaded && list.length === 0 && (
            <button
              type="button"
              className="btn btn-primary mt-3"
              {...needsConnection(online)}
              onClick={() => $dialog.set({ kind: "add" })}
            >
              Add a supplement
            </button>
          )}
        </div>
      ) : (
        <>
          {due.length > 0 && (
            <div className="mt-3">
              {/* Phones: two lines (a skip lengthens both texts), the second always kept. */}
              <div className="flex flex-col sm:flex-row sm:items-start sm:justify-between sm:gap-x-3">
                <p className="text-sm font-medium text-slate-800" id="today-progress-label">
                  {progressText(taken, due.length, skipped)}
                </p>
                {/* Always in place (no shift when it fills); a polite live region says it once. */}
                <p role="status" className="min-h-5 text-sm font-semibold text-brand-800" data-testid="all-done">
                  {allDone ? allDoneText(isToday, skipped) : ""}
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
                      const key = changeKey(row);
                      return (
                        <DoseRow
                          key={row.key}
                          row={row}
                          inputId={`dose-${shown}-${row.key.replace("/", "-")}`}
                          sync={ticks.syncOf(key)}
                          refusal={ticks.refusal(key)}
                          onWrite={(status) => void write(row, status)}
                        />
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
