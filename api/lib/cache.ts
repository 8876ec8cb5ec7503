/**
 * What this instance keeps in memory, one mechanism for all of it: `Store`, an `lru-cache`
 * sized in bytes whose entries carry tags (a user, a name, an image) and expire within
 * `ttlMs`. Postgres announces every change on CHANGES_CHANNEL (LISTEN/NOTIFY); each instance
 * drops the tags a notification names (`applyNotification`), and the instance that makes a
 * change drops them itself before it answers (`invalidate`). A fill that began before a drop of
 * one of its tags is not kept. Per-instance state that is not a cache: `ctx.instance`.
 * Details: docs/caching.md.
 */
import { LRUCache } from "lru-cache";
import type { User } from "../../db/schema";
import { CACHE_MB_DEFAULTS } from "./config";
import { log } from "./log";
import { spreadTtl } from "./ttl";

export const CHANGES_CHANNEL = "stacktrack_changes";

/**
 * The header by which a route declares that its answer may be kept by the host's response
 * cache (server/cache.ts), with what it shows (`Keep`); removed before the answer is sent.
 */
export const KEEP_HEADER = "x-stacktrack-keep";

/** What a route declares about an answer that may be kept. */
export interface Keep {
  /** Dropped with any of these (./cache.ts `tags`). */
  tags: string[];
  /** A GET of it is a view of this user's profile (api/insights/count.ts). */
  view?: string;
  /** A GET of it is a click on this supplement, owned by `owner`. */
  click?: { id: number; owner: string | null };
  /** Served from memory only within the per-address limit of the public profile API. */
  limit?: "profile";
}

/** The tags changes are announced by. */
export const tags = {
  user: (id: string) => `u:${id}`,
  name: (name: string) => `n:${name.toLowerCase()}`,
  image: (id: string) => `i:${id}`,
  /** Dropped only when the user is deleted (an avatar does not change under its URL). */
  deleted: (id: string) => `d:${id}`,
  /** A `/go/{id}` that names no supplement: any user's change may create it. */
  unknownLink: "go:unknown",
};

/** The tags of a public answer about `name` (whose user it is, if any). */
export const profileTags = (name: string, userId: string | null | undefined): string[] =>
  userId ? [tags.name(name), tags.user(userId)] : [tags.name(name)];

/** The header value of `keep`. */
export const keepHeader = (keep: Keep): string => JSON.stringify(keep);

/** Declares on `response` (a route's own, its headers mutable) that it may be kept. */
export function kept(response: Response, keep: Keep): Response {
  response.headers.set(KEEP_HEADER, keepHeader(keep));
  return response;
}

/** Fill tokens remembered before they are forgotten all at once (every fill begun before then turns stale). */
const MAX_MARKS = 50_000;

interface Held<V> {
  value: V;
  tags: string[];
  size: number;
}

/** Values by key, capped in bytes, least recently used dropped first, dropped by tag. */
export class Store<V extends object> {
  private readonly lru: LRUCache<string, Held<V>> | undefined;
  private readonly keysByTag = new Map<string, Set<string>>();
  private epoch = 0;
  private floor = 0;
  private readonly marks = new Map<string, number>();

  constructor(
    readonly maxBytes: number,
    private readonly ttlMs: number,
  ) {
    if (maxBytes <= 0) return;
    this.lru = new LRUCache<string, Held<V>>({
      maxSize: maxBytes,
      maxEntrySize: maxBytes,
      sizeCalculation: (held) => held.size,
      ttl: ttlMs,
      ttlResolution: 0,
      perf: { now: () => Date.now() },
      dispose: (held, key) => this.untag(key, held.tags),
    });
  }

  /** Bytes held now (tests, logs). */
  get bytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }

  get size(): number {
    return this.lru?.size ?? 0;
  }

  get(key: string): V | undefined {
    return this.lru?.get(key)?.value;
  }

  /** A token to pass to `set`, taken before reading what is to be kept. */
  begin(): number {
    return this.epoch;
  }

  /** Keeps `value` unless one of its tags was dropped after `since` (or it can never fit). */
  set(key: string, value: V, { tags, size, since }: { tags: string[]; size: number; since: number }): boolean {
    if (!this.lru || since < this.floor || tags.some((tag) => (this.marks.get(tag) ?? -1) > since)) return false;
    const bytes = Math.max(1, Math.ceil(size + key.length * 2 + 128));
    if (bytes > this.maxBytes) return false;
    this.lru.set(key, { value, tags, size: bytes }, { ttl: spreadTtl(this.ttlMs) });
    if (!this.lru.has(key)) return false;
    for (const tag of tags) {
      const keys = this.keysByTag.get(tag) ?? new Set();
      keys.add(key);
      this.keysByTag.set(tag, keys);
    }
    return true;
  }

  delete(key: string) {
    this.lru?.delete(key);
  }

  /** Drops every entry tagged `tag`; fills begun before now may not keep one. */
  dropTag(tag: string) {
    this.marks.set(tag, ++this.epoch);
    if (this.marks.size > MAX_MARKS) {
      this.marks.clear();
      this.floor = ++this.epoch;
    }
    for (const key of [...(this.keysByTag.get(tag) ?? [])]) this.lru?.delete(key);
  }

  clear() {
    this.floor = ++this.epoch;
    this.marks.clear();
    this.lru?.clear();
    this.keysByTag.clear();
  }

  private untag(key: string, tags: string[]) {
    for (const tag of tags) {
      const keys = this.keysByTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.keysByTag.delete(tag);
    }
  }
}

export interface CachesOptions {
  /** Entries expire after at most this long whatever happens (5 minutes; spread by ./ttl.ts). */
  ttlMs?: number;
  /** Public answers: pages, their JSON, cards, QR codes, /go redirects (PROFILE_CACHE_MB). */
  profileBytes?: number;
  /** Uploaded avatars (IMAGE_CACHE_MB). */
  imageBytes?: number;
  /** Per-user rows: users and verified sessions (USER_CACHE_MB). */
  userBytes?: number;
}

export interface Change {
  userId?: string | null;
  names?: (string | null | undefined)[];
  /** The user was deleted: their images go too (nothing else announces those). */
  deleted?: boolean;
}

const MB = 1024 * 1024;
/** A user row's memory, roughly (a few short strings). */
const USER_BYTES = 2048;

type Personal = { kind: "user"; user: User } | { kind: "session"; userId: string; expiresAt: number; at: number };

export class Caches {
  readonly ttlMs: number;
  /** The host's response cache (server/cache.ts), by path. */
  readonly responses: Store<object>;
  /** Avatars, apart so that IMAGE_CACHE_MB bounds them (server/cache.ts). */
  readonly images: Store<object>;
  /** Per-user rows (users, verified sessions), by kind and key. */
  private readonly personal: Store<Personal>;

  constructor(options: CachesOptions = {}) {
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    // Unset (unit tests): api/lib/config.ts's defaults, the one place they are written.
    this.responses = new Store(options.profileBytes ?? CACHE_MB_DEFAULTS.PROFILE_CACHE_MB * MB, this.ttlMs);
    this.images = new Store(options.imageBytes ?? CACHE_MB_DEFAULTS.IMAGE_CACHE_MB * MB, this.ttlMs);
    this.personal = new Store(options.userBytes ?? CACHE_MB_DEFAULTS.USER_CACHE_MB * MB, this.ttlMs);
  }

  /** A token to pass to a later `set*`, taken before reading the database. */
  begin(): number {
    return this.personal.begin();
  }

  getUser(id: string): User | undefined {
    const held = this.personal.get(`user:${id}`);
    return held?.kind === "user" ? held.user : undefined;
  }

  setUser(user: User, since: number) {
    this.personal.set(
      `user:${user.id}`,
      { kind: "user", user },
      { tags: [tags.user(user.id)], size: USER_BYTES, since },
    );
  }

  /** The user whose session `cookie` opens, if this instance verified it within `windowMs`. */
  getSession(cookie: string, windowMs: number): string | undefined {
    const held = this.personal.get(`session:${cookie}`);
    if (held?.kind !== "session") return undefined;
    const now = Date.now();
    if (now - held.at > windowMs || now >= held.expiresAt) {
      this.personal.delete(`session:${cookie}`);
      return undefined;
    }
    return held.userId;
  }

  /** Remembers a session better-auth verified (unless one of the user's sessions ended since `since`). */
  setSession(cookie: string, userId: string, expiresAt: number, since: number) {
    const session: Personal = { kind: "session", userId, expiresAt, at: Date.now() };
    this.personal.set(`session:${cookie}`, session, { tags: [`s:${userId}`], size: cookie.length * 2 + 256, since });
  }

  /** Forgets every verified session of a user (one of them ended: they are checked again). */
  dropSessionsOf(userId: string) {
    this.personal.dropTag(`s:${userId}`);
  }

  /** Drops everything `change` may have made stale. */
  invalidate(change: Change) {
    if (change.userId) {
      const user = tags.user(change.userId);
      this.personal.dropTag(user);
      this.responses.dropTag(user);
      this.responses.dropTag(tags.unknownLink);
      if (change.deleted) this.images.dropTag(tags.deleted(change.userId));
    }
    for (const name of change.names ?? []) if (name) this.responses.dropTag(tags.name(name));
  }

  /** An image was deleted. */
  dropImage(id: string) {
    this.images.dropTag(tags.image(id));
  }

  clear() {
    this.responses.clear();
    this.images.clear();
    this.personal.clear();
  }

  /** Applies a notification payload from the database. */
  applyNotification(payload: string) {
    try {
      const message = JSON.parse(payload) as {
        u?: string;
        n?: (string | null)[];
        d?: boolean;
        s?: string;
        i?: string;
      };
      if (message.i) this.dropImage(message.i);
      if (message.s) this.dropSessionsOf(message.s);
      if (message.u || message.n) this.invalidate({ userId: message.u, names: message.n, deleted: message.d === true });
    } catch {
      log.warn("cache: unreadable change notification; dropping everything", { payload });
      this.clear();
    }
  }
}
