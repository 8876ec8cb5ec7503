/**
 * An in-memory stand-in for the `idb` package's `openDB` (the part src/lib/offline-queue.ts
 * uses: put, get, getAll, transactions over one or more stores, `done`), for unit tests of the
 * offline client without a browser. Bun has no IndexedDB; install it with
 * `mock.module("idb", () => fakeIdb.module)` before importing the code under test.
 */

type Store = Map<string, unknown>;

export interface FakeIdb {
  /** The stores by name (what the code under test wrote), shared by every open. */
  stores: Map<string, Store>;
  /** Every store emptied (between tests). */
  reset(): void;
  /** How many times openDB was called. */
  opens: number;
  /** The next openDB fails once with this error (no IndexedDB, private mode). */
  failNextOpen: Error | null;
  module: {
    openDB: (name: string, version: number, options?: { upgrade?: (db: unknown) => void }) => Promise<unknown>;
  };
}

export function fakeIdb(): FakeIdb {
  const stores = new Map<string, Store>();
  const keyPaths = new Map<string, string | undefined>();
  const storeOf = (name: string) => {
    const store = stores.get(name);
    if (!store) throw new Error(`no object store ${name}`);
    return store;
  };
  const api = (name: string) => ({
    get: async (key: string) => storeOf(name).get(key),
    getAll: async () => [...storeOf(name).values()],
    put: async (value: unknown, key?: string) => {
      const path = keyPaths.get(name);
      const k = path ? String((value as Record<string, unknown>)[path]) : String(key);
      storeOf(name).set(k, structuredClone(value));
      return k;
    },
    delete: async (key: string) => void storeOf(name).delete(key),
    clear: async () => storeOf(name).clear(),
  });
  const database = {
    createObjectStore(name: string, options?: { keyPath?: string }) {
      stores.set(name, new Map());
      keyPaths.set(name, options?.keyPath);
    },
    get: (name: string, key: string) => api(name).get(key),
    getAll: (name: string) => api(name).getAll(),
    put: (name: string, value: unknown, key?: string) => api(name).put(value, key),
    delete: (name: string, key: string) => api(name).delete(key),
    transaction(names: string | string[], _mode?: string) {
      const list = typeof names === "string" ? [names] : names;
      return { store: api(list[0] as string), objectStore: (name: string) => api(name), done: Promise.resolve() };
    },
  };
  const fake: FakeIdb = {
    stores,
    opens: 0,
    failNextOpen: null,
    reset() {
      for (const store of stores.values()) store.clear();
    },
    module: {
      async openDB(_name, _version, options) {
        fake.opens += 1;
        if (fake.failNextOpen) {
          const error = fake.failNextOpen;
          fake.failNextOpen = null;
          throw error;
        }
        if (stores.size === 0) options?.upgrade?.(database);
        return database;
      },
    },
  };
  return fake;
}
