/**
 * Where `/go/{supplementId}` leads (issue 14), kept in memory per supplement id so that a warm
 * click costs no SQL statement: the resolved affiliate URL, or "no link" (unknown id, free or
 * lapsed owner, no link stored, links turned off, a stored link that is not http(s)).
 *
 * Every way a link can start or stop showing changes a row of `users` or `supplements`, whose
 * triggers announce the owner on the change channel (`{"u": owner}`, migration 0001): premium
 * starting or ending (the billing webhook), either switch, a supplement added, edited or
 * deleted, the account deleted. Each instance then drops that owner's entries
 * (api/cache.ts `invalidate`, which the changing instance also calls itself before it
 * answers). An unknown id has no owner to be announced by, so every such announcement drops
 * every unknown id too (a supplement just created may be one of them). A fill that began
 * before a drop that concerns it is not stored (the epoch rule of the other caches), entries
 * expire after `ttlMs` whatever happens, and everything is dropped when the listening
 * connection comes back. Capped in bytes (LINK_CACHE_BYTES) and entries, least recently used
 * first.
 */

export interface HeldLink {
  id: number;
  /** The supplement's owner; null when there is no such supplement. */
  ownerId: string | null;
  /** Where /go/{id} redirects; null when it answers 404. */
  target: string | null;
  at: number;
  bytes: number;
}

/** Room an entry takes besides its URL (entry, key, index), roughly. */
const LINK_OVERHEAD = 200;
/** 8 MB: some 30,000 links of 100 characters, or 2,000 of the longest allowed (2,048). */
export const LINK_CACHE_BYTES = 8 * 1024 * 1024;
const MAX_LINKS = 50_000;
const UNKNOWN = "unknown";

export class LinkCache {
  private entries = new Map<number, HeldLink>();
  private idsByOwner = new Map<string, Set<number>>();
  private unknown = new Set<number>();
  private epoch = 0;
  private invalidatedAt = new Map<string, number>();
  private floor = 0;
  private held = 0;

  constructor(
    readonly maxBytes: number = LINK_CACHE_BYTES,
    readonly ttlMs: number = 5 * 60_000,
  ) {}

  /** Bytes held now (tests, logs). */
  get bytes(): number {
    return this.held;
  }

  get size(): number {
    return this.entries.size;
  }

  /** A token to pass to `set`, taken before reading the database. */
  begin(): number {
    return this.epoch;
  }

  get(id: number): HeldLink | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (Date.now() - entry.at > this.ttlMs) {
      this.remove(id);
      return undefined;
    }
    // Most recently used last: the caps drop from the front.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry;
  }

  private stale(key: string, since: number): boolean {
    return since < this.floor || (this.invalidatedAt.get(key) ?? -1) > since;
  }

  private mark(key: string) {
    this.invalidatedAt.set(key, ++this.epoch);
    if (this.invalidatedAt.size > 50_000) {
      this.invalidatedAt.clear();
      this.floor = ++this.epoch;
    }
  }

  /**
   * What the database said about `id` (read after `begin()` gave `since`), kept unless a drop
   * that concerns it came in meanwhile. Returns the entry either way.
   */
  set(id: number, ownerId: string | null, target: string | null, since: number): HeldLink {
    const entry: HeldLink = {
      id,
      ownerId,
      target,
      at: Date.now(),
      bytes: LINK_OVERHEAD + (target?.length ?? 0) * 2 + (ownerId?.length ?? 0) * 2,
    };
    if (this.stale(ownerId ? `u:${ownerId}` : UNKNOWN, since)) return entry;
    this.remove(id);
    this.entries.set(id, entry);
    this.held += entry.bytes;
    if (ownerId) {
      const ids = this.idsByOwner.get(ownerId) ?? new Set();
      ids.add(id);
      this.idsByOwner.set(ownerId, ids);
    } else this.unknown.add(id);
    while (this.held > this.maxBytes || this.entries.size > MAX_LINKS) {
      const oldest = this.entries.keys().next().value as number | undefined;
      if (oldest === undefined || oldest === id) break;
      this.remove(oldest);
    }
    return entry;
  }

  private remove(id: number) {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.held -= entry.bytes;
    if (!entry.ownerId) {
      this.unknown.delete(id);
      return;
    }
    const ids = this.idsByOwner.get(entry.ownerId);
    ids?.delete(id);
    if (ids?.size === 0) this.idsByOwner.delete(entry.ownerId);
  }

  /**
   * A user or one of their supplements changed (or was deleted): forget where their links
   * lead, and every unknown id (the change may have created it).
   */
  dropUser(userId: string) {
    this.mark(`u:${userId}`);
    this.mark(UNKNOWN);
    for (const id of [...(this.idsByOwner.get(userId) ?? [])]) this.remove(id);
    for (const id of [...this.unknown]) this.remove(id);
  }

  clear() {
    this.floor = ++this.epoch;
    this.invalidatedAt.clear();
    this.entries.clear();
    this.idsByOwner.clear();
    this.unknown.clear();
    this.held = 0;
  }
}
