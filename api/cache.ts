/**
 * What this instance keeps in memory, and how it learns that it changed.
 *
 * - `users`: user rows by id (the session check's second half), so a signed-in
 *   request costs no database round trip for the user.
 * - `profiles`: rendered public profile pages, their JSON, social card and QR code, by lower-case name
 *   (a 404 is cached too: a viral link to a missing name must not reach Postgres). Only
 *   names that pass the username rule are kept (any other name is a 404 that costs
 *   nothing to compute), and the whole is capped in bytes (PROFILE_CACHE_MB), dropping
 *   the least recently used first, as well as in entries.
 * - `lists`: the body of `GET /api/supplements` per user (for the premium state it was
 *   rendered for: premium fields are hidden from free users).
 * - `todays`: the body of `GET /api/today` per user and date (issue 19); dropped with the
 *   user's list, and on the `{"t": user}` notifications of migration 0007 (log, versions).
 * - `sessions`: session cookies this instance has verified with better-auth, by the
 *   cookie's exact (signed) value, for a short window (SESSION_COOKIE_CACHE_SECONDS).
 * - `images`: uploaded avatars by id, capped in bytes (IMAGE_CACHE_MB; api/image-cache.ts).
 *   Dropped on the `{"i": id}` notification the deleting statement sends (api/images.ts) and
 *   with their user when the account is deleted (`{"u": id, "d": true}`, migration 0009): an
 *   edit of the profile or of a supplement leaves the avatar's bytes as they are.
 * - `links`: where `/go/{supplementId}` leads, or "no link" (issue 14; api/link-cache.ts),
 *   dropped with their owner (`u`: premium, the switch, an edit or delete of the supplement,
 *   the account deleted) and capped in bytes.
 *
 * Database triggers (migrations 0001, 0002) announce every change to users and
 * supplements, and every ended session, on the channel `stacktrack_changes`; each
 * instance LISTENs and drops what changed,
 * so another instance sees an edit within milliseconds. The instance that makes a
 * change also drops its own copies before it answers (`invalidate`), so the next
 * request there is fresh whatever the notification's timing. A fill that raced with
 * an invalidation is not stored. If the listening connection is lost, everything is
 * dropped when it is back, and entries expire after `ttlMs` at the latest in any case
 * (each at a random moment of its last quarter: ./ttl.ts).
 */
import type { User } from "../db/schema";
import { isValidUsername } from "../src/lib/validation";
import { FillGuard } from "./fill-guard";
import { DEFAULT_IMAGE_BYTES, ImageCache } from "./image-cache";
import { LinkCache } from "./link-cache";
import { log } from "./log";
import { markSecured, securedHeaders } from "./security";
import { expired, expiresAfter } from "./ttl";

export const CHANGES_CHANNEL = "stacktrack_changes";
/** Set by the profile page for the server's cache bookkeeping; removed before sending. */
export const PROFILE_USER_HEADER = "x-stacktrack-profile-user";

export interface CachedBody {
  status: number;
  body: Uint8Array<ArrayBuffer>;
  headers: [string, string][];
  etag: string;
}

/** What is kept per profile: its page, its JSON, its social card and its QR code (issue 16). */
export type ProfileKind = "page" | "json" | "card" | "qr";

/** Issue 14: whose page a held profile is (null: a cached 404), for the view counter. */
export interface ProfileOwner {
  readonly userId: string | null;
}

interface ProfileEntry extends ProfileOwner {
  page?: CachedBody;
  json?: CachedBody;
  card?: CachedBody;
  qr?: CachedBody;
  /** When it expires (./ttl.ts): from the first of its bodies, which all go together. */
  expiresAt: number;
  /** What this entry holds in memory, roughly (bodies, headers, key). */
  bytes: number;
}

/** The memory a cached body takes, roughly: its bytes, its headers and a fixed overhead. */
export function cachedBodyBytes(body: CachedBody): number {
  let bytes = body.body.byteLength + body.etag.length * 2 + 64;
  for (const [key, value] of body.headers) bytes += (key.length + value.length) * 2 + 32;
  return bytes;
}

export interface CachesOptions {
  /** Entries expire after at most this long whatever happens (5 minutes; ./ttl.ts spreads them over its last quarter). */
  ttlMs?: number;
  /** The most bytes of profile pages and JSON kept (PROFILE_CACHE_MB). */
  profileBytes?: number;
  /** The most bytes of avatars kept (IMAGE_CACHE_MB). */
  imageBytes?: number;
  /** The most bytes of per-user answers (supplement lists and Today) kept (USER_CACHE_MB). */
  answerBytes?: number;
}

const ENTRY_OVERHEAD = 128;
const DEFAULT_PROFILE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_ANSWER_BYTES = 32 * 1024 * 1024;

export interface Change {
  userId?: string | null;
  names?: (string | null | undefined)[];
  /** The user was deleted: their images go too (nothing else announces those). */
  deleted?: boolean;
}

interface SessionEntry {
  userId: string;
  /** When better-auth said the session itself expires (ms since the epoch). */
  expiresAt: number;
  at: number;
}

const MAX_USERS = 20_000;
const MAX_PROFILES = 20_000;
const MAX_LISTS = 20_000;
const MAX_SESSIONS = 50_000;

/** Drops the oldest entry of a Map (insertion order) once it holds `max`. */
function makeRoom<K, V>(map: Map<K, V>, max: number, drop: (key: K) => void = (key) => map.delete(key)) {
  if (map.size >= max) drop(map.keys().next().value as K);
}

export class Caches {
  private users = new Map<string, { user: User; expiresAt: number }>();
  private profiles = new Map<string, ProfileEntry>();
  private keysByUser = new Map<string, Set<string>>();
  private lists = new Map<string, { premium: boolean; body: CachedBody; expiresAt: number }>();
  /** GET /api/today bodies per user, by date (issue 19); dropped with the user and on `t` notifications. */
  private todays = new Map<string, Map<string, { body: CachedBody; expiresAt: number }>>();
  private sessions = new Map<string, SessionEntry>();
  private sessionsByUser = new Map<string, Set<string>>();
  /** A fill started before an invalidation of its key is not stored. */
  private readonly guard = new FillGuard();
  private profileBytes = 0;
  /**
   * The per-user answers (lists and Todays) by key (`l|user`, `t|user|date`) with their size,
   * least recently used first: what the byte cap drops from.
   */
  private answers = new Map<string, { size: number; userId: string; date?: string }>();
  private answerBytes = 0;
  readonly ttlMs: number;
  readonly maxProfileBytes: number;
  readonly maxAnswerBytes: number;
  /** Uploaded avatars (immutable under their URL), until deleted. */
  readonly images: ImageCache;
  /** Where /go/{id} leads (issue 14), until its owner changes. */
  readonly links: LinkCache;

  constructor(options: CachesOptions = {}) {
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.maxProfileBytes = options.profileBytes ?? DEFAULT_PROFILE_BYTES;
    this.maxAnswerBytes = options.answerBytes ?? DEFAULT_ANSWER_BYTES;
    this.images = new ImageCache(options.imageBytes ?? DEFAULT_IMAGE_BYTES);
    this.links = new LinkCache(undefined, this.ttlMs);
  }

  /** Bytes of profile pages and JSON held now (for tests and logs). */
  get profileCacheBytes(): number {
    return this.profileBytes;
  }

  /** Bytes of per-user answers (lists and Todays) held now (for tests and logs). */
  get answerCacheBytes(): number {
    return this.answerBytes;
  }

  /** Profile entries held now. */
  get profileCacheEntries(): number {
    return this.profiles.size;
  }

  /** A token to pass to a later `set*`, taken before reading the database. */
  begin(): number {
    return this.guard.begin();
  }

  /** Whether `key` was invalidated after the fill that took `since` began (or everything was). */
  private stale(key: string, since: number): boolean {
    return this.guard.stale(key, since);
  }

  private mark(key: string) {
    this.guard.mark(key);
  }

  getUser(id: string): User | undefined {
    const hit = this.users.get(id);
    if (!hit) return undefined;
    if (expired(hit)) {
      this.users.delete(id);
      return undefined;
    }
    return hit.user;
  }

  setUser(user: User, since: number) {
    if (this.stale(`u:${user.id}`, since)) return;
    makeRoom(this.users, MAX_USERS);
    this.users.set(user.id, { user, expiresAt: expiresAfter(this.ttlMs) });
  }

  /** A user's supplement list as rendered for `premium`, if this instance has it. */
  getList(userId: string, premium: boolean): CachedBody | undefined {
    const hit = this.lists.get(userId);
    if (!hit) return undefined;
    if (hit.premium !== premium || expired(hit)) {
      this.dropList(userId);
      return undefined;
    }
    this.touchAnswer(`l|${userId}`);
    return hit.body;
  }

  setList(userId: string, premium: boolean, body: CachedBody, since: number) {
    if (this.stale(`u:${userId}`, since)) return;
    const size = cachedBodyBytes(body) + ENTRY_OVERHEAD + userId.length * 2;
    if (size > this.maxAnswerBytes) return; // would never fit
    this.dropList(userId);
    makeRoom(this.lists, MAX_LISTS, (oldest) => this.dropList(oldest));
    this.lists.set(userId, { premium, body, expiresAt: expiresAfter(this.ttlMs) });
    this.addAnswer(`l|${userId}`, { size, userId });
  }

  private dropList(userId: string) {
    if (this.lists.delete(userId)) this.forgetAnswer(`l|${userId}`);
  }

  /** Counts a stored answer and drops the least recently used ones beyond the byte cap. */
  private addAnswer(key: string, answer: { size: number; userId: string; date?: string }) {
    this.answers.set(key, answer);
    this.answerBytes += answer.size;
    for (const [oldest, { userId, date }] of this.answers) {
      if (this.answerBytes <= this.maxAnswerBytes || oldest === key) break;
      if (date === undefined) this.dropList(userId);
      else this.dropToday(userId, date);
    }
  }

  private touchAnswer(key: string) {
    const answer = this.answers.get(key);
    if (!answer) return;
    this.answers.delete(key);
    this.answers.set(key, answer);
  }

  private forgetAnswer(key: string) {
    const answer = this.answers.get(key);
    if (!answer) return;
    this.answers.delete(key);
    this.answerBytes -= answer.size;
  }

  /** A user's Today answer for `date`, if this instance has it. */
  getToday(userId: string, date: string): CachedBody | undefined {
    const hit = this.todays.get(userId)?.get(date);
    if (!hit) return undefined;
    if (expired(hit)) {
      this.dropToday(userId, date);
      return undefined;
    }
    this.touchAnswer(`t|${userId}|${date}`);
    return hit.body;
  }

  setToday(userId: string, date: string, body: CachedBody, since: number) {
    if (this.stale(`u:${userId}`, since) || this.stale(`t:${userId}`, since)) return;
    const size = cachedBodyBytes(body) + ENTRY_OVERHEAD + (userId.length + date.length) * 2;
    if (size > this.maxAnswerBytes) return; // would never fit
    this.dropToday(userId, date);
    let byDate = this.todays.get(userId);
    if (!byDate) {
      makeRoom(this.todays, MAX_LISTS, (oldest) => this.dropTodaysOf(oldest));
      byDate = new Map();
      this.todays.set(userId, byDate);
    }
    makeRoom(byDate, 8, (oldest) => this.dropToday(userId, oldest));
    byDate.set(date, { body, expiresAt: expiresAfter(this.ttlMs) });
    this.addAnswer(`t|${userId}|${date}`, { size, userId, date });
  }

  private dropToday(userId: string, date: string) {
    const byDate = this.todays.get(userId);
    if (!byDate?.delete(date)) return;
    this.forgetAnswer(`t|${userId}|${date}`);
    if (byDate.size === 0) this.todays.delete(userId);
  }

  private dropTodaysOf(userId: string) {
    for (const date of [...(this.todays.get(userId)?.keys() ?? [])]) this.dropToday(userId, date);
  }

  /** Forgets a user's Today answers (their log or schedule versions changed). */
  dropTodays(userId: string) {
    this.mark(`t:${userId}`);
    this.dropTodaysOf(userId);
  }

  /** The user whose session `cookie` opens, if this instance verified it within `windowMs`. */
  getSession(cookie: string, windowMs: number): string | undefined {
    const hit = this.sessions.get(cookie);
    if (!hit) return undefined;
    const now = Date.now();
    if (now - hit.at > windowMs || now >= hit.expiresAt) {
      this.dropSession(cookie);
      return undefined;
    }
    return hit.userId;
  }

  /** Remembers a session better-auth verified (unless one of the user's sessions ended since `since`). */
  setSession(cookie: string, userId: string, expiresAt: number, since: number) {
    if (this.stale(`s:${userId}`, since)) return;
    this.dropSession(cookie);
    makeRoom(this.sessions, MAX_SESSIONS, (key) => this.dropSession(key));
    this.sessions.set(cookie, { userId, expiresAt, at: Date.now() });
    const keys = this.sessionsByUser.get(userId) ?? new Set();
    keys.add(cookie);
    this.sessionsByUser.set(userId, keys);
  }

  /** Forgets one verified session cookie. */
  private dropSession(cookie: string) {
    const entry = this.sessions.get(cookie);
    if (!entry) return;
    this.sessions.delete(cookie);
    const keys = this.sessionsByUser.get(entry.userId);
    keys?.delete(cookie);
    if (keys?.size === 0) this.sessionsByUser.delete(entry.userId);
  }

  /** Forgets every verified session of a user (one of them ended: they are checked again). */
  dropSessionsOf(userId: string) {
    this.mark(`s:${userId}`);
    for (const key of this.sessionsByUser.get(userId) ?? []) this.sessions.delete(key);
    this.sessionsByUser.delete(userId);
  }

  getProfile(name: string, kind: ProfileKind): CachedBody | undefined {
    if (!isValidUsername(name)) return undefined;
    const key = name.toLowerCase();
    const entry = this.profiles.get(key);
    if (!entry) return undefined;
    if (expired(entry)) {
      this.dropProfile(key);
      return undefined;
    }
    // Most recently used last: the byte cap drops from the front.
    this.profiles.delete(key);
    this.profiles.set(key, entry);
    return entry[kind];
  }

  /**
   * Issue 14's view count: the held page of `name` (its `userId` null: a cached 404), or
   * undefined when this instance holds none.
   */
  profileOwner(name: string): ProfileOwner | undefined {
    return this.profiles.get(name.toLowerCase());
  }

  /** Keeps a rendered profile (never for a name that fails the username rule). */
  setProfile(name: string, kind: ProfileKind, userId: string | null, value: CachedBody, since: number) {
    if (!isValidUsername(name)) return;
    const key = name.toLowerCase();
    if (this.stale(`p:${key}`, since) || (userId && this.stale(`u:${userId}`, since))) return;
    const size = cachedBodyBytes(value);
    if (size + ENTRY_OVERHEAD + key.length * 2 > this.maxProfileBytes) return; // would never fit
    let entry = this.profiles.get(key);
    if (!entry || entry.userId !== userId) {
      if (entry) this.dropProfile(key);
      makeRoom(this.profiles, MAX_PROFILES, (oldest) => this.dropProfile(oldest));
      entry = {
        userId,
        expiresAt: expiresAfter(this.ttlMs),
        bytes: ENTRY_OVERHEAD + key.length * 2,
      };
      this.profileBytes += entry.bytes;
      this.profiles.set(key, entry);
      if (userId) {
        const keys = this.keysByUser.get(userId) ?? new Set();
        keys.add(key);
        this.keysByUser.set(userId, keys);
      }
    } else {
      this.profiles.delete(key);
      this.profiles.set(key, entry);
    }
    const previous = entry[kind];
    if (previous) {
      entry.bytes -= cachedBodyBytes(previous);
      this.profileBytes -= cachedBodyBytes(previous);
    }
    entry[kind] = value;
    entry.bytes += size;
    this.profileBytes += size;
    // Least recently used first, never the entry just stored.
    while (this.profileBytes > this.maxProfileBytes) {
      const oldest = this.profiles.keys().next().value as string | undefined;
      if (oldest === undefined || oldest === key) break;
      this.dropProfile(oldest);
    }
  }

  private dropProfile(key: string) {
    const entry = this.profiles.get(key);
    this.profiles.delete(key);
    if (entry) this.profileBytes -= entry.bytes;
    if (entry?.userId) {
      const keys = this.keysByUser.get(entry.userId);
      keys?.delete(key);
      if (keys?.size === 0) this.keysByUser.delete(entry.userId);
    }
  }

  /** Drops everything `change` may have made stale. */
  invalidate(change: Change) {
    if (change.userId) {
      this.mark(`u:${change.userId}`);
      this.users.delete(change.userId);
      this.dropList(change.userId);
      this.dropTodaysOf(change.userId);
      if (change.deleted) this.images.dropUser(change.userId);
      this.links.dropUser(change.userId);
      for (const key of [...(this.keysByUser.get(change.userId) ?? [])]) {
        this.mark(`p:${key}`);
        this.dropProfile(key);
      }
    }
    for (const name of change.names ?? []) {
      if (!name) continue;
      const key = name.toLowerCase();
      this.mark(`p:${key}`);
      this.dropProfile(key);
    }
  }

  clear() {
    this.guard.reset();
    this.users.clear();
    this.profiles.clear();
    this.profileBytes = 0;
    this.keysByUser.clear();
    this.lists.clear();
    this.todays.clear();
    this.answers.clear();
    this.answerBytes = 0;
    this.sessions.clear();
    this.sessionsByUser.clear();
    this.images.clear();
    this.links.clear();
  }

  /** Applies a notification payload from the database. */
  applyNotification(payload: string) {
    try {
      const message = JSON.parse(payload) as {
        u?: string;
        n?: (string | null)[];
        d?: boolean;
        s?: string;
        t?: string;
        i?: string;
      };
      if (message.i) this.images.drop(message.i);
      if (message.s) this.dropSessionsOf(message.s);
      if (message.t) this.dropTodays(message.t);
      if (message.u || message.n) this.invalidate({ userId: message.u, names: message.n, deleted: message.d === true });
    } catch {
      log.warn("cache: unreadable change notification; dropping everything", { payload });
      this.clear();
    }
  }
}

/** A body with its ETag, ready to cache. */
export async function toCachedBody(response: Response): Promise<CachedBody> {
  const body = new Uint8Array(await response.arrayBuffer());
  const headers: [string, string][] = [];
  response.headers.forEach((value, key) => {
    if (key !== "content-length" && key !== "set-cookie" && key !== "etag") headers.push([key, value]);
  });
  return { status: response.status, body, headers, etag: `"${Bun.hash(body).toString(36)}"` };
}

/** The final headers of a cached body's answers (the same for its 200 and its 304), once per body. */
const securedOf = new WeakMap<CachedBody, { security: Record<string, string>; headers: Headers }>();

/**
 * Serves a cached body, answering 304 to a matching If-None-Match. With `security` (the
 * server's security headers, api/security.ts securityHeadersOf), the answer carries its final
 * headers, worked out on first use of the body instead of on every request; with `once` (the
 * answer of the fill itself), they are worked out for this answer only and kept from the
 * second use on: a page asked for once (most of a long tail) never holds its own copy of the
 * headers (about 3 KB each, measured).
 */
export function serveCached(
  cached: CachedBody,
  request: Request,
  security?: Record<string, string>,
  once = false,
): Response {
  if (security) {
    let secured = securedOf.get(cached);
    if (secured?.security !== security) {
      secured = { security, headers: securedHeaders([...cached.headers, ["ETag", cached.etag]], security) };
      if (!once) securedOf.set(cached, secured);
    }
    const notModified = request.headers.get("if-none-match") === cached.etag;
    const body = notModified || request.method === "HEAD" ? null : cached.body;
    return markSecured(new Response(body, { status: notModified ? 304 : cached.status, headers: secured.headers }));
  }
  const headers = new Headers(cached.headers);
  headers.set("ETag", cached.etag);
  if (request.headers.get("if-none-match") === cached.etag) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(request.method === "HEAD" ? null : cached.body, { status: cached.status, headers });
}
