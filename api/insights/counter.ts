/**
 * Issue 14: profile views, unique visitors and 'View Product' clicks, counted in memory per
 * instance and added to Postgres in one statement every FLUSH_MS (5 s) and on shutdown
 * (server.ts calls `flush()` before closing the database). Counting never adds a statement
 * or a lock to a request: the public page and /go/{id} only touch the maps below.
 *
 * Unique visitors, without cookies and without storing an address: a view's visitor is
 * SHA-256(HMAC-SHA-256(salt of the UTC day, User-Agent + profile id) ‖ address), cut to 16
 * bytes (./visitor-hash.ts: node:crypto's bytes, with no allocation per view; the HMAC once
 * per distinct User-Agent and profile of a flush). A view itself only
 * logs its address (as bytes) and its User-Agent (one copy of each distinct one) under its
 * profile's entry (./visit-log.ts); each flush hands the logged views to a worker thread
 * (./hashing-thread.ts, ./hash-worker.ts), which keys them and looks each up in the day's set
 * of hashes this instance has already sent (./hash-set.ts, typed arrays the garbage collector
 * does not scan), so that the hashing and the look-up, about 0.15 µs of CPU a view, are not on the
 * thread that answers requests. The salt is random, made by whichever instance first needs it
 * (table visit_salts, shared so that one visitor is one visitor on every instance) and
 * deleted once older than 2 days. Hashes are
 * kept for the current day only, in memory and in visitor_batches: each flush stores, per
 * profile and day, one row with the new hashes side by side (migration 0010). Which of them
 * are new visitors is worked out when the count is read (`batchedVisitors`: a day's distinct
 * hashes, so one visitor seen by two instances, or in two flushes, counts once), and the first
 * flush of each UTC day adds the earlier days' distinct counts to profile_daily_counts.visitors
 * and deletes those batches. A new visitor thus costs Postgres 16 bytes in a row per profile,
 * where a row, a primary-key check, an index entry and a foreign-key check of its own (the
 * previous release's visitor_hashes) cost about 13 µs of Postgres CPU each: at 20,000 new
 * visitors a second that was a quarter of a core taken from the app on a 2-core machine. Each
 * instance remembers the hashes it has already sent today (up to MAX_SEEN; past it, it starts
 * a fresh set and the count's `distinct` alone tells new from known), so a visitor who comes
 * back costs nothing in the next flush. A visitor seen before and after the moment a day is
 * added up (a view held across midnight, on an instance whose flush comes late) counts twice.
 * A view's address and User-Agent wait in memory until the next flush hashes them (until the
 * instance has read its day's salt: a few seconds after midnight or after start); they are
 * never written anywhere.
 *
 * A flush starts early once MAX_FLUSH_VISITS views wait, so that no one statement's encoding
 * holds requests up for long (at most every FLUSH_MS remains the rule).
 *
 * The flush sends the day's new hashes as one base64 text (16 bytes each, grouped by profile;
 * the driver would write a bytea as hex, in JavaScript, twice the bytes and the bench's
 * profile showed that encoding at 7% of a counted page's CPU), decoded once by Postgres, and
 * the per-profile counts as arrays (`unnest`), not as JSON: the JavaScript side of a flush of
 * 60,000 views is a few joins, one copy and the driver's encoding of it, so it does not hold
 * up requests, and Postgres checks that a profile still exists once per profile, not once
 * per hash.
 *
 * Not counted: HEAD and any method but GET, a User-Agent that the maintained `isbot` list calls a
 * crawler or link-preview fetcher (or none at all), and the signed-in owner (the caller decides:
 * countView, api/go.ts). A flush that fails keeps its counts for the next one; a SIGKILL loses at
 * most the last FLUSH_MS of counts.
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { isbot } from "isbot";
import type { Database } from "../../db/client";
import { utcDate } from "../../src/lib/insights";
import { getSessionUser } from "../auth";
import type { ProfileOwner } from "../cache";
import { now, nowMs } from "../clock";
import type { AppContext } from "../context";
import { errorFields, log } from "../log";
import { sessionTokenCookie } from "../session-cookie";
import { HASH_BYTES, OwnedHashes } from "./hash-set";
import { HashingThread } from "./hashing-thread";
import { type LoggedVisits, VisitLog } from "./visit-log";

export const FLUSH_MS = 5000;
/**
 * Views one flush carries at most, about, and so new visitors' hashes too: once this many
 * views wait, the next flush starts at once rather than at its timer (issue 17), which bounds
 * the log's memory (about 25 bytes a view) and how long a flush's work on the event loop
 * takes (about 0.07 µs a view: copying the log for the worker, grouping its hashes, the
 * statement's base64 text; at this size 7-11 ms, the longest piece, handing the log to the
 * worker, 2-5 ms; measured).
 * Postgres's work per flush is mostly per row, not per view: about 24 ms of its CPU for the
 * bench's 1,000 profiles (one upsert of views and one row of hashes each, measured with
 * auto_explain) whether the batch holds 32,768 views or 131,072. At the bench's 35,000 views a
 * second, flushing every 32,768 views cost Postgres 0.9 µs of CPU a view; at this size it is
 * a flush every 3.7 s and 0.3 µs. Larger than MAX_SEEN (./visit-hashing.ts): past it the
 * set of hashes already sent starts again within the batch, which only costs Postgres the
 * re-sent hashes of visitors who come back, which its `distinct` drops.
 */
export const MAX_FLUSH_VISITS = 131_072;
/** Distinct User-Agents' UTF-16 units one batch holds before a flush starts early (a client may send a new one each time). */
const MAX_FLUSH_AGENT_CHARS = 1 << 20;
/** Distinct (profile, day) and (supplement, day) keys held before new ones are dropped (a database outage). */
const MAX_KEYS = 100_000;
/**
 * New visitors' hashes held before new ones are dropped (16 MB; a database outage): such a
 * view still counts as a view, and its visitor is counted if seen again once there is room.
 */
const MAX_HELD_HASHES = 1 << 20;
/**
 * Views held for hashing before new ones count as views only (the day's salt unreadable: a
 * database outage since start-up; 6.5 MB), and the distinct User-Agents' UTF-16 units they may
 * keep. Twice MAX_FLUSH_VISITS: the views that arrive while a flush runs have room.
 */
const MAX_LOGGED_VISITS = 2 * MAX_FLUSH_VISITS;
const MAX_LOGGED_AGENT_CHARS = 1 << 24;
/** Bytes of a visitor hash as stored (visitor_hashes.hash): HASH_BYTES. */
const HASH_SQL = sql.raw(String(HASH_BYTES));

type Db = Database["db"];

/** isbot's verdicts on the User-Agents seen lately: its list is a long pattern, a browser sends one string. */
const botVerdicts = new Map<string, boolean>();
const MAX_VERDICTS = 1000;
const MAX_REMEMBERED_AGENT = 512;

function isBotAgent(agent: string): boolean {
  let verdict = botVerdicts.get(agent);
  if (verdict === undefined) {
    verdict = isbot(agent);
    if (agent.length <= MAX_REMEMBERED_AGENT) {
      if (botVerdicts.size >= MAX_VERDICTS) botVerdicts.clear();
      botVerdicts.set(agent, verdict);
    }
  }
  return verdict;
}

/** The User-Agent of a request that may count at all (a GET from something that is not a known bot); else undefined. */
function countableAgent(request: Request): string | undefined {
  if (request.method !== "GET") return undefined;
  const agent = request.headers.get("user-agent") ?? "";
  return agent.trim() !== "" && !isBotAgent(agent) ? agent : undefined;
}

/** Whether a request may count at all: a GET from something that is not a known bot. */
export const countable = (request: Request): boolean => countableAgent(request) !== undefined;

let lastDay = { number: Number.NaN, date: "" };
/** utcDate of the instant `atMs` (ms since the epoch), made once per UTC day. */
function dayOf(atMs: number): string {
  const number = Math.floor(atMs / 86_400_000);
  if (number !== lastDay.number) lastDay = { number, date: utcDate(new Date(atMs)) };
  return lastDay.date;
}

interface ViewEntry {
  userId: string;
  day: string;
  /**
   * Its place in the batch's `views` (in the order made): where `counts` holds its views, and
   * the owner of its logged views and of its new visitors' hashes in `newHashes`.
   */
  index: number;
}

/** A Postgres array literal of strings (each quoted), for `unnest`. */
const textArray = (values: string[]): string => `{${values.map((v) => `"${v.replace(/["\\]/g, "\\$&")}"`).join(",")}}`;
/** A Postgres array literal of integers. */
const intArray = (values: number[]): string => `{${values.join(",")}}`;

const rowsOf = <T>(result: unknown): T[] =>
  Array.isArray(result) ? (result as T[]) : ((result as { rows?: T[] }).rows ?? []);

export class InsightsCounter {
  private views = new Map<string, ViewEntry>();
  /** The batch's views per entry of `views`, by its index. */
  private counts = new Int32Array(1024);
  /**
   * The batch that pages' notes (ProfileOwner) hold for: a new one at each flush, and when the
   * day of the views changes (a note names an entry of one day).
   */
  private epoch = 1;
  private epochDay = "";
  /** This batch's views, each with its entry's index, whose visitor the next flush hashes. */
  private log = new VisitLog(MAX_LOGGED_VISITS, MAX_LOGGED_AGENT_CHARS);
  /** New visitors' hashes not yet sent (a flush's, or kept from one that failed), each with its entry's index. */
  private newHashes = new OwnedHashes();
  private clicks = new Map<string, { supplementId: number; day: string; clicks: number }>();
  /** The salts read, by UTC day (today's, and the day before's for views held across midnight). */
  private salts = new Map<string, Uint8Array>();
  private readonly hashing: HashingThread;
  private cleanedFor = "";
  private running: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Whether a flush was started early for the views waiting. */
  private earlyFlush = false;
  /** Set by a flush that failed: no early flush until one succeeds (the timer retries). */
  private lastFlushFailed = false;

  private readonly maxHeldHashes: number;

  constructor(
    private readonly db: Db,
    {
      flushMs = FLUSH_MS,
      maxHeldHashes = MAX_HELD_HASHES,
      hashing = new HashingThread(),
    }: { flushMs?: number; maxHeldHashes?: number; hashing?: HashingThread } = {},
  ) {
    this.maxHeldHashes = maxHeldHashes;
    this.hashing = hashing;
    if (flushMs > 0) {
      this.timer = setInterval(() => void this.flush(), flushMs);
      this.timer.unref?.();
    }
  }

  /** One view of `userId`'s page by a visitor (address and User-Agent), at `at`. */
  view(userId: string, visitor: { address: string | undefined; agent: string }, at: Date = now()) {
    this.viewAt(userId, visitor.address, visitor.agent, at.getTime());
  }

  /**
   * `view`, with the instant in ms since the epoch: the public page's call (countView), which
   * makes no object per view.
   */
  viewAt(userId: string, visitorAddress: string | undefined, agent: string, atMs: number) {
    const entry = this.viewEntry(userId, dayOf(atMs), true);
    if (entry) this.count(entry.index, visitorAddress, agent);
  }

  /** `viewAt` of a held page (countView): through the page's note when it is this batch's. */
  viewOf(page: ProfileOwner, visitorAddress: string | undefined, agent: string, atMs: number) {
    const day = dayOf(atMs);
    if (page.countedBy === this && page.countedEpoch === this.epoch && day === this.epochDay) {
      this.count(page.countedIndex, visitorAddress, agent);
      return;
    }
    if (page.userId === null) return;
    const entry = this.viewEntry(page.userId, day, true);
    if (!entry) return;
    if (day !== this.epochDay) {
      this.epoch += 1;
      this.epochDay = day;
    }
    page.countedBy = this;
    page.countedEpoch = this.epoch;
    page.countedIndex = entry.index;
    this.count(entry.index, visitorAddress, agent);
  }

  /** One view of entry `index`'s page, by (address, agent). */
  private count(index: number, visitorAddress: string | undefined, agent: string) {
    this.counts[index] = (this.counts[index] as number) + 1;
    const log = this.log;
    // A full log (the salt unreadable for a long time): a view, not a visitor.
    if (!log.push(index, visitorAddress ?? "", agent)) return;
    // Early only with a timer: with none (flushMs 0) the counter flushes only when asked.
    if (
      (log.length >= MAX_FLUSH_VISITS || log.agentLength >= MAX_FLUSH_AGENT_CHARS) &&
      this.timer &&
      !this.earlyFlush &&
      !this.lastFlushFailed
    ) {
      this.earlyFlush = true;
      void this.flush();
    }
  }

  /**
   * The batch's counts of `userId`'s page on `day` (made when `create` and there is room). Keyed
   * by the user id alone, with no string built per view; an entry of another day (a batch
   * across midnight) goes under `{userId}|{day}` (ids have no '|').
   */
  private viewEntry(userId: string, day: string, create: boolean): ViewEntry | undefined {
    let key = userId;
    let entry = this.views.get(key);
    if (entry && entry.day !== day) {
      key = `${userId}|${day}`;
      entry = this.views.get(key);
    }
    if (entry || !create || this.views.size >= MAX_KEYS) return entry;
    entry = { userId, day, index: this.views.size };
    this.views.set(key, entry);
    if (entry.index === this.counts.length) {
      const counts = new Int32Array(this.counts.length * 2);
      counts.set(this.counts);
      this.counts = counts;
    }
    return entry;
  }

  /** One click on supplement `supplementId`'s 'View Product' link, at `at`. */
  click(supplementId: number, at: Date = now()) {
    const day = utcDate(at);
    const key = `${supplementId}|${day}`;
    const entry = this.clicks.get(key);
    if (entry) entry.clicks += 1;
    else if (this.clicks.size < MAX_KEYS) this.clicks.set(key, { supplementId, day, clicks: 1 });
  }

  /** Counts not yet in Postgres (tests, logs). */
  get pending(): { views: number; clicks: number } {
    let views = 0;
    let clicks = 0;
    for (let i = 0; i < this.views.size; i++) views += this.counts[i] as number;
    for (const entry of this.clicks.values()) clicks += entry.clicks;
    return { views, clicks };
  }

  /**
   * Adds every count held in memory to Postgres, in one statement (plus, once a UTC day, the
   * one that reads or makes the day's salt and the one that adds up the earlier days'
   * visitors). Calls run one after another; never throws.
   */
  flush(): Promise<void> {
    this.running = this.running.then(() => this.flushOnce());
    return this.running;
  }

  private async flushOnce() {
    const today = utcDate(now());
    try {
      if (!this.salts.has(today) && (this.log.length > 0 || this.cleanedFor !== today)) await this.readSalt(today);
    } catch (error) {
      log.warn("insights: the day's salt could not be read; views wait for the next flush", errorFields(error));
    }
    if (this.views.size === 0 && this.clicks.size === 0 && this.cleanedFor === today) return;
    const views = [...this.views.values()];
    const counts = this.counts.slice(0, views.length);
    const clicks = [...this.clicks.values()];
    const visits = this.log.take();
    this.views = new Map();
    this.counts.fill(0, 0, views.length);
    this.epoch += 1;
    this.clicks = new Map();
    this.earlyFlush = false;
    try {
      await this.hashVisits(views, visits);
    } catch (error) {
      // Never expected (the hashing falls back to this thread); the views still count.
      log.warn("insights: visitors not hashed; this batch counts views only", errorFields(error));
    }
    // The new hashes grouped by profile: entry i's are hashes [starts[i], starts[i] + counts[i]).
    const { bytes: blob, starts, counts: hashCounts } = this.newHashes.take(views.length);
    try {
      await this.db.execute(sql`
        with pv as (
          select pv.u, pv.d, pv.n, pv.s, pv.c
          from unnest(
            ${textArray(views.map((v) => v.userId))}::text[], ${textArray(views.map((v) => v.day))}::date[],
            ${intArray(Array.from(counts))}::int[], ${intArray(starts)}::int[], ${intArray(hashCounts)}::int[]
          ) as pv(u, d, n, s, c)
          where exists (select 1 from users where users.id = pv.u)
        ),
        new_batches as (
          insert into visitor_batches (day, user_id, hashes)
          select pv.d, pv.u, substring(hashes.bytes from pv.s * ${HASH_SQL} + 1 for pv.c * ${HASH_SQL})
          from pv, (select decode(${blob.toString("base64")}, 'base64') as bytes) as hashes where pv.c > 0
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
        old_hashes as (delete from visitor_hashes where day < ${today}::date returning 1),
        old_salts as (delete from visit_salts where day < ${today}::date - 2 returning 1)
        select (select count(*) from new_batches) as batches, (select count(*) from added_views) as views,
          (select count(*) from added_clicks) as clicks`);
    } catch (error) {
      // Kept for the next flush (a user or supplement deleted meanwhile is skipped then).
      const words = new Uint32Array(blob.buffer, blob.byteOffset, blob.length / 4);
      for (const [i, entry] of views.entries()) {
        const current = this.viewEntry(entry.userId, entry.day, true);
        if (!current) continue;
        this.counts[current.index] = (this.counts[current.index] as number) + (counts[i] as number);
        const end = (starts[i] as number) + (hashCounts[i] as number);
        for (let k = starts[i] as number; k < end; k++) this.newHashes.push(current.index, words, k * 4);
      }
      for (const entry of clicks) {
        const key = `${entry.supplementId}|${entry.day}`;
        const current = this.clicks.get(key);
        if (current) current.clicks += entry.clicks;
        else this.clicks.set(key, entry);
      }
      log.warn("insights: counts not written; kept for the next flush", errorFields(error));
      this.lastFlushFailed = true;
      return;
    }
    this.lastFlushFailed = false;
    if (this.cleanedFor === today) return;
    try {
      await this.closeEarlierDays(today);
      this.cleanedFor = today;
    } catch (error) {
      log.warn("insights: earlier days' visitors not added up yet; tried again at the next flush", errorFields(error));
    }
  }

  /**
   * Once a UTC day: the visitors of earlier days' batches (each distinct hash once) added to
   * their profile_daily_counts rows, and those batches deleted, in one statement. Two
   * instances doing it at once take each batch once: the second's delete waits for the first's
   * and then finds those rows gone.
   */
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

  /** Today's salt: the one stored, or a new random one (whichever instance is first). The day before's is kept. */
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
    const dayBefore = utcDate(new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000));
    for (const day of [...this.salts.keys()]) if (day < dayBefore) this.salts.delete(day);
    this.salts.set(today, Buffer.from(salt, "hex"));
  }

  /**
   * The new visitors among a flush's `visits` (hashed off this thread: ./hashing-thread.ts),
   * added to `newHashes` under their entry's index in `views`, as many as there is room for.
   * A view whose day has no salt yet waits for the next flush; one of a day whose salt is
   * gone counts as a view, not as a visitor.
   */
  private async hashVisits(views: ViewEntry[], visits: LoggedVisits) {
    if (visits.count === 0) return;
    const latest = this.latestSaltDay();
    // Decided per entry (a profile and day), so that the views are read only when one waits.
    const waits = views.map((entry) => !this.salts.has(entry.day) && !(latest && entry.day < latest));
    if (waits.includes(true)) {
      for (let i = 0; i < visits.count; i++) {
        const owner = visits.owners[i] as number;
        if (!waits[owner]) continue;
        const entry = views[owner] as ViewEntry;
        const later = this.viewEntry(entry.userId, entry.day, true);
        if (later) this.log.pushFrom(visits, i, later.index);
      }
    }
    const room = this.maxHeldHashes - this.newHashes.length;
    if (room <= 0 || this.salts.size === 0) return;
    const hashed = await this.hashing.run({
      visits,
      profiles: views.map((v) => v.userId),
      days: views.map((v) => v.day),
      salts: [...this.salts],
      room,
    });
    for (let i = 0; i < hashed.count; i++) this.newHashes.push(hashed.owners[i] as number, hashed.words, i * 4);
  }

  /** The latest day whose salt this instance has read. */
  private latestSaltDay(): string | undefined {
    let latest: string | undefined;
    for (const day of this.salts.keys()) if (!latest || day > latest) latest = day;
    return latest;
  }

  stop() {
    clearInterval(this.timer);
    this.hashing.stop();
  }
}

/**
 * The visitors of `userId`'s page per UTC day (from `from` to `to` when given) that are still
 * in batches, each distinct hash once; add them to profile_daily_counts.visitors, which holds
 * the days already added up (and what the previous release counted itself).
 */
export async function batchedVisitors(
  db: Db,
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

const KEY = Symbol.for("stacktrack.insights.counter");
type Holder = { [KEY]?: InsightsCounter };

/**
 * The instance's one counter, flushing every INSIGHTS_FLUSH_MS (shared by server.ts and the
 * Astro bundle's copy of this module: it lives on the context).
 */
export function counterOf(ctx: Pick<AppContext, "database" | "config">): InsightsCounter {
  const holder = ctx as Holder;
  holder[KEY] ??= new InsightsCounter(ctx.database.db, { flushMs: ctx.config.INSIGHTS_FLUSH_MS });
  return holder[KEY];
}

/**
 * The public page's hook (server.ts): counts one view of `ownerId`'s page when the answer is
 * a 200 or a 304, the request a GET from no known bot, and the visitor not the owner. In memory
 * only; a visitor with a session cookie is checked once the answer is on its way (from this
 * instance's session memory, or one look-up the page never waits for).
 */
export function countView(
  ctx: AppContext,
  request: Request,
  response: Response,
  page: ProfileOwner | undefined,
  address: () => string | undefined,
) {
  const ownerId = page?.userId;
  if (!page || !ownerId || (response.status !== 200 && response.status !== 304)) return;
  const agent = countableAgent(request);
  if (agent === undefined) return;
  const counter = counterOf(ctx);
  const atMs = nowMs();
  if (!sessionTokenCookie(request.headers.get("cookie"))) {
    counter.viewOf(page, address(), agent, atMs);
    return;
  }
  const visitorAddress = address();
  getSessionUser(ctx, request.headers).then(
    (user) => {
      if (user?.id !== ownerId) counter.viewOf(page, visitorAddress, agent, atMs);
    },
    () => counter.viewOf(page, visitorAddress, agent, atMs),
  );
}
