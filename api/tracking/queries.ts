/**
 * The tracking reads: a day's doses (Today), the whole history in one statement, and the
 * export's rows. Every query is scoped to the user.
 */
import { and, asc, desc, eq, lte, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { intakeDays, scheduleVersions, supplements } from "../../db/schema";
import { addDays, daysBetween, isCalendarDate } from "../../src/lib/dates";
import { amountAt } from "../../src/lib/due";
import { ingredientJson, type StoredIngredient } from "../../src/lib/ingredients";
import {
  dueOn,
  HISTORY_MAX_DAYS,
  type HistoryDay,
  type IntakeStatus,
  type TodayAsNeeded,
  type TodayDose,
  type TodayJson,
  TRACKING_MESSAGES,
} from "../../src/lib/schedule";
import { nowMs } from "../lib/clock";
import { badRequest } from "../lib/http";
import { readDayLog, stateOn } from "./as-needed";

/** A version's serving and lines (issue 47), only when it has lines: Today's answer is unchanged without. */
const strengthOf = (v: { servingSize: number; ingredients: StoredIngredient[] }) =>
  v.ingredients.length > 0 ? { servingSize: v.servingSize, ingredients: v.ingredients.map(ingredientJson) } : {};

/** The doses of `date` from the versions in force on it (with what a serving held), and what was logged then. */
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
        servingSize: scheduleVersions.servingSize,
        ingredients: scheduleVersions.ingredients,
        sortOrder: supplements.sortOrder,
        limits: supplements.asNeeded,
      })
      .from(scheduleVersions)
      .leftJoin(
        supplements,
        and(eq(supplements.id, scheduleVersions.supplementId), eq(supplements.userId, scheduleVersions.userId)),
      )
      .where(and(eq(scheduleVersions.userId, userId), lte(scheduleVersions.validFrom, date)))
      .orderBy(asc(scheduleVersions.supplementId), desc(scheduleVersions.validFrom)),
    readDayLog(db, userId, date),
  ]);
  const log = new Map(logged.doses.map((row) => [`${row.supplementId}/${row.time}`, row]));
  // The user's list order; a supplement deleted since (no row) after the others, by id.
  const live = versions
    .filter((v) => !v.deleted)
    .sort(
      (a, b) =>
        (a.sortOrder ?? Number.MAX_SAFE_INTEGER) - (b.sortOrder ?? Number.MAX_SAFE_INTEGER) ||
        a.supplementId - b.supplementId,
    );
  const due = dueOn(live, date);
  const doses: TodayDose[] = due.doses.map(({ item: v, time }) => {
    const entry = log.get(`${v.supplementId}/${time}`);
    return {
      supplementId: v.supplementId,
      name: v.name,
      quantityType: v.quantityType,
      doseAmount: amountAt(v.schedule, time, v.doseAmount),
      time,
      status: (entry?.status as IntakeStatus | undefined) ?? null,
      at: entry?.at.toISOString() ?? null,
      ...strengthOf(v),
    };
  });
  const current = nowMs();
  const asNeeded: TodayAsNeeded[] = due.asNeeded.map((v) => {
    const entry = log.get(`${v.supplementId}/as-needed`);
    return {
      supplementId: v.supplementId,
      name: v.name,
      quantityType: v.quantityType,
      doseAmount: v.doseAmount,
      status: entry ? "taken" : null,
      at: entry?.at.toISOString() ?? null,
      ...strengthOf(v),
      // Issue 48: the count, the last dose, and with limits the next allowed and a warning.
      ...stateOn(logged.asNeeded.get(v.supplementId), v.limits, date, current, timeZone),
      ...(v.limits ? { limits: v.limits } : {}),
    };
  });
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

/** No history day is older than this: a range may not start before it (issue 36). */
export const HISTORY_FLOOR = "2000-01-01";

/**
 * The days a read asks for (GET /api/history, the report): `from` and `to` real dates (absent:
 * `to` today, `from` `defaultDays` before it), ending no later than today, 1 to HISTORY_MAX_DAYS
 * days, none before HISTORY_FLOOR. A 400 naming the field otherwise.
 */
export function dayRange(
  raw: { from?: string; to?: string },
  today: string,
  defaultDays: number,
): { from: string; to: string } {
  for (const key of ["from", "to"] as const) {
    const value = raw[key];
    if (value !== undefined && !isCalendarDate(value)) {
      throw badRequest(TRACKING_MESSAGES.date, { [key]: [TRACKING_MESSAGES.date] });
    }
  }
  const to = raw.to ?? today;
  const from = raw.from ?? addDays(to, -(defaultDays - 1));
  if (daysBetween(to, today) < 0) throw badRequest(TRACKING_MESSAGES.range, { to: [TRACKING_MESSAGES.range] });
  const span = daysBetween(from, to) + 1;
  if (span < 1 || span > HISTORY_MAX_DAYS || from < HISTORY_FLOOR) {
    throw badRequest(TRACKING_MESSAGES.range, { from: [TRACKING_MESSAGES.range] });
  }
  return { from, to };
}

export const emptyDay = (date: string): HistoryDay => ({ date, due: 0, taken: 0, skipped: 0, missed: 0 });

/** readHistory's one statement, its user and today as placeholders. */
function historyStatement(db: Db) {
  const userId = sql.placeholder("userId");
  const today = sql`${sql.placeholder("today")}::date`;
  const days = sql`(
    with vr as (
      select supplement_id, valid_from, schedule, deleted,
        lead(valid_from) over (partition by supplement_id order by valid_from) as valid_to,
        min(valid_from) over (partition by supplement_id) as added_on
      from ${scheduleVersions} where user_id = ${userId}
    ),
    spans as (
      select start, lead(start) over (order by start) as stop from (select distinct valid_from as start from vr) c
    ),
    days as (
      select g::date as date, spans.start from spans
      cross join lateral generate_series(
        greatest(spans.start, ${HISTORY_FLOOR}::date)::timestamp,
        least(spans.stop - 1, ${today})::timestamp, interval '1 day') g
    ),
    due as (
      select days.date,
        sum(jsonb_array_length(vr.schedule -> 'times'))::int as due,
        coalesce(sum(jsonb_array_length(vr.schedule -> 'times')) filter (where vr.added_on = days.date), 0)::int as added
      from days
      join vr on vr.valid_from <= days.start and (vr.valid_to is null or vr.valid_to > days.start)
      where not vr.deleted and jsonb_typeof(vr.schedule -> 'times') = 'array'
        and stacktrack_due_on(vr.schedule, days.date)
      group by days.date
    )
    select days.date, coalesce(due.due, 0) as due, coalesce(k.taken, 0) as taken, coalesce(k.skipped, 0) as skipped,
      case when days.date < ${today} then
        coalesce(due.due, 0) - coalesce(due.added, 0)
        - (coalesce(k.taken, 0) + coalesce(k.skipped, 0) - coalesce(k.first_day, 0))
      else 0 end as missed
    from days
    left join due on due.date = days.date
    left join ${intakeDays} k on k.user_id = ${userId} and k.date = days.date
  ) as h`;
  // One row: the first day, and every day's numbers as JSON (parsed natively, far cheaper
  // for the driver than a row per day).
  return db
    .select({
      first: sql<string | null>`min(h.date)::text`,
      days: sql<string | null>`json_agg(json_build_array(h.due, h.taken, h.skipped, h.missed) order by h.date)::text`,
    })
    .from(days)
    .prepare("history");
}

/** Prepared once per database: the server plans it once per connection, not per request. */
const prepared = new WeakMap<Db, ReturnType<typeof historyStatement>>();

/**
 * Every day from `from` (or the user's first version, if earlier) to `today`, oldest first,
 * in ONE statement (design: docs/history.md). The database makes only the days from the
 * first version (no earlier than HISTORY_FLOOR) on, without gaps: the spans between version
 * starts give each weekday's due doses, and intake_days (kept by triggers) each day's logged
 * ones that were due. Earlier days have nothing due and are made here. `missed` counts
 * unlogged doses of ended days, except on the day the supplement was added.
 */
export async function readHistory(db: Db, userId: string, from: string, today: string): Promise<HistoryDay[]> {
  let statement = prepared.get(db);
  if (!statement) {
    statement = historyStatement(db);
    prepared.set(db, statement);
  }
  const [result] = await statement.execute({ userId, today });
  const numbers = JSON.parse(result?.days ?? "[]") as [number, number, number, number][];
  // The days run on from the first without a gap; their dates are counted here (from 2000 on,
  // toISOString's first ten characters are the calendar date).
  const day = new Date(`${result?.first ?? today}T00:00:00Z`);
  const rows = numbers.map(([due, taken, skipped, missed]) => {
    const date = day.toISOString().slice(0, 10);
    day.setUTCDate(day.getUTCDate() + 1);
    return { date, due, taken, skipped, missed };
  });
  const before: HistoryDay[] = [];
  const first = rows[0]?.date ?? addDays(today, 1);
  for (let date = from; date < first; date = addDays(date, 1)) before.push(emptyDay(date));
  return before.length ? [...before, ...rows] : rows;
}
