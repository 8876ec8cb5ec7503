/**
 * The intake writes, ordered by each change's own time (issue 40): a tick or a clear made
 * before the dose's stored change is answered with the stored state and changes nothing, so a
 * replayed or late offline tick can neither count twice nor undo a later change. One
 * statement each; clears leave a row in intake_clears with their time. See docs/offline.md.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rowsOf } from "../../db/rows";
import type { IntakeStatus, IntakeTime } from "../../src/lib/schedule";

export interface DoseWrite {
  supplementId: number;
  time: IntakeTime;
  name: string;
}

/** A dose after a write: what the write set when applied, otherwise the state it found. */
export interface DoseOutcome {
  supplementId: number;
  time: IntakeTime;
  status: IntakeStatus | null;
  at: Date;
  applied: boolean;
}

interface OutcomeRow {
  applied: boolean;
  supplement_id: number;
  time: string;
  status: string | null;
  at: Date | string;
}

/** One outcome per dose asked: the applied row, else the stored intake, else the stored clear. */
function outcomes(doses: DoseWrite[], rows: OutcomeRow[], at: Date, status: IntakeStatus | null): DoseOutcome[] {
  const key = (id: number, time: string) => `${id}/${time}`;
  const found = new Map<string, OutcomeRow>();
  const rank = (r: OutcomeRow) => (r.applied ? 2 : r.status !== null ? 1 : 0);
  for (const row of rows) {
    const k = key(Number(row.supplement_id), row.time);
    const seen = found.get(k);
    if (!seen || rank(row) > rank(seen)) found.set(k, row);
  }
  return doses.map((d) => {
    const row = found.get(key(d.supplementId, d.time));
    // A clear that found nothing newer, or an intake the statement wrote.
    if (!row || row.applied) {
      return { supplementId: d.supplementId, time: d.time, status, at: row ? new Date(row.at) : at, applied: true };
    }
    return {
      supplementId: d.supplementId,
      time: d.time,
      status: row.status as IntakeStatus | null,
      at: new Date(row.at),
      applied: false,
    };
  });
}

const input = (doses: DoseWrite[]) =>
  sql`jsonb_to_recordset(${JSON.stringify(doses.map((d) => ({ supplement_id: d.supplementId, time: d.time, name: d.name })))}::jsonb) as v(supplement_id integer, time text, name text)`;

/**
 * Sets `status` on each dose of `date` unless the dose changed after `at` (a later tick, or a
 * later clear). A repeat of the stored status keeps its first `at`. Answers, per dose, the
 * stored state it found when it changed nothing.
 */
export async function setIntakes(
  db: Db,
  userId: string,
  date: string,
  status: IntakeStatus,
  at: Date,
  doses: DoseWrite[],
): Promise<DoseOutcome[]> {
  const atIso = at.toISOString();
  const result = await db.execute(sql`
    with v as (select * from ${input(doses)}),
    written as (
      insert into intakes (user_id, date, supplement_id, time, status, name, at)
      select ${userId}, ${date}::date, v.supplement_id, v.time, ${status}, v.name, ${atIso}::timestamptz from v
      where not exists (
        select 1 from intake_clears c
        where c.user_id = ${userId} and c.date = ${date}::date and c.supplement_id = v.supplement_id
          and c.time = v.time and c.at > ${atIso}::timestamptz)
      on conflict (user_id, date, supplement_id, time) do update set
        status = excluded.status,
        name = excluded.name,
        at = case when intakes.status = excluded.status then intakes.at else excluded.at end
      where intakes.at <= excluded.at
      returning supplement_id, time, at
    )
    select true as applied, w.supplement_id, w.time, ${status}::text as status, w.at from written w
    union all
    select false, i.supplement_id, i.time, i.status, i.at from intakes i join v
      on i.supplement_id = v.supplement_id and i.time = v.time
      where i.user_id = ${userId} and i.date = ${date}::date
    union all
    select false, c.supplement_id, c.time, null, c.at from intake_clears c join v
      on c.supplement_id = v.supplement_id and c.time = v.time
      where c.user_id = ${userId} and c.date = ${date}::date`);
  return outcomes(doses, rowsOf<OutcomeRow>(result), at, status);
}

/**
 * Clears each dose of `date` logged no later than `at`, and remembers the clear's time (the
 * later of two clears) so that an older tick sent afterwards cannot bring the dose back;
 * clears older than `oldest` (out of the editable window) are pruned. Answers, per dose, the
 * newer intake it left in place.
 */
export async function clearIntakes(
  db: Db,
  userId: string,
  date: string,
  at: Date,
  oldest: string,
  doses: DoseWrite[],
): Promise<DoseOutcome[]> {
  const atIso = at.toISOString();
  const result = await db.execute(sql`
    with v as (select * from ${input(doses)}),
    gone as (
      delete from intakes i using v
      where i.user_id = ${userId} and i.date = ${date}::date and i.supplement_id = v.supplement_id
        and i.time = v.time and i.at <= ${atIso}::timestamptz
      returning 1
    ),
    cleared as (
      insert into intake_clears (user_id, date, supplement_id, time, at)
      select ${userId}, ${date}::date, v.supplement_id, v.time, ${atIso}::timestamptz from v
      on conflict (user_id, date, supplement_id, time) do update set at = greatest(intake_clears.at, excluded.at)
      returning 1
    ),
    pruned as (delete from intake_clears where user_id = ${userId} and date < ${oldest}::date returning 1)
    select false as applied, i.supplement_id, i.time, i.status, i.at from intakes i join v
      on i.supplement_id = v.supplement_id and i.time = v.time
      where i.user_id = ${userId} and i.date = ${date}::date and i.at > ${atIso}::timestamptz`);
  return outcomes(doses, rowsOf<OutcomeRow>(result), at, null);
}
