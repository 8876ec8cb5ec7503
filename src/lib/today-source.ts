/**
 * Where the Today card's day comes from (issue 51): the server when it answers; otherwise this
 * device's own last copy of that day (src/lib/offline-queue.ts: the server's last answer with
 * every later tick of this device laid over it), else the service worker's kept answer. A day
 * shown from a copy carries the time the server last confirmed it (`asOf`), for the card's
 * `Offline · as of 08:14`. See docs/offline.md.
 */
import { api, isOffline, KEPT_COPY_HEADER } from "./api";
import { keepDay, keptDay } from "./offline-queue";
import type { TodayJson } from "./schedule";

export interface DayRead {
  day: TodayJson;
  /** A copy (this device's or the worker's), not the server's answer just now. */
  kept: boolean;
  /** When the server last confirmed the copy (ms); null for the server's own answer, or unknown. */
  asOf: number | null;
}

const deviceCopy = async (userId: string, date: string): Promise<DayRead | null> => {
  const mine = await keptDay(userId, date).catch(() => undefined);
  return mine ? { day: mine.day, kept: true, asOf: mine.confirmedAt } : null;
};

/**
 * Today for `date` (the user's today when absent). Throws the ApiError of a failed read, and
 * an offline one (status 0) when no copy of the day is on this device.
 */
export async function readDay(userId: string, date?: string): Promise<DayRead> {
  const copy: { keptAt: string | null } = { keptAt: null };
  let day: TodayJson;
  try {
    day = await api.get<TodayJson>(date ? `/api/today?date=${date}` : "/api/today", {
      headers: (headers) => {
        copy.keptAt = headers.get(KEPT_COPY_HEADER);
      },
    });
  } catch (error) {
    const mine = date && isOffline(error) ? await deviceCopy(userId, date) : null;
    if (mine) return mine;
    throw error;
  }
  if (copy.keptAt === null) return { day, kept: false, asOf: null };
  // The worker's copy is of the last page load; this device's own copy has every tick since.
  const mine = await deviceCopy(userId, day.date);
  return mine ?? { day, kept: true, asOf: Date.parse(copy.keptAt) || null };
}

/** Keeps the server's answer as this device's copy of its day, confirmed now. */
export function keepServerDay(userId: string, day: TodayJson): void {
  void keepDay(userId, day, Date.now()).catch(() => undefined);
}

/**
 * The dashboard page marks the element around Today with this token when the server rendered
 * Today's rows into it; the service worker turns it into KEPT_PAGE_MARK when it answers its kept
 * copy of the page (src/service-worker/sw.js), whose rows are then as old as that copy.
 */
export const RENDERED_PAGE_MARK = "today-source:server";
export const KEPT_PAGE_MARK = "today-source:worker";

/** Whether this page is the worker's kept copy (its server-rendered rows are not the device's truth). */
export const keptPageShown = (): boolean => document.querySelector(`[data-today-source="${KEPT_PAGE_MARK}"]`) !== null;
