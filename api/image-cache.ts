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

import { FillGuard, OwnedLru } from "./fill-guard";

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
  private readonly lru: OwnedLru<string, CachedImage>;
  private readonly guard = new FillGuard();

  constructor(readonly maxBytes: number = DEFAULT_IMAGE_BYTES) {
    this.lru = new OwnedLru((image) => image.userId, maxBytes);
  }

  /** Bytes held now (for tests and logs). */
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

  get(id: string): CachedImage | undefined {
    return this.lru.get(id);
  }

  /** Keeps an image read from the database, unless it was dropped since `since` or can never fit. */
  set(image: Omit<CachedImage, "bytes">, since: number): void {
    if (this.guard.stale(`i:${image.id}`, since) || this.guard.stale(`u:${image.userId}`, since)) return;
    const bytes = image.body.byteLength + IMAGE_OVERHEAD;
    if (bytes > this.maxBytes) return;
    this.lru.set(image.id, { ...image, bytes });
  }

  /** An image was deleted: forget it. */
  drop(id: string) {
    this.guard.mark(`i:${id}`);
    this.lru.remove(id);
  }

  /** A user changed or was deleted: forget their images (read again on the next request). */
  dropUser(userId: string) {
    this.guard.mark(`u:${userId}`);
    this.lru.removeOwner(userId);
  }

  clear() {
    this.guard.reset();
    this.lru.clear();
  }
}
