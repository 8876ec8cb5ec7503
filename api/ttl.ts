/**
 * When an entry of a cache with a time to live expires. Not all at `ttlMs`: at a random
 * moment in its last quarter. The caches keep everything a start or a deploy fills in its first
 * seconds (every public page asked for, every 'View Product' link), and with one fixed time to
 * live those entries would all expire together, and again every `ttlMs`, as one burst of
 * renders and queries: the bench saw one every 5 minutes, about 1,000 pages re-rendered in a
 * second or two (Postgres at 5 times its usual CPU and the app's rendering code compiled
 * again), which fell on whichever run was under way. Spread over the last quarter, each refill
 * comes when it comes. No entry lives longer than `ttlMs`.
 */
export const TTL_SPREAD = 0.25;

/** The moment (ms, as Date.now) an entry filled at `now` expires; `random` in [0, 1). */
export const expiresAfter = (ttlMs: number, now: number = Date.now(), random: number = Math.random()): number =>
  now + ttlMs * (1 - TTL_SPREAD * random);

/** Whether an entry whose `expiresAt` came from `expiresAfter` has expired (from that moment on). */
export const expired = (entry: { expiresAt: number }): boolean => Date.now() >= entry.expiresAt;
