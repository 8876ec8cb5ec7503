/**
 * IndexedDB for unit tests of the offline client without a browser (Bun has none): a fresh
 * in-memory `IDBFactory` (fake-indexeddb) as `globalThis.indexedDB` per test, counting its opens
 * and able to fail the next one, plus reads of what the code under test stored.
 */
import { IDBFactory } from "fake-indexeddb";

export class TestIndexedDB extends IDBFactory {
  /** How many times `open` was called. */
  opens = 0;
  /** The next `open` throws this (no IndexedDB: a sandboxed page, a private window). */
  failNextOpen: Error | null = null;

  override open(name: string, version?: number): IDBOpenDBRequest {
    this.opens += 1;
    const error = this.failNextOpen;
    this.failNextOpen = null;
    if (error) throw error;
    return super.open(name, version);
  }
}

/**
 * A fresh, empty IndexedDB as `globalThis.indexedDB`. The previous one's database `name` is
 * deleted first: its open connection gets `versionchange`, so the code under test lets it go
 * and opens the new one on its next call.
 */
export async function freshIndexedDB(name: string): Promise<TestIndexedDB> {
  const previous = (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  if (previous) await done(previous.deleteDatabase(name));
  const factory = new TestIndexedDB();
  (globalThis as { indexedDB?: IDBFactory }).indexedDB = factory;
  return factory;
}

const done = <T>(request: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

/** Runs `work` on `store` of database `name` (as it is now), then closes it. */
async function onStore<T>(
  name: string,
  store: string,
  mode: IDBTransactionMode,
  work: (s: IDBObjectStore) => IDBRequest<T>,
): Promise<T> {
  const database = await done(indexedDB.open(name));
  try {
    return await done(work(database.transaction(store, mode).objectStore(store)));
  } finally {
    database.close();
  }
}

/** Every value in `store`. */
export const storedValues = (name: string, store: string) =>
  onStore<unknown[]>(name, store, "readonly", (s) => s.getAll());

/** The value at `key` in `store`. */
export const storedValue = (name: string, store: string, key: string) =>
  onStore<unknown>(name, store, "readonly", (s) => s.get(key));

/** Writes `value` at `key` in `store` (a store without a key path). */
export const storeValue = (name: string, store: string, key: string, value: unknown) =>
  onStore<IDBValidKey>(name, store, "readwrite", (s) => s.put(value, key));
