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
  /** A store's methods; in a read-only transaction, writes throw (as IndexedDB's ReadOnlyError). */
  const api = (name: string, writable = true) => {
    const write = () => {
      if (!writable) throw new Error(`ReadOnlyError: ${name} in a readonly transaction`);
      return storeOf(name);
    };
    return {
      get: async (key: string) => storeOf(name).get(key),
      getAll: async () => [...storeOf(name).values()],
      put: async (value: unknown, key?: string) => {
        const path = keyPaths.get(name);
        const k = path ? String((value as Record<string, unknown>)[path]) : String(key);
        write().set(k, structuredClone(value));
        return k;
      },
      delete: async (key: string) => void write().delete(key),
      clear: async () => write().clear(),
    };
  };
  const database = {
    createObjectStore(name: string, options?: { keyPath?: string }) {
      stores.set(name, new Map());
      keyPaths.set(name, options?.keyPath);
    },
    get: (name: string, key: string) => api(name).get(key),
    getAll: (name: string) => api(name).getAll(),
    put: (name: string, value: unknown, key?: string) => api(name).put(value, key),
    delete: (name: string, key: string) => api(name).delete(key),
    /** Like IndexedDB: only the stores named, `store` only for one, writes only when "readwrite". */
    transaction(names: string | string[], mode: "readonly" | "readwrite" = "readonly") {
      const list = typeof names === "string" ? [names] : names;
      if (list.length === 0 || !list.every((n) => stores.has(n))) throw new Error(`NotFoundError: ${list}`);
      if (mode !== "readonly" && mode !== "readwrite") throw new TypeError(`bad mode ${mode}`);
      const writable = mode === "readwrite";
      const objectStore = (name: string) => {
        if (!list.includes(name)) throw new Error(`NotFoundError: ${name} is not in this transaction`);
        return api(name, writable);
      };
      return {
        store: list.length === 1 ? api(list[0] as string, writable) : undefined,
        objectStore,
        done: Promise.resolve(),
      };
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
