/**
 * The tracking reads: a day's doses (Today), the whole history in one statement, and the
 * export's rows. Every query is scoped to the user.
 */
import { and, asc, desc, eq, lte, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { intakes, scheduleVersions, supplements } from "../../db/schema";
import { isoWeekday } from "../../src/lib/dates";
import {
  DOSE_TIMES,
  type HistoryDay,
  type IntakeStatus,
  type TodayAsNeeded,
  type TodayDose,
  type TodayJson,
} from "../../src/lib/schedule";

/** The doses of `date` from the versions in force on it, and what was logged then. */
export async function readDay(db: Db, userId: string, date: string, timeZone: string): Promise<TodayJson> {
  const [versions, logged] = await Promise.all([
    db
      .selectDistinctOn([scheduleVersions.supplementId], {
        supplementId: scheduleVersions.supplementId,
        name: scheduleVersions.name,
        quantityType: scheduleVersions.quantityType,
        doseAmount: scheduleVersions.doseAmount,
        schedule: scheduleVersions.schedule,
        deleted: scheduleVersions.deleted,
        sortOrder: supplements.sortOrder,
      })
      .from(scheduleVersions)
      .leftJoin(
        supplements,
        and(eq(supplements.id, scheduleVersions.supplementId), eq(supplements.userId, scheduleVersions.userId)),
      )
      .where(and(eq(scheduleVersions.userId, userId), lte(scheduleVersions.validFrom, date)))
      .orderBy(asc(scheduleVersions.supplementId), desc(scheduleVersions.validFrom)),
    db
      .select({ supplementId: intakes.supplementId, time: intakes.time, status: intakes.status, at: intakes.at })
      .from(intakes)
      .where(and(eq(intakes.userId, userId), eq(intakes.date, date))),
  ]);
  const log = new Map(logged.map((row) => [`${row.supplementId}/${row.time}`, row]));
  // The user's list order; a supplement deleted since (no row) after the others, by id.
  const live = versions
    .filter((v) => !v.deleted)
    .sort(
      (a, b) =>
        (a.sortOrder ?? Number.MAX_SAFE_INTEGER) - (b.sortOrder ?? Number.MAX_SAFE_INTEGER) ||
        a.supplementId - b.supplementId,
    );
  const weekday = isoWeekday(date);
  const doses: TodayDose[] = [];
  const asNeeded: TodayAsNeeded[] = [];
  for (const time of DOSE_TIMES) {
    for (const v of live) {
      if (!v.schedule?.days.includes(weekday) || !v.schedule.times.includes(time)) continue;
      const entry = log.get(`${v.supplementId}/${time}`);
      doses.push({
        supplementId: v.supplementId,
        name: v.name,
        quantityType: v.quantityType,
        doseAmount: v.doseAmount,
        time,
        status: (entry?.status as IntakeStatus | undefined) ?? null,
        at: entry?.at.toISOString() ?? null,
      });
    }
  }
  for (const v of live) {
    if (v.schedule !== null) continue;
    const entry = log.get(`${v.supplementId}/as-needed`);
    asNeeded.push({
      supplementId: v.supplementId,
      name: v.name,
      quantityType: v.quantityType,
      doseAmount: v.doseAmount,
      status: entry ? "taken" : null,
      at: entry?.at.toISOString() ?? null,
    });
  }
  return {
    date,
    timeZone,
    doses,
    asNeeded,
    summary: {
      due: doses.length,
      taken: doses.filter((d) => d.status === "taken").length,
      skipped: doses.filter((d) => d.status === "skipped").length,
    },
  };
}

const rowsOf = <T>(result: unknown): T[] =>
  (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];

/**
 * Every day from `from` (or the user's first version, if earlier) to `today`, oldest first,
 * in ONE statement: the version in force on each day (a range join on valid_from … next
 * valid_from), its times on that weekday, and the logged doses among them. `missed` counts
 * unlogged doses of ended days, except on the day the supplement was added.
 *
 * Shaped for the planner (EXPLAIN ANALYZE, 20 supplements over 366 days, ~7,200 doses: about
 * 100 ms before, 18 ms after): each version's weekdays and times are expanded once (`vd`)
 * and joined to the days by weekday, instead of a JSON containment test per day and version;
 * the user's logged doses of the range are read once (`logged`) and hash-joined on
 * (date, supplement, time), instead of an index scan per dose.
 */
export async function readHistory(db: Db, userId: string, from: string, today: string): Promise<HistoryDay[]> {
  const result = await db.execute(sql`
    with vr as (
      select supplement_id, valid_from, schedule, deleted,
        lead(valid_from) over (partition by supplement_id order by valid_from) as valid_to,
        min(valid_from) over (partition by supplement_id) as added_on
      from ${scheduleVersions} where user_id = ${userId}
    ),
    vd as (
      select vr.supplement_id, vr.valid_from, vr.valid_to, vr.added_on, wd.dow, t.time
      from vr
      cross join lateral (
        select distinct d::int as dow from jsonb_array_elements_text(vr.schedule -> 'days') as d
      ) wd
      cross join lateral jsonb_array_elements_text(vr.schedule -> 'times') as t(time)
      where not vr.deleted and jsonb_typeof(vr.schedule) = 'object'
    ),
    days as (
      select g::date as date, extract(isodow from g)::int as dow from generate_series(
        least(${from}::date, coalesce((select min(valid_from) from vr), ${from}::date))::timestamp,
        ${today}::date::timestamp, interval '1 day') g
    ),
    logged as (
      select date, supplement_id, time, status from ${intakes}
      where user_id = ${userId} and date >= (select min(date) from days) and date <= ${today}::date
    ),
    doses as (
      select days.date, vd.supplement_id, vd.added_on, vd.time
      from days
      join vd on vd.dow = days.dow and days.date >= vd.valid_from and (vd.valid_to is null or days.date < vd.valid_to)
    )
    select days.date::text as date,
      count(doses.time)::int as due,
      (count(*) filter (where i.status = 'taken'))::int as taken,
      (count(*) filter (where i.status = 'skipped'))::int as skipped,
      (count(doses.time) filter (where i.status is null and days.date < ${today}::date and days.date <> doses.added_on))::int as missed
    from days
    left join doses on doses.date = days.date
    left join logged i on i.date = doses.date and i.supplement_id = doses.supplement_id and i.time = doses.time
    group by days.date order by days.date`);
  return rowsOf<HistoryDay>(result).map((row) => ({
    date: String(row.date),
    due: Number(row.due),
    taken: Number(row.taken),
    skipped: Number(row.skipped),
    missed: Number(row.missed),
  }));
}
