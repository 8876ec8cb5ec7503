/**
 * Ticks made on Today wait here, in IndexedDB, until the server has them (issue 40): one
 * entry per dose (date, supplement, time), the latest change with the time it was made, of
 * the signed-in user only. Beside them, the device's last Today per date (issue 51): the
 * server's answer with every later change of this device laid over it, and when the server
 * last confirmed it. The service worker's caches share the `OFFLINE_CACHE_PREFIX`.
 * Plain IndexedDB (a wrapper library cost the dashboard 1.4 KB gzipped). See docs/offline.md.
 */
import type { IntakeStatus, IntakeTime, TodayJson } from "./schedule";
import { type DoseChange, withStatuses } from "./today-rules";

/** The service worker's cache names start with this (src/service-worker/sw.js). */
export const OFFLINE_CACHE_PREFIX = "stacktrack-offline";

/** A change to one dose: a status, or `null` for un-ticked, made at `tickedAt` (ISO). */
export interface QueuedChange {
  /** `${date}/${supplementId}/${time}` */
  key: string;
  userId: string;
  date: string;
  supplementId: number;
  time: IntakeTime;
  status: IntakeStatus | null;
  tickedAt: string;
  /** Issue 48: an as-needed dose's count for the day (status then says whether it is above 0). */
  count?: number;
}

/** The last Today this device showed for `day.date`: confirmed by the server at `confirmedAt` (ms). */
export interface KeptDay {
  date: string;
  userId: string;
  day: TodayJson;
  confirmedAt: number;
}

type Store = "changes" | "meta" | "days";

/** Kept days: the latest 8 dates (today and the 7 editable days before it). */
export const KEPT_DAYS = 8;

export const changeKey = (c: { date: string; supplementId: number; time: string }) =>
  `${c.date}/${c.supplementId}/${c.time}`;

let opened: Promise<IDBDatabase> | null = null;
function db(): Promise<IDBDatabase> {
  opened ??= new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(OFFLINE_CACHE_PREFIX, 2);
    request.onupgradeneeded = (event) => {
      const database = request.result;
      if (event.oldVersion < 1) {
        database.createObjectStore("changes", { keyPath: "key" });
        database.createObjectStore("meta");
      }
      if (event.oldVersion < 2) database.createObjectStore("days", { keyPath: "date" });
    };
    request.onsuccess = () => {
      const database = request.result;
      // A newer version (a later deploy in another tab) wants to upgrade: let it.
      database.onversionchange = () => {
        database.close();
        opened = null;
      };
      resolve(database);
    };
    request.onerror = () => reject(request.error);
  });
  opened.catch(() => {
    opened = null;
  });
  return opened;
}

/** A request's result. */
const result = <T>(request: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

/** Runs `work` in one transaction over `stores`; resolves with what it answered once committed. */
async function transaction<T>(
  stores: Store[],
  work: (store: (name: Store) => IDBObjectStore) => Promise<T>,
  mode: IDBTransactionMode = "readwrite",
): Promise<T> {
  const tx = (await db()).transaction(stores, mode);
  const committed = new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error);
  });
  const answer = await work((name) => tx.objectStore(name));
  await committed;
  return answer;
}

/** Keeps `change` for its dose, in place of an earlier one. */
export async function queueChange(change: QueuedChange): Promise<void> {
  await transaction(["changes"], (store) => result(store("changes").put(change)));
}

/** The user's waiting changes, oldest first. */
export async function queuedChanges(userId: string): Promise<QueuedChange[]> {
  const all = await transaction(["changes"], (store) => result<QueuedChange[]>(store("changes").getAll()), "readonly");
  return all.filter((c) => c.userId === userId).sort((a, b) => a.tickedAt.localeCompare(b.tickedAt));
}

/** Forgets `change` once sent, unless a newer change to the dose replaced it meanwhile. */
export async function removeChange(change: QueuedChange): Promise<void> {
  await transaction(["changes"], async (store) => {
    const stored = await result<QueuedChange | undefined>(store("changes").get(change.key));
    if (
      stored &&
      stored.tickedAt === change.tickedAt &&
      stored.status === change.status &&
      stored.count === change.count
    )
      await result(store("changes").delete(change.key));
  });
}

/** Deletes the service worker's caches (the dashboard, its assets, the last Today). */
export async function clearOfflineCaches(): Promise<void> {
  if (typeof caches === "undefined") return;
  const names = await caches.keys();
  await Promise.all(names.filter((n) => n.startsWith(OFFLINE_CACHE_PREFIX)).map((n) => caches.delete(n)));
}

/**
 * This browser's offline data belongs to `userId` from now on: when another user's is there
 * (they never signed out), their queue, kept days and the worker's caches are deleted, never
 * sent or shown.
 */
export async function claimOfflineData(userId: string): Promise<void> {
  const owner = await transaction(
    ["meta"],
    (store) => result<string | undefined>(store("meta").get("owner")),
    "readonly",
  );
  if (owner === userId) return;
  // No owner yet: nothing of anyone's was kept (a sign-out's Clear-Site-Data removes both), and
  // a tick queued meanwhile is this user's: only the owner is written.
  const anothers = owner !== undefined;
  await transaction(["changes", "meta", "days"], async (store) => {
    if (anothers) {
      await result(store("changes").clear());
      await result(store("days").clear());
    }
    await result(store("meta").put(userId, "owner"));
  });
  if (anothers) await clearOfflineCaches();
}

/** Keeps the server's answer for its date, confirmed now; only the latest KEPT_DAYS dates stay. */
export async function keepDay(userId: string, day: TodayJson, confirmedAt: number): Promise<void> {
  await transaction(["days"], async (store) => {
    const days = store("days");
    await result(days.put({ date: day.date, userId, day, confirmedAt } satisfies KeptDay));
    const dates = (await result(days.getAllKeys())).map(String).sort().reverse();
    await Promise.all(dates.slice(KEPT_DAYS).map((date) => result(days.delete(date))));
  });
}

/** The device's last Today for `date`, of `userId` only. */
export async function keptDay(userId: string, date: string): Promise<KeptDay | undefined> {
  const kept = await transaction(["days"], (store) => result<KeptDay | undefined>(store("days").get(date)), "readonly");
  return kept?.userId === userId ? kept : undefined;
}

/** Lays this device's changes over its kept copy of their day (what the user now sees there). */
export async function keepChanges(userId: string, date: string, changes: readonly DoseChange[]): Promise<void> {
  await transaction(["days"], async (store) => {
    const kept = await result<KeptDay | undefined>(store("days").get(date));
    if (kept && kept.userId === userId)
      await result(store("days").put({ ...kept, day: withStatuses(kept.day, changes) }));
  });
}
