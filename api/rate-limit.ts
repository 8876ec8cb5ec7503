/**
 * Fixed-window rate limits with the counters in Postgres, so a limit holds across
 * every instance. One statement per check.
 */
import { sql } from "drizzle-orm";
import type { AppContext } from "./context";
import { rateLimits } from "../db/schema";
import { HttpError } from "./http";

export interface Limit {
  /** Requests allowed per window. */
  max: number;
  windowSeconds: number;
}

export const LIMITS = {
  upload: { max: 10, windowSeconds: 60 },
  publicProfile: { max: 300, windowSeconds: 60 },
} satisfies Record<string, Limit>;

/** Counts one request against `key`; throws 429 once the window's allowance is spent. */
export async function hit(ctx: Pick<AppContext, "config" | "database">, key: string, limit: Limit): Promise<void> {
  if (ctx.config.RATE_LIMIT === "off") return;
  const db = ctx.database.db;
  const windowStart = Math.floor(Date.now() / 1000 / limit.windowSeconds) * limit.windowSeconds;
  const rows = await db
    .insert(rateLimits)
    .values({ key, windowStart, count: 1 })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        count: sql`case when ${rateLimits.windowStart} = ${windowStart} then ${rateLimits.count} + 1 else 1 end`,
        windowStart,
      },
    })
    .returning({ count: rateLimits.count });
  const count = rows[0]?.count ?? 1;
  if (count > limit.max) {
    const retryAfter = windowStart + limit.windowSeconds - Math.floor(Date.now() / 1000);
    throw new HttpError(429, "Too many requests. Please wait a moment and try again.", undefined, {
      "Retry-After": String(Math.max(retryAfter, 1)),
    });
  }
}

/**
 * A limit for hot public endpoints, where a database write per request would cost
 * more than the request itself. Each instance counts locally and, once a second,
 * adds its counts to the shared counters in Postgres in one statement and learns the
 * totals of every instance. A key is refused once its known total reaches the limit:
 * across instances the limit holds to within about a second's traffic.
 */
export class BatchedLimiter {
  private local = new Map<string, number>();
  private known = new Map<string, number>();
  private window = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly ctx: Pick<AppContext, "config" | "database">,
    private readonly prefix: string,
    private readonly limit: Limit,
    flushMs = 1000,
  ) {
    if (ctx.config.RATE_LIMIT === "on") {
      this.timer = setInterval(() => void this.flush().catch(() => {}), flushMs);
      this.timer.unref?.();
    }
  }

  private currentWindow() {
    return Math.floor(Date.now() / 1000 / this.limit.windowSeconds) * this.limit.windowSeconds;
  }

  /** Counts a request; throws 429 when the key is over its limit. */
  hit(key: string) {
    if (!this.timer) return;
    const window = this.currentWindow();
    if (window !== this.window) {
      this.window = window;
      this.known.clear();
    }
    const pending = (this.local.get(key) ?? 0) + 1;
    const total = (this.known.get(key) ?? 0) + pending;
    if (total > this.limit.max) {
      const retryAfter = window + this.limit.windowSeconds - Math.floor(Date.now() / 1000);
      throw new HttpError(429, "Too many requests. Please wait a moment and try again.", undefined, {
        "Retry-After": String(Math.max(retryAfter, 1)),
      });
    }
    this.local.set(key, pending);
  }

  /** Adds the local counts to the shared ones and reads back the totals. */
  async flush() {
    if (this.local.size === 0) return;
    const window = this.window;
    const entries = [...this.local];
    this.local.clear();
    const keys = entries.map(([k]) => `${this.prefix}:${k}`);
    const counts = entries.map(([, n]) => n);
    const rows = await this.ctx.database.db.execute<{ key: string; count: number }>(sql`
      insert into ${rateLimits} (key, window_start, count)
      select k, ${window}, n from unnest(${`{${keys.map((k) => JSON.stringify(k)).join(",")}}`}::text[], ${`{${counts.join(",")}}`}::int[]) as t(k, n)
      on conflict (key) do update set
        count = case when ${rateLimits.windowStart} = excluded.window_start then ${rateLimits.count} + excluded.count else excluded.count end,
        window_start = excluded.window_start
      returning key, count`);
    if (window !== this.window) return;
    const list = Array.isArray(rows) ? rows : ((rows as { rows?: { key: string; count: number }[] }).rows ?? []);
    for (const row of list) this.known.set(row.key.slice(this.prefix.length + 1), Number(row.count));
  }

  stop() {
    clearInterval(this.timer);
  }
}
