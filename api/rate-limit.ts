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
  publicProfile: { max: 120, windowSeconds: 60 },
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
