/**
 * As needed, counted (issue 48): a day's count of an as-needed supplement is its intake row's
 * `count` (no row: 0), ordered by each change's own time like every intake write (writes.ts):
 * a change made before the stored one changes nothing. Each change applied is logged in
 * as_needed_log (from, to, when); Today's `lastTakenAt` is the latest logged change that
 * raised the count to where it is (an undo gives back the dose before). See docs/tracking.md.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { type AsNeededLimits, type AsNeededLog, type AsNeededState, asNeededState } from "../../src/lib/as-needed";
import { limitsOrNull } from "../../src/lib/as-needed-input";
import { addDays, dateIn } from "../../src/lib/dates";
import { AS_NEEDED } from "../../src/lib/schedule";

export interface CountWrite {
  userId: string;
  date: string;
  supplementId: number;
  name: string;
  count: number;
  at: Date;
  /** The first day of the editable window: older clears and log rows are pruned. */
  oldest: string;
}

/** The latest logged change of a supplement's day (`date`, SQL) that raised its count through `level` (SQL). */
const raisedThrough = (userId: string, supplementId: SQL | number, date: SQL, level: SQL) =>
  sql`(select max(l.at) from as_needed_log l where l.user_id = ${userId} and l.date = ${date}
    and l.supplement_id = ${supplementId} and l.count_from < ${level} and l.count_to >= ${level})`;

const iso = (value: Date | string | null | undefined) =>
  value === null || value === undefined ? null : new Date(value).toISOString();

interface WriteRow {
  applied: boolean;
  before: number;
  before_at: Date | string | null;
  n: number;
  last: Date | string | null;
  previous: Date | string | null;
  day_before_last: Date | string | null;
}

/**
 * Sets the day's count (0 clears it) unless a later change to it was stored (a later count, or
 * a later clear), and answers whether it applied and the day's log as it then stands: one
 * statement (its reads see the log as it was before, so this change's own part is added here).
 */
export async function setAsNeededCount(db: Db, w: CountWrite): Promise<{ applied: boolean; log: AsNeededLog }> {
  const at = w.at.toISOString();
  const key = sql`user_id = ${w.userId} and date = ${w.date}::date and supplement_id = ${w.supplementId} and time = ${AS_NEEDED}`;
  const before = addDays(w.date, -1);
  const change =
    w.count === 0
      ? sql`gone as (delete from intakes where ${key} and exists (select 1 from fresh) returning 1),
    cleared as (
      insert into intake_clears (user_id, date, supplement_id, time, at)
      select ${w.userId}, ${w.date}::date, ${w.supplementId}, ${AS_NEEDED}, ${at}::timestamptz from fresh
      on conflict (user_id, date, supplement_id, time) do update set at = greatest(intake_clears.at, excluded.at)
      returning 1
    )`
      : sql`written as (
      insert into intakes (user_id, date, supplement_id, time, status, name, at, count)
      select ${w.userId}, ${w.date}::date, ${w.supplementId}, ${AS_NEEDED}, 'taken', ${w.name}, ${at}::timestamptz,
        ${w.count} from fresh
      on conflict (user_id, date, supplement_id, time) do update set
        count = excluded.count,
        name = excluded.name,
        at = case when intakes.count = excluded.count then intakes.at else excluded.at end
      where intakes.at <= excluded.at
      returning 1
    )`;
  const day = sql`${w.date}::date`;
  const result = await db.execute(sql`
    with prev as (
      select coalesce((select count from intakes where ${key}), 0) as n, (select at from intakes where ${key}) as at
    ),
    fresh as (
      select 1 as ok where not exists (select 1 from intakes where ${key} and at > ${at}::timestamptz)
        and not exists (select 1 from intake_clears where ${key} and at > ${at}::timestamptz)
    ),
    ${change},
    logged as (
      insert into as_needed_log (user_id, date, supplement_id, at, count_from, count_to)
      select ${w.userId}, ${day}, ${w.supplementId}, ${at}::timestamptz, prev.n, ${w.count}
      from prev, fresh where prev.n <> ${w.count}
      returning 1
    ),
    pruned as (delete from as_needed_log where user_id = ${w.userId} and date < ${w.oldest}::date returning 1),
    final as (
      select exists (select 1 from fresh) as applied, prev.n as before, prev.at as before_at,
        case when exists (select 1 from fresh) then ${w.count} else prev.n end as n
      from prev
    ),
    y as (select count, at from intakes where user_id = ${w.userId} and date = ${before}::date
      and supplement_id = ${w.supplementId} and time = ${AS_NEEDED})
    select final.*,
      ${raisedThrough(w.userId, w.supplementId, day, sql`final.n`)} as last,
      ${raisedThrough(w.userId, w.supplementId, day, sql`final.n - 1`)} as previous,
      (select coalesce(${raisedThrough(w.userId, w.supplementId, sql`${before}::date`, sql`y.count`)}, y.at) from y)
        as day_before_last
    from final`);
  const row = rowsOf<WriteRow>(result)[0];
  if (!row) throw new Error("an as-needed write answered no row");
  const [n, was] = [Number(row.n), Number(row.before)];
  const applied = row.applied === true;
  // This change's own log row is not in the statement's reads: a raise is the latest through each level it crossed.
  const raisedTo = (level: number) => applied && level > was && level <= n;
  const lastTakenAt = n === 0 ? null : raisedTo(n) ? at : (iso(row.last) ?? iso(row.before_at));
  const previousTakenAt = n >= 2 ? (raisedTo(n - 1) ? at : iso(row.previous)) : iso(row.day_before_last);
  return { applied, log: { count: n, lastTakenAt, previousTakenAt } };
}

interface LogRow {
  supplement_id: number;
  date: string;
  time: string;
  status: string;
  count: number;
  at: Date | string;
  last: Date | string | null;
  previous: Date | string | null;
}

/** A logged dose of a day (readDayLog). */
export interface LoggedDose {
  supplementId: number;
  time: string;
  status: string;
  at: Date;
}

/**
 * The intakes of `date` (every time) and each as-needed supplement's log then, in one
 * statement over `date` and the day before: its count, the change that raised it to that count
 * (the intake's own time for a row logged before the log existed), and the one that raised it
 * to the count below or, for the day's first, the day before's last.
 */
export async function readDayLog(
  db: Db,
  userId: string,
  date: string,
): Promise<{ doses: LoggedDose[]; asNeeded: Map<number, AsNeededLog> }> {
  const before = addDays(date, -1);
  const result = await db.execute(sql`
    select i.supplement_id, i.date::text as date, i.time, i.status, i.count, i.at,
      case when i.time = ${AS_NEEDED} then ${raisedThrough(userId, sql`i.supplement_id`, sql`i.date`, sql`i.count`)} end as last,
      case when i.time = ${AS_NEEDED} then ${raisedThrough(userId, sql`i.supplement_id`, sql`i.date`, sql`i.count - 1`)} end as previous
    from intakes i
    where i.user_id = ${userId} and (i.date = ${date}::date or (i.date = ${before}::date and i.time = ${AS_NEEDED}))`);
  const rows = rowsOf<LogRow>(result);
  const lastOf = (r: LogRow | undefined) => (r ? (iso(r.last) ?? iso(r.at)) : null);
  const asNeeded = new Map<number, AsNeededLog>();
  const dayBefore = new Map(rows.filter((r) => r.date === before).map((r) => [Number(r.supplement_id), r]));
  const ofDate = rows.filter((r) => r.date === date);
  for (const r of ofDate.filter((row) => row.time === AS_NEEDED)) {
    const id = Number(r.supplement_id);
    const count = Number(r.count);
    const previous = count >= 2 ? iso(r.previous) : lastOf(dayBefore.get(id));
    asNeeded.set(id, { count, lastTakenAt: lastOf(r), previousTakenAt: previous });
  }
  for (const [id, r] of dayBefore) {
    if (!asNeeded.has(id)) asNeeded.set(id, { count: 0, lastTakenAt: null, previousTakenAt: lastOf(r) });
  }
  const doses = ofDate.map((r) => ({
    supplementId: Number(r.supplement_id),
    time: r.time,
    status: r.status,
    at: new Date(r.at),
  }));
  return { doses, asNeeded };
}

const NONE: AsNeededLog = { count: 0, lastTakenAt: null, previousTakenAt: null };

/**
 * What Today says of a supplement's `date` at `now` (ms) in `zone`: the count and last dose,
 * and with limits the warning and, on the user's today only, when the next is allowed.
 */
export function stateOn(
  log: AsNeededLog | undefined,
  limits: AsNeededLimits | null | undefined,
  date: string,
  now: number,
  zone: string,
): AsNeededState {
  const state = asNeededState(log ?? NONE, limitsOrNull(limits), now, zone);
  return state.nextAllowedAt !== undefined && dateIn(zone, now) !== date ? { ...state, nextAllowedAt: null } : state;
}
