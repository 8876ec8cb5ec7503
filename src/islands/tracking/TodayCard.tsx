/**
 * The dashboard's Today card (issues 19, 38, 40, 46 §3, 51): the doses of the day it shows, ticked,
 * skipped and undone optimistically; `Take all` per time of day; `All done for today`. A write
 * names the day of its row (never 'now') and the time it was made; without a network it waits
 * on this device (useWaitingTicks), shown `Pending`, and sends itself when the server is back.
 * The day itself, and when it is read again (focus, reconnect, midnight), is the card's store
 * (src/stores/today.ts). The server renders the user's day into the page (`day`): its rows are
 * tickable as soon as the card hydrates, with no read first, unless the page is the service
 * worker's kept copy (then this device's copy wins). See docs/daily-use.md and docs/offline.md.
 */
import { useStore } from "@nanostores/react";
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { api } from "../../lib/api";
import { addDays, browserZone, dateIn, daysBetween } from "../../lib/dates";
import { OFFLINE_MESSAGES } from "../../lib/messages";
import { changeKey } from "../../lib/offline-queue";
import { AS_NEEDED, DOSE_TIMES, type IntakeTime, type TodayJson } from "../../lib/schedule";
import { allDoneText, offlineLabel, progressText } from "../../lib/today-rules";
import { keepServerDay, keptPageShown } from "../../lib/today-source";
import type { CurrentUser } from "../../lib/types";
import { $online, needsConnection } from "../../stores/network";
import { $dialog, $supplements, $supplementsLoaded, refreshStock } from "../../stores/supplements";
import { createTodayStore } from "../../stores/today";
import { trackingChanged } from "../../stores/tracking";
import { $user, seedUser } from "../../stores/user";
import TodayOverLimit from "../ingredients/TodayOverLimitLazy";
import DayNav from "./DayNav";
import TimeGroup from "./TimeGroup";
import { useTodayWrites } from "./useTodayWrites";
import { useWaitingTicks } from "./useWaitingTicks";

// Loaded when something runs low (issue 40), outside the first paint's JavaScript (issue 38's budget).
const RefillNotice = lazy(() => import("./RefillNotice"));

export default function TodayCard({ user: initialUser, day }: { user: CurrentUser; day?: TodayJson | null }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  const list = useStore($supplements);
  const listLoaded = useStore($supplementsLoaded);
  const online = useStore($online);
  const zone = user.timeZone;
  const localZone = () => zone ?? browserZone() ?? "UTC";
  const todayNow = () => dateIn(localZone(), Date.now());
  const [store] = useState(() => createTodayStore(user.id, day ?? todayNow()));
  const { today, shown, loaded } = useStore(store.$state);
  const loadedRows = loaded?.date === shown ? loaded.rows : null;
  const [hydrated, setHydrated] = useState(false);

  const ticks = useWaitingTicks(user.id, {
    saved(change, status, answer) {
      store.saved(change, status, answer);
      trackingChanged();
      void refreshStock();
    },
    // The server's state again (a day that left the window cannot be read: the note stays).
    dropped(change) {
      if (change.date === store.$state.get().shown) void store.load(change.date, true);
    },
  });
  // The day's rows with this device's waiting ticks laid over what the server (or a copy) said.
  const rows =
    loadedRows?.map((r) => {
      const waiting = ticks.pending[changeKey(r)];
      if (!waiting) return r;
      return waiting.count === undefined
        ? { ...r, status: waiting.status }
        : { ...r, status: waiting.status, count: waiting.count };
    }) ?? null;
  const writes = useTodayWrites(store, ticks, user.id, rows);

  // The server's rows are kept as this device's copy; the worker's kept page is read again
  // (its rows are as old as the page: this device's copy wins).
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, on the first render's day
  useEffect(() => {
    setHydrated(true);
    if (day && keptPageShown()) void store.load(day.date, true);
    else if (day) keepServerDay(user.id, day);
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

  // When the zone is known or changes, 'today' is recomputed; a page showing today follows it (on
  // the first render too: a device whose clock is on another day than the server's keeps its own).
  // biome-ignore lint/correctness/useExhaustiveDependencies: the zone stands for todayNow
  useEffect(() => store.zoneChanged(todayNow()), [zone]);

  // Midnight, focus, reconnect: the store reads the day again (src/stores/today.ts).
  // biome-ignore lint/correctness/useExhaustiveDependencies: the zone stands for todayNow
  useEffect(() => store.watch(localZone(), todayNow), [zone, store]);

  // A new day shown reads it; the list's changes (add, edit, delete, reorder) read it again, its
  // stock (issue 40) does not. Not the day the server rendered, nor the list's first seeding.
  const listKey = listLoaded ? list.map((s) => `${s.id}:${s.sortOrder}:${s.updatedAt}`).join(",") : null;
  const lastRead = useRef(day ? `${shown} null` : "");
  // biome-ignore lint/correctness/useExhaustiveDependencies: shown and listKey say when to read
  useEffect(() => {
    const [key, last] = [`${shown} ${listKey}`, lastRead.current];
    lastRead.current = key;
    if (last !== key && last !== `${shown} null`) void store.load(shown);
  }, [shown, listKey]);

  const back = daysBetween(shown, today);
  const isToday = back === 0;
  const due = rows?.filter((r) => r.time !== AS_NEEDED) ?? [];
  const taken = due.filter((r) => r.status === "taken").length;
  const skipped = due.filter((r) => r.status === "skipped").length;
  const groups = [...DOSE_TIMES, AS_NEEDED].map((time) => ({
    time: time as IntakeTime,
    rows: (rows ?? []).filter((r) => r.time === time),
  }));

  // Issue 40: supplements running out within the lead time (or below zero), on today only.
  // Shown once hydrated: the list store is seeded in the browser only (the first render matches the server's).
  const low = isToday && hydrated ? list.filter((s) => s.stock?.refillDue) : [];

  return (
    <section className="card p-4 sm:p-6" aria-labelledby="today-heading" data-testid="today-card">
      {/* Screen readers hear once that the ticks made offline reached the server. */}
      <p role="status" className="sr-only" data-testid="sync-status">
        {ticks.allSaved ? OFFLINE_MESSAGES.allSaved : ""}
      </p>
      <DayNav
        shown={shown}
        back={back}
        offline={loaded?.date === shown && loaded.kept ? offlineLabel(localZone(), loaded.asOf) : null}
        onShow={(step) => store.show(addDays(shown, step))}
      />
      {hydrated && list.some((s) => s.ingredients?.length) && <TodayOverLimit date={shown} />}
      {low.length > 0 && (
        <Suspense>
          <RefillNotice low={low} today={today} online={online} reorder={user.isPremium && user.showAffiliateLinks} />
        </Suspense>
      )}
      {rows === null ? (
        <div className="mt-3 h-24 animate-pulse rounded-xl bg-slate-100" role="status">
          <span className="sr-only">Loading today</span>
        </div>
      ) : rows.length === 0 ? (
        <div className="mt-3 rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-slate-700">
          <p>{isToday ? "Nothing scheduled today" : "Nothing scheduled that day"}</p>
          {/* After hydration: the server renders the card before the list store is seeded (React #418). */}
          {isToday && hydrated && listLoaded && list.length === 0 && (
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
                  {due.every((r) => r.status !== null) ? allDoneText(isToday, skipped) : ""}
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
            .map((group) => (
              <TimeGroup
                key={group.time}
                time={group.time}
                rows={group.rows}
                shown={shown}
                ticks={ticks}
                writes={writes}
                zone={localZone()}
              />
            ))}
        </>
      )}
    </section>
  );
}
