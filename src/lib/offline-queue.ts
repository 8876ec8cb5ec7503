/**
 * Ticks made on Today wait here, in IndexedDB, until the server has them (issue 40): one
 * entry per dose (date, supplement, time), the latest change with the time it was made, of
 * the signed-in user only. Beside them, the device's last Today per date (issue 51): the
 * server's answer with every later change of this device laid over it, and when the server
 * last confirmed it. The service worker's caches share the `OFFLINE_CACHE_PREFIX`.
 * See docs/offline.md.
 */
import { type DBSchema, type IDBPDatabase, openDB } from "idb";
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
}

/** The last Today this device showed for `day.date`: confirmed by the server at `confirmedAt` (ms). */
export interface KeptDay {
  date: string;
  userId: string;
  day: TodayJson;
  confirmedAt: number;
}

interface OfflineDb extends DBSchema {
  changes: { key: string; value: QueuedChange };
  meta: { key: string; value: string };
  days: { key: string; value: KeptDay };
}

/** Kept days: the latest 8 dates (today and the 7 editable days before it). */
export const KEPT_DAYS = 8;

export const changeKey = (c: { date: string; supplementId: number; time: string }) =>
  `${c.date}/${c.supplementId}/${c.time}`;

let opened: Promise<IDBPDatabase<OfflineDb>> | null = null;
function db(): Promise<IDBPDatabase<OfflineDb>> {
  opened ??= openDB<OfflineDb>(OFFLINE_CACHE_PREFIX, 2, {
    upgrade(database, from) {
      if (from < 1) {
        database.createObjectStore("changes", { keyPath: "key" });
        database.createObjectStore("meta");
      }
      if (from < 2) database.createObjectStore("days", { keyPath: "date" });
    },
  });
  opened.catch(() => {
    opened = null;
  });
  return opened;
}

/** Keeps `change` for its dose, in place of an earlier one. */
export async function queueChange(change: QueuedChange): Promise<void> {
  await (await db()).put("changes", change);
}

/** The user's waiting changes, oldest first. */
export async function queuedChanges(userId: string): Promise<QueuedChange[]> {
  const all = await (await db()).getAll("changes");
  return all.filter((c) => c.userId === userId).sort((a, b) => a.tickedAt.localeCompare(b.tickedAt));
}

/** Forgets `change` once sent, unless a newer change to the dose replaced it meanwhile. */
export async function removeChange(change: QueuedChange): Promise<void> {
  const tx = (await db()).transaction("changes", "readwrite");
  const stored = await tx.store.get(change.key);
  if (stored && stored.tickedAt === change.tickedAt && stored.status === change.status)
    await tx.store.delete(change.key);
  await tx.done;
}

/** Deletes the service worker's caches (the dashboard, its assets, the last Today). */
export async function clearOfflineCaches(): Promise<void> {
  if (typeof caches === "undefined") return;
  const names = await caches.keys();
  await Promise.all(names.filter((n) => n.startsWith(OFFLINE_CACHE_PREFIX)).map((n) => caches.delete(n)));
}

/**
 * This browser's offline data belongs to `userId` from now on: when another user's is there
 * (they never signed out), their queue and the worker's caches are deleted, never sent or shown.
 */
export async function claimOfflineData(userId: string): Promise<void> {
  const database = await db();
  const owner = await database.get("meta", "owner");
  if (owner === userId) return;
  // No owner yet: nothing of anyone's was kept (a sign-out's Clear-Site-Data removes both).
  const anothers = owner !== undefined;
  const tx = database.transaction(["changes", "meta", "days"], "readwrite");
  await tx.objectStore("changes").clear();
  await tx.objectStore("days").clear();
  await tx.objectStore("meta").put(userId, "owner");
  await tx.done;
  if (anothers) await clearOfflineCaches();
}

/** Keeps the server's answer for its date, confirmed now; only the latest KEPT_DAYS dates stay. */
export async function keepDay(userId: string, day: TodayJson, confirmedAt: number): Promise<void> {
  const tx = (await db()).transaction("days", "readwrite");
  await tx.store.put({ date: day.date, userId, day, confirmedAt });
  const dates = (await tx.store.getAllKeys()).sort().reverse();
  await Promise.all(dates.slice(KEPT_DAYS).map((date) => tx.store.delete(date)));
  await tx.done;
}

/** The device's last Today for `date`, of `userId` only. */
export async function keptDay(userId: string, date: string): Promise<KeptDay | undefined> {
  const kept = await (await db()).get("days", date);
  return kept?.userId === userId ? kept : undefined;
}

/** Lays this device's changes over its kept copy of their day (what the user now sees there). */
export async function keepChanges(userId: string, date: string, changes: readonly DoseChange[]): Promise<void> {
  const tx = (await db()).transaction("days", "readwrite");
  const kept = await tx.store.get(date);
  if (kept && kept.userId === userId) await tx.store.put({ ...kept, day: withStatuses(kept.day, changes) });
  await tx.done;
}
