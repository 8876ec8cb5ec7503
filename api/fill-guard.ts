/**
 * The two mechanisms every in-memory cache of the app shares (api/cache.ts, api/image-cache.ts,
 * api/link-cache.ts).
 *
 * `FillGuard`: a fill (a read of the database meant for a cache) takes a token with `begin()`
 * before it reads; a drop marks the keys it concerns; the fill is stored only if none of its
 * keys was marked after its token (`stale`), so a read that raced with a change never keeps
 * what it read. `reset()` (a lost listening connection) makes every fill begun before it stale.
 *
 * `OwnedLru`: entries by key, each with its size in bytes and an owner, least recently used
 * first, capped in bytes and entries; an owner's entries can be dropped at once.
 */

/** Marks remembered before they are forgotten all at once (every fill begun before then turns stale). */
const MAX_MARKS = 50_000;

export class FillGuard {
  private epoch = 0;
  private marks = new Map<string, number>();
  private floor = 0;

  /** A token to pass to `stale`, taken before reading the database. */
  begin(): number {
    return this.epoch;
  }

  /** Whether `key` was marked after the fill that took `since` began (or everything was). */
  stale(key: string, since: number): boolean {
    return since < this.floor || (this.marks.get(key) ?? -1) > since;
  }

  /** A change concerning `key`: fills begun before now may not store it. */
  mark(key: string) {
    this.marks.set(key, ++this.epoch);
    if (this.marks.size > MAX_MARKS) {
      this.marks.clear();
      this.floor = ++this.epoch;
    }
  }

  /** Everything changed: every fill begun before now is stale. */
  reset() {
    this.floor = ++this.epoch;
    this.marks.clear();
  }
}

export class OwnedLru<K, V extends { bytes: number }> {
  private entries = new Map<K, V>();
  private keysByOwner = new Map<string, Set<K>>();
  private held = 0;

  constructor(
    private readonly ownerOf: (value: V) => string,
    readonly maxBytes: number,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
  ) {}

  /** Bytes held now (tests, logs). */
  get bytes(): number {
    return this.held;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry, now the most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Most recently used last: the caps drop from the front.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** Keeps `value` under `key`, then drops the least recently used others while over a cap. */
  set(key: K, value: V) {
    this.remove(key);
    this.entries.set(key, value);
    this.held += value.bytes;
    const owner = this.ownerOf(value);
    const keys = this.keysByOwner.get(owner) ?? new Set();
    keys.add(key);
    this.keysByOwner.set(owner, keys);
    while (this.held > this.maxBytes || this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as K | undefined;
      if (oldest === undefined || oldest === key) break;
      this.remove(oldest);
    }
  }

  remove(key: K) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.held -= entry.bytes;
    const owner = this.ownerOf(entry);
    const keys = this.keysByOwner.get(owner);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByOwner.delete(owner);
  }

  /** Drops every entry of `owner`. */
  removeOwner(owner: string) {
    for (const key of [...(this.keysByOwner.get(owner) ?? [])]) this.remove(key);
  }

  clear() {
    this.entries.clear();
    this.keysByOwner.clear();
    this.held = 0;
  }
}
