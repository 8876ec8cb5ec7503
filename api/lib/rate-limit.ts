/**
 * Fixed-window rate limits with the counters in Postgres, so a limit holds across
 * every instance. One statement per check. LIMITS is the one table of budgets;
 * ROUTE_LIMITS says which budgets each costly route (one that checks a password or
 * sends e-mail, ours or better-auth's) spends, per account, client address and
 * recipient. See SECURITY.md "Limits on costly routes".
 */
import { createHash } from "node:crypto";
import { eq, inArray, sql } from "drizzle-orm";
import type { Database, Db } from "../../db/client";
import { rateLimits, users } from "../../db/schema";
import { COPIES_PER_HOUR } from "../../src/lib/copies";
import { COMMON_MESSAGES } from "../../src/lib/messages";
import { TEST_REMINDERS_PER_HOUR } from "../../src/lib/reminders";
import { rateLimitKey } from "./client-address";
import type { Config } from "./config";
import { HttpError } from "./http";

/**
 * What the limits need of the app: a structural type, not api/lib/types.ts's AppContext (api/lib/mail.ts
 * spends a budget here, and api/auth/auth.ts, which that context names, sends mail).
 */
type AppContext = { config: Config; database: Pick<Database, "db"> };

export interface Limit {
  /** Requests allowed per window. */
  max: number;
  windowSeconds: number;
}

export const LIMITS = {
  upload: { max: 10, windowSeconds: 60 },
  publicProfile: { max: 300, windowSeconds: 60 },
  /** POST /api/reminders/test (issue 39): it sends a push and/or an e-mail. */
  reminderTest: { max: TEST_REMINDERS_PER_HOUR, windowSeconds: 3600 },
  /** Every password check of one account (sign-in, and the settings' password, e-mail and delete). */
  password: { max: 10, windowSeconds: 60 },
  /** Every password check from one client address, whatever the account. */
  passwordFromAddress: { max: 10, windowSeconds: 60 },
  signUpFromAddress: { max: 5, windowSeconds: 60 },
  resetRequestFromAddress: { max: 5, windowSeconds: 300 },
  resetFromAddress: { max: 10, windowSeconds: 300 },
  /** E-mail changes asked by one account (each mails the new and the old address). */
  mailFromAccount: { max: 5, windowSeconds: 3600 },
  mailFromAddress: { max: 10, windowSeconds: 3600 },
  /** Mail that anyone can make the server send to one address (a reset, an e-mail change). */
  mailToRecipient: { max: 5, windowSeconds: 3600 },
  /**
   * Issue 45, the recipient's daily mail budget (spendMailBudget, spent by api/lib/mail.ts for
   * every mail): a slot's reminders and follow-ups (4 slots × (1 + 3 follow-ups, issue 48), and
   * 2 for a day the clocks change)...
   */
  reminderMailToRecipient: { max: 18, windowSeconds: 86_400 },
  /** ...and everything else to one address: resets, e-mail changes, confirmations, refills, tests. */
  mailToRecipientDaily: { max: 20, windowSeconds: 86_400 },
  /** POST /api/copies (issue 50 §3): each request adds up to 200 rows to the account. */
  copies: { max: COPIES_PER_HOUR, windowSeconds: 3600 },
  /** Any other served /api/auth/* call (OAuth start and callback, the reset link). */
  authFromAddress: { max: 100, windowSeconds: 60 },
} satisfies Record<string, Limit>;

export type Budget = keyof typeof LIMITS;
/** Who a budget counts: the account acted on, the client's address, or the mail's recipient. */
export type LimitDimension = "account" | "address" | "recipient";

/**
 * Every route that checks a password or sends e-mail (and every other served /api/auth/*
 * path), "METHOD /path" as Hono or better-auth name it, with the budgets each request spends.
 * Budgets of one name are shared: a password guessed through the settings costs what a
 * sign-in costs. tests/api/route-limits.test.ts fails for such a route missing here.
 */
export const ROUTE_LIMITS: Record<string, readonly (readonly [LimitDimension, Budget])[]> = {
  "POST /api/auth/sign-in/email": [
    ["account", "password"],
    ["address", "passwordFromAddress"],
  ],
  "POST /api/auth/sign-up/email": [["address", "signUpFromAddress"]],
  "POST /api/auth/request-password-reset": [
    ["address", "resetRequestFromAddress"],
    ["recipient", "mailToRecipient"],
  ],
  "POST /api/auth/reset-password": [["address", "resetFromAddress"]],
  "GET /api/auth/reset-password/:token": [["address", "authFromAddress"]],
  "POST /api/auth/sign-in/social": [["address", "authFromAddress"]],
  "GET /api/auth/callback/:id": [["address", "authFromAddress"]],
  "POST /api/auth/callback/:id": [["address", "authFromAddress"]],
  "POST /api/account/password": [
    ["account", "password"],
    ["address", "passwordFromAddress"],
  ],
  "DELETE /api/account": [
    ["account", "password"],
    ["address", "passwordFromAddress"],
  ],
  "POST /api/account/email": [
    ["account", "password"],
    ["address", "passwordFromAddress"],
    ["account", "mailFromAccount"],
    ["address", "mailFromAddress"],
    ["recipient", "mailToRecipient"],
  ],
  "GET /api/account/email/confirm": [["address", "mailFromAddress"]],
  /** Issue 39: a test reminder sends a push and/or an e-mail to the account's own address. */
  "POST /api/reminders/test": [["account", "reminderTest"]],
  /** Issue 50 §3: copies of another's stack, 30 requests an hour per account. */
  "POST /api/copies": [["account", "copies"]],
};

/** A recipient's (or an unknown account's) key: a hash of the lower-cased address, never the address. */
export const emailKey = (email: string) =>
  createHash("sha256").update(email.trim().toLowerCase()).digest("base64url").slice(0, 32);

/** The address dimension's key: the client's address, IPv6 by its /64 (none: not counted). */
export const addressKey = (address: string | undefined) => (address ? rateLimitKey(address) : undefined);

/**
 * The account dimension's key for an e-mail a request names (sign-in): the account's id, as the
 * signed-in routes count it, or a hash of the address when no account has it (counted alike, so
 * a 429 tells nothing about who signed up).
 */
export async function accountKeyOf(db: Db, email: string): Promise<string> {
  const normal = email.trim().toLowerCase();
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.email, normal)).limit(1);
  return row?.id ?? `unknown-${emailKey(normal)}`;
}

/** better-call's test for a JSON body (node_modules/better-call/dist/utils.mjs, getBody). */
const JSON_BODY = /^application\/([a-z0-9.+-]*\+)?json/i;

/**
 * The `field` of a better-auth request's body, read as better-auth itself reads bodies (its
 * router's getBody: JSON by that test of the Content-Type, else a form, urlencoded or
 * multipart, by substring), so that a limit keyed by it sees what the endpoint will act on,
 * whatever the content type (issue 45: a form-encoded sign-in skipped the per-account limit).
 * A body better-auth reads as text or bytes has no fields: its schema refuses it. Reads a copy.
 */
export async function authBodyField(request: Request, field: string): Promise<string | undefined> {
  if (!request.body) return undefined;
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  let value: unknown;
  try {
    if (JSON_BODY.test(type)) {
      const body: unknown = await request.clone().json();
      value = body && typeof body === "object" ? (body as Record<string, unknown>)[field] : undefined;
    } else if (type.includes("application/x-www-form-urlencoded") || type.includes("multipart/form-data")) {
      let last: FormDataEntryValue | undefined;
      // The last of repeated fields, as better-call's loop keeps it.
      (await request.clone().formData()).forEach((v, k) => {
        if (k === field) last = v;
      });
      value = last;
    }
  } catch {
    return undefined; // better-auth refuses a body it cannot parse
  }
  return typeof value === "string" && value.trim() ? value : undefined;
}

/**
 * Spends one request of each budget `route` has in ROUTE_LIMITS, keyed by `keys` (a dimension
 * without a key is skipped), or only of the budgets in `only` (a route that spends its mail
 * budgets once the password is checked); throws 429 once any is spent. A route missing from
 * the table is a programming error.
 */
export async function limitRoute(
  ctx: Pick<AppContext, "config" | "database">,
  route: string,
  keys: Partial<Record<LimitDimension, string | null | undefined>>,
  only?: readonly Budget[],
): Promise<void> {
  const rules = ROUTE_LIMITS[route];
  if (!rules) throw new Error(`no rate limits for ${route}`);
  if (ctx.config.RATE_LIMIT === "off") return;
  const spent = rules.flatMap(([dimension, budget]) => {
    const key = keys[dimension];
    return key && (!only || only.includes(budget)) ? [{ key: `${budget}:${key}`, limit: LIMITS[budget] as Limit }] : [];
  });
  await sweepExpired(ctx);
  await refuseSpent(ctx, spent);
  for (const { key, limit } of spent) await hit(ctx, key, limit);
}

/**
 * Throws 429, writing nothing, when one of `budgets` is already spent in its window (another
 * request would only count past it). So a refused request leaves no row of its own: a flood of
 * sign-ins with new e-mails from one address writes that address's row and the first few
 * accounts', not a row per e-mail (issue 45). The upserts in `hit` still decide at the edge,
 * on every instance alike: counts only grow within a window.
 */
async function refuseSpent(ctx: Pick<AppContext, "database">, budgets: { key: string; limit: Limit }[]) {
  if (budgets.length === 0) return;
  const rows = await ctx.database.db
    .select({ key: rateLimits.key, windowStart: rateLimits.windowStart, count: rateLimits.count })
    .from(rateLimits)
    .where(
      inArray(
        rateLimits.key,
        budgets.map((b) => b.key),
      ),
    );
  const nowMs = Date.now();
  for (const { key, limit } of budgets) {
    const row = rows.find((r) => r.key === key);
    const window = windowOf(nowMs, limit);
    if (row && Number(row.windowStart) === window && !allowed(row.count + 1, limit)) {
      throw tooManyRequests(window, limit, nowMs);
    }
  }
}

/** Which of the recipient's daily budgets a mail spends (SECURITY.md "Mail budget"). */
export type MailBudget = "reminder" | "other";
const MAIL_BUDGETS = { reminder: "reminderMailToRecipient", other: "mailToRecipientDaily" } as const;

/**
 * Spends one mail of `address`'s daily budget of that kind (keyed by a hash of the normalised
 * address, counted in Postgres for every instance); false once it is spent: do not send.
 */
export async function spendMailBudget(ctx: AppContext, address: string, kind: MailBudget): Promise<boolean> {
  const budget = MAIL_BUDGETS[kind];
  try {
    await hit(ctx, `${budget}:${emailKey(address)}`, LIMITS[budget]);
    return true;
  } catch (error) {
    if (error instanceof HttpError && error.status === 429) return false;
    throw error;
  }
}

/** Seconds until the mail budgets' day (UTC) starts again. */
export const mailBudgetRetryAfter = (nowMs: number) =>
  Math.max(1, windowOf(nowMs, LIMITS.mailToRecipientDaily) + 86_400 - Math.floor(nowMs / 1000));

/** The batched limiters' key prefixes (api/profile/routes.ts), swept by their own budget's window. */
export const PROFILE_LIMIT_PREFIX = "profile";
const BATCHED_PREFIXES: Record<string, Limit> = { [PROFILE_LIMIT_PREFIX]: LIMITS.publicProfile };
/** The longest window of any budget: a row of a key without a known budget is kept that long. */
const LONGEST_WINDOW = Math.max(...Object.values(LIMITS).map((l: Limit) => l.windowSeconds));
/** How often (at most) an instance deletes the rows of windows that are over. */
export const SWEEP_SECONDS = 60;
const lastSweep = new WeakMap<object, number>();

/**
 * Deletes the counters whose window is over (each budget's own window, by its key's prefix,
 * the batched limiters' too; the longest for any other), at most once a SWEEP_SECONDS per
 * instance, on the first limited request after: the table holds the current windows' keys,
 * not every e-mail ever tried (issue 45). Any instance may sweep: a row whose window is over
 * counts as 1 again at its next hit anyway.
 */
export async function sweepExpired(ctx: Pick<AppContext, "database">, force = false): Promise<void> {
  const nowS = Math.floor(Date.now() / 1000);
  const last = lastSweep.get(ctx.database) ?? Number.NEGATIVE_INFINITY;
  if (!force && nowS - last < SWEEP_SECONDS) return;
  lastSweep.set(ctx.database, nowS);
  const windows = [...Object.entries(LIMITS), ...Object.entries(BATCHED_PREFIXES)].map(
    ([prefix, limit]) => sql`when ${`${prefix}:`} then ${sql.raw(String((limit as Limit).windowSeconds))}`,
  );
  await ctx.database.db.execute(sql`delete from ${rateLimits}
    where ${rateLimits.windowStart} + case split_part(${rateLimits.key}, ':', 1) || ':' ${sql.join(windows, sql` `)}
      else ${sql.raw(String(LONGEST_WINDOW))} end <= ${nowS}::bigint`);
}

/** The fixed window (its start, in Unix seconds) that the instant `nowMs` falls in. */
export function windowOf(nowMs: number, limit: Limit): number {
  return Math.floor(nowMs / 1000 / limit.windowSeconds) * limit.windowSeconds;
}

/** Whether a request is allowed when it is the `count`-th of its key in the window. */
export function allowed(count: number, limit: Limit): boolean {
  return count <= limit.max;
}

function tooManyRequests(window: number, limit: Limit, nowMs: number): HttpError {
  const retryAfter = window + limit.windowSeconds - Math.floor(nowMs / 1000);
  return new HttpError(429, COMMON_MESSAGES.tooManyRequests, undefined, {
    "Retry-After": String(Math.max(retryAfter, 1)),
  });
}

/** Counts one request against `key`; throws 429 once the window's allowance is spent. */
export async function hit(ctx: Pick<AppContext, "config" | "database">, key: string, limit: Limit): Promise<void> {
  if (ctx.config.RATE_LIMIT === "off") return;
  const db = ctx.database.db;
  const windowStart = windowOf(Date.now(), limit);
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
  if (!allowed(count, limit)) throw tooManyRequests(windowStart, limit, Date.now());
}

export interface BatchedLimiterOptions {
  /** How often local counts are added to the shared ones; 0: only when `flush()` is called. */
  flushMs?: number;
  /** The clock, in milliseconds (tests set the time). */
  now?: () => number;
  /** The most keys held in memory, in each of the local counts and the known totals (100,000). */
  maxKeys?: number;
}

/** Keys a batched limiter holds at most, in each of its two maps (about 100 bytes each). */
export const BATCHED_LIMITER_KEYS = 100_000;

/**
 * A limit for hot public endpoints, where a database write per request would cost
 * more than the request itself. Each instance counts locally and, once a second,
 * adds its counts to the shared counters in Postgres in one statement and learns the
 * totals of every instance. A key is refused once its known total reaches the limit:
 * across instances the limit holds to within about a second's traffic.
 *
 * Memory is capped whatever the number of addresses: once `maxKeys` keys are counted locally,
 * the next new key starts a flush at once (the counts go to Postgres, the map is emptied), and
 * the known totals keep between `maxKeys` / 2 and `maxKeys` of the most recently learned, in
 * two generations (a key dropped from them counts from zero here until the next flush tells
 * its total again: at most a flush interval's slack, as between instances). Generations, not
 * one map trimmed from its oldest end: deleting at the front of a Map leaves it to skip and
 * rehash what was deleted, and each lookup (one per request) paid for it.
 */
export class BatchedLimiter {
  /** Counts of this instance not yet added to the shared ones (this window's). */
  private local = new Map<string, number>();
  /** Totals of every instance for this window, as of the last flush: the newest learned... */
  private known = new Map<string, number>();
  /** ...and the generation before (`known` takes its place once it holds `maxKeys` / 2). */
  private older = new Map<string, number>();
  private window = 0;
  private readonly enabled: boolean;
  private readonly now: () => number;
  private readonly maxKeys: number;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly ctx: Pick<AppContext, "config" | "database">,
    private readonly prefix: string,
    private readonly limit: Limit,
    { flushMs = 1000, now = Date.now, maxKeys = BATCHED_LIMITER_KEYS }: BatchedLimiterOptions = {},
  ) {
    this.enabled = ctx.config.RATE_LIMIT === "on";
    this.now = now;
    this.maxKeys = maxKeys;
    if (this.enabled && flushMs > 0) {
      this.timer = setInterval(() => void this.flush().catch(() => {}), flushMs);
      this.timer.unref?.();
    }
  }

  /** Counts a request; throws 429 when the key is over its limit. */
  hit(key: string) {
    if (!this.enabled) return;
    const now = this.now();
    const window = windowOf(now, this.limit);
    if (window !== this.window) {
      // A new window: what was counted in the last one, here or anywhere, is over.
      this.window = window;
      this.known = new Map();
      this.older = new Map();
      this.local.clear();
    }
    const pending = (this.local.get(key) ?? 0) + 1;
    const total = this.known.get(key) ?? this.older.get(key) ?? 0;
    if (!allowed(total + pending, this.limit)) throw tooManyRequests(window, this.limit, now);
    if (pending === 1 && this.local.size >= this.maxKeys) void this.flush().catch(() => {});
    this.local.set(key, pending);
  }

  /** Keys held now (tests). */
  get heldKeys(): { local: number; known: number } {
    return { local: this.local.size, known: this.known.size + this.older.size };
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
    const generation = Math.max(1, Math.floor(this.maxKeys / 2));
    for (const row of list) {
      if (this.known.size >= generation) {
        this.older = this.known; // the generation before it is forgotten
        this.known = new Map();
      }
      this.known.set(row.key.slice(this.prefix.length + 1), Number(row.count));
    }
  }

  stop() {
    clearInterval(this.timer);
  }
}
