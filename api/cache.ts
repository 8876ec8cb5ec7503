/**
 * What this instance keeps in memory, and how it learns that it changed.
 *
 * - `users`: user rows by id (the session check's second half), so a signed-in
 *   request costs no database round trip for the user.
 * - `profiles`: rendered public profile pages and their JSON, by lower-case name
 *   (a 404 is cached too: a viral link to a missing name must not reach Postgres).
 *
 * Database triggers (migration 0001) announce every change to users and supplements
 * on the channel `stacktrack_changes`; each instance LISTENs and drops what changed,
 * so another instance sees an edit within milliseconds. The instance that makes a
 * change also drops its own copies before it answers (`invalidate`), so the next
 * request there is fresh whatever the notification's timing. A fill that raced with
 * an invalidation is not stored. If the listening connection is lost, everything is
 * dropped when it is back, and entries expire after `ttlMs` in any case.
 */
import type { User } from "../db/schema";
import { log } from "./log";

export const CHANGES_CHANNEL = "stacktrack_changes";
/** Set by the profile page for the server's cache bookkeeping; removed before sending. */
export const PROFILE_USER_HEADER = "x-stacktrack-profile-user";

export interface CachedBody {
  status: number;
  body: Uint8Array<ArrayBuffer>;
  headers: [string, string][];
  etag: string;
}

interface ProfileEntry {
  userId: string | null;
  page?: CachedBody;
  json?: CachedBody;
  at: number;
}

export interface Change {
  userId?: string | null;
  names?: (string | null | undefined)[];
}

const MAX_USERS = 20_000;
const MAX_PROFILES = 20_000;

export class Caches {
  private users = new Map<string, { user: User; at: number }>();
  private profiles = new Map<string, ProfileEntry>();
  private keysByUser = new Map<string, Set<string>>();
  /** Bumped on every invalidation; a fill started before a bump for its key is not stored. */
  private epoch = 0;
  private invalidatedAt = new Map<string, number>();
  private floor = 0;

  constructor(readonly ttlMs = 5 * 60_000) {}

  /** A token to pass to a later `set*`, taken before reading the database. */
  begin(): number {
    return this.epoch;
  }

  private stale(key: string, since: number): boolean {
    return since < this.floor || (this.invalidatedAt.get(key) ?? -1) >= since;
  }

  private mark(key: string) {
    this.invalidatedAt.set(key, ++this.epoch);
    if (this.invalidatedAt.size > 50_000) {
      this.invalidatedAt.clear();
      this.floor = ++this.epoch;
    }
  }

  getUser(id: string): User | undefined {
    const hit = this.users.get(id);
    if (!hit) return undefined;
    if (Date.now() - hit.at > this.ttlMs) {
      this.users.delete(id);
      return undefined;
    }
    return hit.user;
  }

  setUser(user: User, since: number) {
    if (this.stale(`u:${user.id}`, since)) return;
    if (this.users.size >= MAX_USERS) this.users.delete(this.users.keys().next().value as string);
    this.users.set(user.id, { user, at: Date.now() });
  }

  getProfile(name: string, kind: "page" | "json"): CachedBody | undefined {
    const key = name.toLowerCase();
    const entry = this.profiles.get(key);
    if (!entry) return undefined;
    if (Date.now() - entry.at > this.ttlMs) {
      this.dropProfile(key);
      return undefined;
    }
    return entry[kind];
  }

  setProfile(name: string, kind: "page" | "json", userId: string | null, value: CachedBody, since: number) {
    const key = name.toLowerCase();
    if (this.stale(`p:${key}`, since) || (userId && this.stale(`u:${userId}`, since))) return;
    let entry = this.profiles.get(key);
    if (!entry || entry.userId !== userId) {
      if (entry) this.dropProfile(key);
      if (this.profiles.size >= MAX_PROFILES) this.dropProfile(this.profiles.keys().next().value as string);
      entry = { userId, at: Date.now() };
      this.profiles.set(key, entry);
      if (userId) {
        const keys = this.keysByUser.get(userId) ?? new Set();
        keys.add(key);
        this.keysByUser.set(userId, keys);
      }
    }
    entry[kind] = value;
  }

  private dropProfile(key: string) {
    const entry = this.profiles.get(key);
    this.profiles.delete(key);
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
    this.floor = ++this.epoch;
    this.invalidatedAt.clear();
    this.users.clear();
    this.profiles.clear();
    this.keysByUser.clear();
  }

  /** Applies a notification payload from the database. */
  applyNotification(payload: string) {
    try {
      const message = JSON.parse(payload) as { u?: string; n?: (string | null)[] };
      this.invalidate({ userId: message.u, names: message.n });
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

/** Serves a cached body, answering 304 to a matching If-None-Match. */
export function serveCached(cached: CachedBody, request: Request): Response {
  const headers = new Headers(cached.headers);
  headers.set("ETag", cached.etag);
  if (request.headers.get("if-none-match") === cached.etag) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(request.method === "HEAD" ? null : cached.body, { status: cached.status, headers });
}
