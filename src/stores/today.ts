/**
 * The Today card's server state (issues 19, 46 §3, 51): which date is the user's today, which
 * one the card shows, and that day's rows: from the server (or the server-rendered page), else
 * this device's copy (`kept`, `asOf`: src/lib/today-source.ts), else planned from the list.
 * Read again on focus, when made visible, every 30 s while shown, at the user's midnight (a
 * new day turns the card over) and, on reconnect: while a copy is shown, after the first answer
 * from the server (the browser's `online` event alone is not proof, docs/offline.md). One store per card (never module state: a server render serves many users).
 */
import { atom } from "nanostores";
import { plannedDay, type Row, rowsOf } from "../islands/tracking/today-rows";
import { errorMessage, isOffline, onServerAnswer } from "../lib/api";
import { changeKey, keepChanges, type QueuedChange } from "../lib/offline-queue";
import type { IntakeJson, IntakeStatus, TodayJson } from "../lib/schedule";
import { notify } from "../lib/toast";
import { msToNextMidnight } from "../lib/today-rules";
import { keepServerDay, readDay } from "../lib/today-source";
import { $online } from "./network";
import { $supplements } from "./supplements";
import { $user } from "./user";

/** A day's rows as shown: from the server just now, or from a kept copy (`asOf`: when the server confirmed it). */
export interface Loaded {
  date: string;
  rows: Row[];
  kept: boolean;
  asOf: number | null;
}

export interface TodayState {
  /** The user's today. */
  today: string;
  /** The day the card shows (up to 7 days back). */
  shown: string;
  /** The rows of one day; shown only while that day is the one shown (a loading card between). */
  loaded: Loaded | null;
}

/** While the page is shown, the store asks the server what day it is this often (midnight, a zone changed elsewhere). */
export const DAY_CHECK_MS = 30_000;

export const fromServer = (day: TodayJson): Loaded => ({ date: day.date, rows: rowsOf(day), kept: false, asOf: null });

/** `initial`: the day the server rendered (its rows shown and tickable at once); else today's date, rows to load. */
export function createTodayStore(userId: string, initial: TodayJson | string) {
  const rendered = typeof initial === "string" ? null : fromServer(initial);
  const date = rendered?.date ?? (initial as string);
  const $state = atom<TodayState>({ today: date, shown: date, loaded: rendered });
  // A read answers only if no later read began and, for the day shown, no change was made meanwhile.
  let loadSeq = 0;
  let writes = 0;
  let loading = false;
  const patch = (next: Partial<TodayState>) => $state.set({ ...$state.get(), ...next });
  const setLoaded = (update: (day: Loaded | null) => Loaded | null) => patch({ loaded: update($state.get().loaded) });

  /** The day's rows from the server, else from a kept copy; `quiet`: a failed read says nothing. */
  async function load(date: string, quiet = false): Promise<void> {
    const [seq, written] = [++loadSeq, writes];
    loading = true;
    try {
      const read = await readDay(userId, date);
      $online.set(!read.kept);
      if (!read.kept && written === writes) keepServerDay(userId, read.day);
      if (seq === loadSeq) patch({ loaded: { date: read.day.date, rows: rowsOf(read.day), ...read } });
    } catch (error) {
      if (seq !== loadSeq) return;
      if (isOffline(error)) {
        $online.set(false);
        patch({ loaded: { date, rows: plannedDay(date, $supplements.get()), kept: true, asOf: null } });
      } else if (!quiet) notify.error(errorMessage(error, "Failed to load today's doses"));
    } finally {
      if (seq === loadSeq) loading = false;
    }
  }

  const turnTo = (date: string) => patch({ today: date, shown: date });

  /**
   * What day it is for the user now (GET /api/today without a date: their zone, the server's
   * one clock, a zone changed elsewhere): a new day turns the card to it; the same day
   * refreshes the rows when today is shown. No server: this device's clock (`localToday`).
   */
  async function check(localToday: () => string): Promise<void> {
    if (document.visibilityState === "hidden") return;
    const [seq, written] = [loadSeq, writes];
    const read = await readDay(userId).catch(() => null);
    const { today, shown } = $state.get();
    if (read && !read.kept) {
      const { day } = read;
      const current = $user.get();
      if (current?.timeZone && current.timeZone !== day.timeZone) $user.set({ ...current, timeZone: day.timeZone });
      if (day.date !== today) turnTo(day.date);
      else if (shown === day.date && seq === loadSeq && written === writes) {
        keepServerDay(userId, day);
        patch({ loaded: fromServer(day) });
      }
    } else {
      const local = localToday();
      if (local !== today) turnTo(local);
    }
  }

  /** Starts the reads again on their triggers; answers the function that stops them. */
  function watch(zone: string, localToday: () => string): () => void {
    const onCheck = () => void check(localToday);
    let midnight: ReturnType<typeof setTimeout>;
    const aim = () => {
      midnight = setTimeout(
        () => {
          onCheck();
          aim();
        },
        msToNextMidnight(zone, Date.now()),
      );
    };
    aim();
    const every = setInterval(onCheck, DAY_CHECK_MS);
    // A card shown from a kept copy reads the server again as soon as anything reached it.
    const stopListening = onServerAnswer(() => {
      const { loaded, shown } = $state.get();
      if (loaded?.kept && !loading) void load(shown, true);
    });
    window.addEventListener("focus", onCheck);
    document.addEventListener("visibilitychange", onCheck);
    return () => {
      clearTimeout(midnight);
      clearInterval(every);
      stopListening();
      window.removeEventListener("focus", onCheck);
      document.removeEventListener("visibilitychange", onCheck);
    };
  }

  /** When the zone is known or changes: a card showing today follows the new today (read again if not loaded). */
  function zoneChanged(next: string): void {
    const { today, shown, loaded } = $state.get();
    patch({ today: next, shown: shown === today ? next : shown });
    if (next === $state.get().shown && loaded?.date !== next) void load(next, true);
  }

  /** Shows `status` on `rows` of `keys` at once (`rows`: what the card shows), and lays it over this device's copy. */
  function lay(date: string, rows: Row[], keys: ReadonlySet<string>, status: IntakeStatus | null): void {
    writes += 1;
    setLoaded((day) => ({
      date,
      kept: day?.kept ?? false,
      asOf: day?.asOf ?? null,
      rows: rows.map((r) => (keys.has(r.key) ? { ...r, status } : r)),
    }));
    const changed = rows.filter((r) => keys.has(r.key));
    void keepChanges(
      userId,
      date,
      changed.map((r) => ({ supplementId: r.supplementId, time: r.time, status })),
    );
  }

  /** Shows `next` (an as-needed row with a new count, issue 48) at once, and lays it over this device's copy. */
  function layRow(date: string, rows: Row[], next: Row): void {
    writes += 1;
    setLoaded((day) => ({
      date,
      kept: day?.kept ?? false,
      asOf: day?.asOf ?? null,
      rows: rows.map((r) => (r.key === next.key ? next : r)),
    }));
    void keepChanges(userId, date, [next]);
  }

  /** A failed write: `before` again on the card (if its day is still shown) and in this device's copy. */
  function restore(date: string, before: Row[], keys: ReadonlySet<string>): void {
    if (date === $state.get().shown) setLoaded((day) => (day ? { ...day, rows: before } : day));
    void keepChanges(
      userId,
      date,
      before.filter((r) => keys.has(r.key)),
    );
  }

  /** The server has `change`; `status` is what it keeps (and, for an as-needed count, `answer` what Today says of it). */
  function saved(change: QueuedChange, status: IntakeStatus | null, answer?: IntakeJson | null): void {
    const counted =
      answer?.count === undefined
        ? {}
        : {
            count: answer.count,
            lastTakenAt: answer.lastTakenAt ?? null,
            nextAllowedAt: answer.nextAllowedAt ?? null,
            warning: answer.warning,
          };
    setLoaded((day) =>
      day && day.date === change.date
        ? { ...day, rows: day.rows.map((r) => (changeKey(r) === change.key ? { ...r, status, ...counted } : r)) }
        : day,
    );
    const count = answer?.count ?? change.count;
    void keepChanges(userId, change.date, [{ ...change, status, count }]).catch(() => undefined);
  }

  return {
    $state,
    load,
    check,
    watch,
    zoneChanged,
    lay,
    layRow,
    restore,
    saved,
    show: (date: string) => patch({ shown: date }),
  };
}

export type TodayStore = ReturnType<typeof createTodayStore>;
