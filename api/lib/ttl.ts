/**
 * How long a cache entry lives: not `ttlMs` for all, but until a random moment of its last
 * quarter. A start or a deploy fills the caches in its first seconds; with one fixed time to
 * live those entries would all expire, and be rendered and read again, together every `ttlMs`
 * (the bench saw a burst of about 1,000 renders every 5 minutes). No entry lives longer than `ttlMs`.
 */
export const TTL_SPREAD = 0.25;

/** The time to live of an entry kept now; `random` in [0, 1). */
export const spreadTtl = (ttlMs: number, random: number = Math.random()): number => ttlMs * (1 - TTL_SPREAD * random);
