/**
 * Profile images (`/images/{id}.webp`) kept in memory: an image never changes under its URL
 * (its id is a hash of its owner and its bytes), so once read it is served without asking
 * Postgres, until it is deleted. Capped in bytes (IMAGE_CACHE_MB), least recently used first.
 *
 * Deleted images stop being served on every instance at once: the statement that deletes
 * them announces each id on the change channel (`{"i": id}`, api/images.ts), a deleted
 * account announces its user (`{"u": id}`, migration 0001), and every instance drops them
 * (api/cache.ts applyNotification). A fill that began before such a drop is not stored (the
 * same epoch rule as the profile caches), so a read racing with the delete cannot keep it.
 */

export interface CachedImage {
  id: string;
  userId: string;
  body: Uint8Array<ArrayBuffer>;
  /** Headers of the 200 (without the security headers, which the server adds). */
  contentType: string;
  bytes: number;
}

/** Room a cached image takes besides its bytes (entry, key, index), roughly. */
const IMAGE_OVERHEAD = 256;
export const DEFAULT_IMAGE_BYTES = 32 * 1024 * 1024;

export class ImageCache {
  private entries = new Map<string, CachedImage>();
  private idsByUser = new Map<string, Set<string>>();
  private epoch = 0;
  private invalidatedAt = new Map<string, number>();
  private floor = 0;
  private held = 0;
  readonly maxBytes: number;

  constructor(maxBytes: number = DEFAULT_IMAGE_BYTES) {
    this.maxBytes = maxBytes;
  }

  /** Bytes held now (for tests and logs). */
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

  get(id: string): CachedImage | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    // Most recently used last: the cap drops from the front.
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

  /** Keeps an image read from the database, unless it was dropped since `since` or can never fit. */
  set(image: Omit<CachedImage, "bytes">, since: number): void {
    if (this.stale(`i:${image.id}`, since) || this.stale(`u:${image.userId}`, since)) return;
    const bytes = image.body.byteLength + IMAGE_OVERHEAD;
    if (bytes > this.maxBytes) return;
    this.remove(image.id);
    const entry: CachedImage = { ...image, bytes };
    this.entries.set(image.id, entry);
    this.held += bytes;
    const ids = this.idsByUser.get(image.userId) ?? new Set();
    ids.add(image.id);
    this.idsByUser.set(image.userId, ids);
    while (this.held > this.maxBytes) {
      const oldest = this.entries.keys().next().value as string | undefined;
      if (oldest === undefined || oldest === image.id) break;
      this.remove(oldest);
    }
  }

  private remove(id: string) {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.held -= entry.bytes;
    const ids = this.idsByUser.get(entry.userId);
    ids?.delete(id);
    if (ids?.size === 0) this.idsByUser.delete(entry.userId);
  }

  /** An image was deleted: forget it. */
  drop(id: string) {
    this.mark(`i:${id}`);
    this.remove(id);
  }

  /** A user changed or was deleted: forget their images (read again on the next request). */
  dropUser(userId: string) {
    this.mark(`u:${userId}`);
    for (const id of [...(this.idsByUser.get(userId) ?? [])]) this.remove(id);
  }

  clear() {
    this.floor = ++this.epoch;
    this.invalidatedAt.clear();
    this.entries.clear();
    this.idsByUser.clear();
    this.held = 0;
  }
}
