/**
 * Ticks made on Today wait here, in IndexedDB, until the server has them (issue 40): one
 * entry per dose (date, supplement, time), the latest change with the time it was made, of
 * the signed-in user only. The service worker's caches share the `OFFLINE_CACHE_PREFIX`.
 * See docs/offline.md.
 */
import { type DBSchema, type IDBPDatabase, openDB } from "idb";
import type { IntakeStatus, IntakeTime } from "./schedule";

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

interface OfflineDb extends DBSchema {
  changes: { key: string; value: QueuedChange };
  meta: { key: string; value: string };
}

export const changeKey = (c: { date: string; supplementId: number; time: string }) =>
  `${c.date}/${c.supplementId}/${c.time}`;

let opened: Promise<IDBPDatabase<OfflineDb>> | null = null;
function db(): Promise<IDBPDatabase<OfflineDb>> {
  opened ??= openDB<OfflineDb>(OFFLINE_CACHE_PREFIX, 1, {
    upgrade(database) {
      database.createObjectStore("changes", { keyPath: "key" });
      database.createObjectStore("meta");
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
  const tx = database.transaction(["changes", "meta"], "readwrite");
  await tx.objectStore("changes").clear();
  await tx.objectStore("meta").put(userId, "owner");
  await tx.done;
  if (anothers) await clearOfflineCaches();
}
