/**
 * SQL statements the app sends, from pg_stat_statements (top-level statements of the app's
 * role in the bench database; BEGIN/COMMIT included): totals for a wrk run, and, one request
 * at a time, which statements each kind of request costs.
 */
import type postgres from "postgres";
import { median } from "./stats";

export interface StatementStat {
  calls: number;
  query: string;
}

export type StatementSnapshot = Map<string, StatementStat>;

export interface StatementCounter {
  /** Calls per normalised statement (queryid) so far. */
  snapshot(): Promise<StatementSnapshot>;
  /** Every call so far. */
  total(): Promise<number>;
}

/** A counter over `stats` (a connection to the bench database) for the statements of `appRole`. */
export function statementCounter(stats: postgres.Sql, appRole: string): StatementCounter {
  const snapshot = async (): Promise<StatementSnapshot> => {
    const rows = await stats<{ id: string; calls: string; query: string }[]>`
      select queryid::text as id, calls::bigint as calls, query from pg_stat_statements
      where userid = (select oid from pg_roles where rolname = ${appRole})
        and dbid = (select oid from pg_database where datname = current_database())`;
    const out: StatementSnapshot = new Map();
    // When the statistics connection is the app's own role (BENCH_DATABASE_URL), its own
    // statements are not the app's.
    for (const r of rows)
      if (!r.query.includes("pg_stat_statements")) out.set(r.id, { calls: Number(r.calls), query: r.query });
    return out;
  };
  return {
    snapshot,
    async total() {
      let sum = 0;
      for (const s of (await snapshot()).values()) sum += s.calls;
      return sum;
    },
  };
}

/** The calls of each statement between two snapshots (statements not called are left out). */
export function between(a: StatementSnapshot, b: StatementSnapshot): StatementSnapshot {
  const out: StatementSnapshot = new Map();
  for (const [id, s] of b) {
    const calls = s.calls - (a.get(id)?.calls ?? 0);
    if (calls > 0) out.set(id, { calls, query: s.query });
  }
  return out;
}

export const sumCalls = (s: StatementSnapshot) => [...s.values()].reduce((sum, x) => sum + x.calls, 0);

/**
 * Statements the app sends on its timers, never for a request: the public profile API's
 * rate-limit flush (each second, api/rate-limit.ts), the view and click flush and the day's
 * salt (every 5 s, api/insights/counter.ts). A request's count leaves them out, by their text.
 */
const BACKGROUND_STATEMENTS = [
  /^\s*insert into "rate_limits" \(key, window_start, count\)\s+select/i,
  /^\s*with pv as \(/i,
  /visit_salts/i,
];

export const isBackground = (query: string) => BACKGROUND_STATEMENTS.some((pattern) => pattern.test(query));

/** The calls of a request: those between two snapshots less the app's timers' (isBackground). */
export const requestCalls = (delta: StatementSnapshot) =>
  [...delta.values()].reduce((sum, x) => sum + (isBackground(x.query) ? 0 : x.calls), 0);

/** One statement's text for a report: whitespace folded, cut to `max` characters. */
export function shortQuery(query: string, max = 110): string {
  const flat = query.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export interface StatementProbe {
  id: string;
  label: string;
  /** Statements of each request, in order. */
  perRequest: number[];
  median: number;
  /** Every statement seen over the requests (queryid, text), with its calls, most first. */
  statements: { id: string; query: string; calls: number }[];
}

/**
 * `n` requests made by `send` (which checks each answer and throws on a wrong one), one at a
 * time, each counted alone less the app's timers' statements (isBackground: the rate-limit and
 * view-count flushes); the median ignores anything else stray.
 */
export async function probeStatements(
  counter: StatementCounter,
  id: string,
  label: string,
  n: number,
  send: (i: number) => Promise<void>,
): Promise<StatementProbe> {
  const perRequest: number[] = [];
  const seen = new Map<string, StatementStat>();
  for (let i = 0; i < n; i++) {
    const before = await counter.snapshot();
    await send(i);
    const delta = between(before, await counter.snapshot());
    perRequest.push(requestCalls(delta));
    for (const [qid, s] of delta) {
      const known = seen.get(qid);
      if (known) known.calls += s.calls;
      else seen.set(qid, { ...s });
    }
  }
  return {
    id,
    label,
    perRequest,
    median: median(perRequest),
    statements: [...seen]
      .map(([qid, s]) => ({ id: qid, query: s.query, calls: s.calls }))
      .sort((a, b) => b.calls - a.calls),
  };
}
