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
 * expire after `ttlMs` at the latest whatever happens (./ttl.ts), and everything is dropped when the listening
 * connection comes back. Capped in bytes (LINK_CACHE_BYTES) and entries, least recently used
 * first.
 */

import { FillGuard, OwnedLru } from "./fill-guard";
import { expired, expiresAfter } from "./ttl";

export interface HeldLink {
  id: number;
  /** The supplement's owner; null when there is no such supplement. */
  ownerId: string | null;
  /** Where /go/{id} redirects; null when it answers 404. */
  target: string | null;
  /** When it expires (./ttl.ts). */
  expiresAt: number;
  bytes: number;
}

/** Room an entry takes besides its URL (entry, key, index), roughly. */
const LINK_OVERHEAD = 200;
/** 8 MB: some 30,000 links of 100 characters, or 2,000 of the longest allowed (2,048). */
export const LINK_CACHE_BYTES = 8 * 1024 * 1024;
const MAX_LINKS = 50_000;
/** The owner unknown ids are kept under (no user id is empty), and their fill-guard key. */
const UNKNOWN_OWNER = "";
const UNKNOWN = "unknown";

export class LinkCache {
  private readonly lru: OwnedLru<number, HeldLink>;
  private readonly guard = new FillGuard();

  constructor(
    readonly maxBytes: number = LINK_CACHE_BYTES,
    readonly ttlMs: number = 5 * 60_000,
  ) {
    this.lru = new OwnedLru((link) => link.ownerId ?? UNKNOWN_OWNER, maxBytes, MAX_LINKS);
  }

  /** Bytes held now (tests, logs). */
  get bytes(): number {
    return this.lru.bytes;
  }

  get size(): number {
    return this.lru.size;
  }

  /** A token to pass to `set`, taken before reading the database. */
  begin(): number {
    return this.guard.begin();
  }

  get(id: number): HeldLink | undefined {
    const entry = this.lru.get(id);
    if (entry && expired(entry)) {
      this.lru.remove(id);
      return undefined;
    }
    return entry;
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
      expiresAt: expiresAfter(this.ttlMs),
      bytes: LINK_OVERHEAD + (target?.length ?? 0) * 2 + (ownerId?.length ?? 0) * 2,
    };
    if (!this.guard.stale(ownerId ? `u:${ownerId}` : UNKNOWN, since)) this.lru.set(id, entry);
    return entry;
  }

  /**
   * A user or one of their supplements changed (or was deleted): forget where their links
   * lead, and every unknown id (the change may have created it).
   */
  dropUser(userId: string) {
    this.guard.mark(`u:${userId}`);
    this.guard.mark(UNKNOWN);
    this.lru.removeOwner(userId);
    this.lru.removeOwner(UNKNOWN_OWNER);
  }

  clear() {
    this.guard.reset();
    this.lru.clear();
  }
}
