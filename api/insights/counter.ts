/**
 * Issue 14: profile views, unique visitors and 'View Product' clicks, counted in memory per
 * instance and added to Postgres in one statement every FLUSH_MS and on shutdown (server.ts).
 * A visitor is HMAC-SHA-256(salt of the UTC day, User-Agent, profile id, address), cut to 16
 * bytes: no cookie, no stored address. Not counted: anything but GET, a known bot (`isbot`) or
 * no User-Agent, and the signed-in owner. How the counts add up across instances and days:
 * docs/insights.md.
 */
import { randomBytes } from "node:crypto";
import { and, asc, between, eq, sql } from "drizzle-orm";
import { isbot } from "isbot";
import { LRUCache } from "lru-cache";
import type { Database } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { profileDailyCounts as counts } from "../../db/schema";
import { utcDate } from "../../src/lib/insights";
import { now, nowMs } from "../lib/clock";
import { errorFields, log } from "../lib/log";
import type { AppContext } from "../lib/types";

export const FLUSH_MS = 5000;
/** Views a batch holds before a flush starts early (with a timer). */
export const MAX_FLUSH_VISITS = 100_000;
/** Keys, and new hashes, held before new ones are dropped or wait for room (a database outage). */
export const [MAX_KEYS, MAX_HELD_HASHES] = [100_000, 1 << 20];
/** Hashes this instance remembers having sent today (past it, Postgres's `distinct` alone). */
export const MAX_SEEN = 10_000;
const HASH_BYTES = 16;
const HASH_SQL = sql.raw(String(HASH_BYTES));

/** isbot's verdicts on recent User-Agents (its list is one long pattern; a browser sends one string). */
const verdicts = new LRUCache<string, boolean>({ max: 1000 });

/** Whether a request may count at all: a GET with a User-Agent that is not a known bot. */
export function countable(request: Request): boolean {
  if (request.method !== "GET") return false;
  const agent = request.headers.get("user-agent") ?? "";
  let bot = verdicts.get(agent);
  if (bot === undefined) {
    bot = agent.trim() === "" || isbot(agent);
    verdicts.set(agent, bot);
  }
  return !bot;
}

/** A day's HMAC-SHA-256 keyed with its salt; a view's HMAC goes into `out` (64 bytes: Bun asks room for any digest). */
const keyedWith = (salt: Uint8Array) => new Bun.CryptoHasher("sha256", salt);
const hmacInto = (keyed: Bun.CryptoHasher, agent: string, id: string, address: string, out: Buffer): Buffer =>
  keyed.copy().update(`${agent}\n${id}\n${address}`).digest(out) as Buffer;

/** The stored visitor hash (hex) of one view: docs/insights.md (why Bun's hasher: docs/benchmarks.md). */
export const visitorHash = (salt: Uint8Array, agent: string, id: string, address: string): string =>
  hmacInto(keyedWith(salt), agent, id, address, Buffer.alloc(64)).toString("hex", 0, HASH_BYTES);

interface Batch {
  userId: string;
  day: string;
  views: number;
  /** New visitors' hashes, not yet sent, four 32-bit numbers each (numbers: nothing for the collector to trace). */
  hashes: number[];
}

/** Postgres array literals, for `unnest`. */
const textArray = (values: string[]): string => `{${values.map((v) => `"${v.replace(/["\\]/g, "\\$&")}"`).join(",")}}`;
const intArray = (values: number[]): string => `{${values.join(",")}}`;

export class InsightsCounter {
  /** Batches by day, then profile: keys the requests already hold (no key string made per view). */
  private views = new Map<string, Map<string, Batch>>();
  private clicks = new Map<string, { supplementId: number; day: string; clicks: number }>();
  /** Views whose day's salt is not read yet (the first seconds of a day or after start): hashed at the next flush. */
  private waiting: { userId: string; day: string; address: string; agent: string }[] = [];
  /** Each day's salt, as its keyed hasher. */
  private salts = new Map<string, Bun.CryptoHasher>();
  /** The first 48 bits of hashes sent (or held) lately (a salt a day): a visitor who comes back costs nothing. */
  private seen = new Set<number>();
  private digest = Buffer.alloc(64);
  private held = 0;
  private cleanedFor = "";
  private running: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | undefined;
  private pendingViews = 0;
  private batchCount = 0;
  private earlyFlush = false;
  /** Owner checks under way (./count.ts): a flush waits for them (nothing lost on shutdown). */
  private checks = new Set<Promise<unknown>>();
  private readonly maxHeldHashes: number;

  constructor(
    private readonly db: Database["db"],
    { flushMs = FLUSH_MS, maxHeldHashes = MAX_HELD_HASHES }: { flushMs?: number; maxHeldHashes?: number } = {},
  ) {
    this.maxHeldHashes = maxHeldHashes;
    if (flushMs > 0) {
      this.timer = setInterval(() => void this.flush(), flushMs);
      this.timer.unref?.();
    }
  }

  view(userId: string, visitor: { address: string | undefined; agent: string }, at: number = nowMs()) {
    const day = utcDate(at);
    const batch = this.batchOf(userId, day);
    if (!batch) return;
    batch.views += 1;
    this.pendingViews += 1;
    const address = visitor.address ?? "";
    const salt = this.salts.get(day);
    // Hashed every view, kept as numbers: docs/benchmarks.md, "Counting's cost".
    if (salt) this.addVisitor(batch, hmacInto(salt, visitor.agent, userId, address, this.digest));
    else if (this.waiting.length < MAX_FLUSH_VISITS) this.waiting.push({ userId, day, address, agent: visitor.agent });
    if (this.pendingViews >= MAX_FLUSH_VISITS && this.timer && !this.earlyFlush) {
      this.earlyFlush = true;
      void this.flush();
    }
  }

  /** `userId`'s batch of `day`; a new one when there is room (or `force`d: counts kept after a failed flush). */
  private batchOf(userId: string, day: string, force = false): Batch | undefined {
    const byUser = this.views.get(day) ?? new Map<string, Batch>();
    if (byUser.size === 0) this.views.set(day, byUser);
    let batch = byUser.get(userId);
    if (!batch && (force || this.batchCount < MAX_KEYS)) {
      batch = { userId, day, views: 0, hashes: [] };
      byUser.set(userId, batch);
      this.batchCount += 1;
    }
    return batch;
  }

  /** A visitor's hash, kept unless seen today already or there is no room (it counts when seen again). */
  private addVisitor(batch: Batch, hash: Buffer) {
    const key = hash.readUIntBE(0, 6);
    if (this.seen.has(key) || this.held >= this.maxHeldHashes) return;
    if (this.seen.size >= MAX_SEEN) this.seen.clear();
    this.seen.add(key);
    batch.hashes.push(hash.readInt32BE(0), hash.readInt32BE(4), hash.readInt32BE(8), hash.readInt32BE(12));
    this.held += 1;
  }

  click(supplementId: number, at: number = nowMs()) {
    const day = utcDate(at);
    const key = `${supplementId}|${day}`;
    const entry = this.clicks.get(key);
    if (entry) entry.clicks += 1;
    else if (this.clicks.size < MAX_KEYS) this.clicks.set(key, { supplementId, day, clicks: 1 });
  }

  /** A count waiting for `check` (the visitor's session). */
  track(check: Promise<unknown>) {
    this.checks.add(check);
    void check.finally(() => this.checks.delete(check));
  }

  get pending(): { views: number; clicks: number } {
    return { views: this.pendingViews, clicks: [...this.clicks.values()].reduce((n, c) => n + c.clicks, 0) };
  }

  /** Every count held, into Postgres in one statement (plus the day's salt and adding up, once a day); never throws. */
  flush(): Promise<void> {
    this.running = this.running.then(() => this.flushOnce());
    return this.running;
  }

  private async flushOnce() {
    await Promise.allSettled([...this.checks]);
    const today = utcDate(now());
    try {
      if (!this.salts.has(today)) await this.readSalt(today);
    } catch (error) {
      log.warn("insights: the day's salt could not be read; visitors wait for the next flush", errorFields(error));
    }
    this.hashWaiting();
    this.earlyFlush = false;
    if (this.batchCount === 0 && this.clicks.size === 0 && this.cleanedFor === today) return;
    const views = [...this.views.values()].flatMap((byUser) => [...byUser.values()]);
    const clicks = [...this.clicks.values()];
    this.views = new Map();
    this.batchCount = 0;
    this.clicks = new Map();
    this.pendingViews = 0;
    this.held = 0;
    const starts: number[] = [];
    const bytes = Buffer.alloc(4 * views.reduce((n, batch) => n + batch.hashes.length, 0));
    let at = 0;
    for (const batch of views) {
      starts.push(at / HASH_BYTES);
      for (const part of batch.hashes) at = bytes.writeInt32BE(part, at);
    }
    const hex = bytes.toString("hex");
    try {
      await this.db.execute(sql`
        with pv as (
          select pv.u, pv.d, pv.n, pv.s, pv.c
          from unnest(
            ${textArray(views.map((v) => v.userId))}::text[], ${textArray(views.map((v) => v.day))}::date[],
            ${intArray(views.map((v) => v.views))}::int[], ${intArray(starts)}::int[],
            ${intArray(views.map((v) => v.hashes.length / 4))}::int[]
          ) as pv(u, d, n, s, c)
          where exists (select 1 from users where users.id = pv.u)
        ),
        new_batches as (
          insert into visitor_batches (day, user_id, hashes)
          select pv.d, pv.u, substring(hashes.bytes from pv.s * ${HASH_SQL} + 1 for pv.c * ${HASH_SQL})
          from pv, (select decode(${hex}, 'hex') as bytes) as hashes where pv.c > 0
          returning 1
        ),
        added_views as (
          insert into profile_daily_counts (user_id, day, views)
          select pv.u, pv.d, pv.n from pv
          on conflict (user_id, day) do update set views = profile_daily_counts.views + excluded.views
          returning 1
        ),
        added_clicks as (
          insert into supplement_daily_clicks (supplement_id, day, clicks)
          select t.s, t.d, t.n
          from unnest(
            ${intArray(clicks.map((c) => c.supplementId))}::int[], ${textArray(clicks.map((c) => c.day))}::date[],
            ${intArray(clicks.map((c) => c.clicks))}::int[]
          ) as t(s, d, n)
          where exists (select 1 from supplements where supplements.id = t.s)
          on conflict (supplement_id, day) do update set clicks = supplement_daily_clicks.clicks + excluded.clicks
          returning 1
        ),
        old_salts as (delete from visit_salts where day < ${today}::date - 2 returning 1)
        select 1`);
    } catch (error) {
      this.keep(views, clicks);
      log.warn("insights: counts not written; kept for the next flush", errorFields(error));
      return;
    }
    if (this.cleanedFor === today) return;
    try {
      await this.closeEarlierDays(today);
      this.cleanedFor = today;
    } catch (error) {
      log.warn("insights: earlier days' visitors not added up yet; tried again at the next flush", errorFields(error));
    }
  }

  private keep(views: Batch[], clicks: { supplementId: number; day: string; clicks: number }[]) {
    for (const old of views) {
      const batch = this.batchOf(old.userId, old.day, true) as Batch;
      batch.views += old.views;
      batch.hashes = batch.hashes.concat(old.hashes);
      this.pendingViews += old.views;
      this.held += old.hashes.length / 4;
    }
    for (const entry of clicks) {
      const key = `${entry.supplementId}|${entry.day}`;
      const current = this.clicks.get(key);
      if (current) current.clicks += entry.clicks;
      else this.clicks.set(key, entry);
    }
  }

  /** Views that waited for their day's salt: hashed now if it is known, else kept (today's) or counted as views only. */
  private hashWaiting() {
    const waiting = this.waiting;
    this.waiting = [];
    const today = utcDate(now());
    for (const view of waiting) {
      const batch = this.views.get(view.day)?.get(view.userId);
      if (!batch) continue;
      const salt = this.salts.get(batch.day);
      if (salt) this.addVisitor(batch, hmacInto(salt, view.agent, batch.userId, view.address, this.digest));
      else if (batch.day >= today) this.waiting.push(view);
    }
  }

  /** Once a UTC day: earlier days' batches added up (each distinct hash once) and deleted (docs/insights.md). */
  private async closeEarlierDays(today: string) {
    await this.db.execute(sql`
      with closed as (delete from visitor_batches where day < ${today}::date returning day, user_id, hashes),
      distinct_visitors as (
        select c.user_id, c.day, count(distinct substring(c.hashes from i * ${HASH_SQL} + 1 for ${HASH_SQL}))::int as n
        from closed c cross join lateral generate_series(0, length(c.hashes) / ${HASH_SQL} - 1) as i
        group by c.user_id, c.day
      )
      insert into profile_daily_counts (user_id, day, visitors)
      select user_id, day, n from distinct_visitors
      on conflict (user_id, day) do update set visitors = profile_daily_counts.visitors + excluded.visitors`);
  }

  /** Today's salt: the one stored, or a new random one (whichever instance is first). */
  private async readSalt(today: string) {
    const fresh = randomBytes(32).toString("hex");
    const rows = rowsOf<{ salt: string }>(
      await this.db.execute(sql`
        insert into visit_salts (day, salt) values (${today}::date, decode(${fresh}, 'hex'))
        on conflict (day) do update set salt = visit_salts.salt
        returning encode(salt, 'hex') as salt`),
    );
    const salt = rows[0]?.salt;
    if (!salt) return;
    for (const day of [...this.salts.keys()]) if (day < today) this.salts.delete(day);
    this.salts.set(today, keyedWith(Buffer.from(salt, "hex")));
  }

  stop() {
    clearInterval(this.timer);
  }
}

/**
 * The visitors of `userId`'s page per UTC day still in batches (each distinct hash once); add
 * them to profile_daily_counts.visitors, which holds the days already added up.
 */
export async function batchedVisitors(
  db: Database["db"],
  userId: string,
  range?: { from: string; to: string },
): Promise<Map<string, number>> {
  const within = range ? sql`and b.day between ${range.from}::date and ${range.to}::date` : sql``;
  const rows = rowsOf<{ day: string; n: number }>(
    await db.execute(sql`
      select b.day::text as day, count(distinct substring(b.hashes from i * ${HASH_SQL} + 1 for ${HASH_SQL}))::int as n
      from visitor_batches b cross join lateral generate_series(0, length(b.hashes) / ${HASH_SQL} - 1) as i
      where b.user_id = ${userId} ${within}
      group by b.day`),
  );
  return new Map(rows.map((row) => [row.day, Number(row.n)]));
}

/** `userId`'s page per UTC day, oldest first: its views, and its visitors added up plus those still in batches. */
export async function profileDays(db: Database["db"], userId: string, range?: { from: string; to: string }) {
  const days = await db
    .select({ date: counts.day, views: counts.views, visitors: counts.visitors })
    .from(counts)
    .where(and(eq(counts.userId, userId), range && between(counts.day, range.from, range.to)))
    .orderBy(asc(counts.day));
  for (const [date, visitors] of await batchedVisitors(db, userId, range)) {
    const day = days.find((d) => d.date === date);
    if (day) day.visitors += visitors;
  }
  return days;
}

/** The instance's one counter, flushing every INSIGHTS_FLUSH_MS. */
export const counterOf = (ctx: Pick<AppContext, "instance" | "database" | "config">): InsightsCounter =>
  ctx.instance(
    "insights-counter",
    () => new InsightsCounter(ctx.database.db, { flushMs: ctx.config.INSIGHTS_FLUSH_MS }),
  );
