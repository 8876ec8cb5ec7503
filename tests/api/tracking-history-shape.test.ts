/**
 * GET /api/history's one statement (api/tracking/queries.ts readHistory) was reshaped for the
 * planner (weekdays and times expanded per version, the log hash-joined). Its answers must be
 * those of the statement as first written, kept here as the reference: on random histories
 * with schedule changes on any day, deletions, as-needed spells, weekday subsets, several
 * times a day, ticks and skips on scheduled and unscheduled doses, and as-needed intakes,
 * written in every order (the per-day counts it reads are kept by triggers).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { readHistory } from "../../api/tracking/queries";
import type { Db } from "../../db/client";
import { intakes, scheduleVersions } from "../../db/schema";
import { addDays } from "../../src/lib/dates";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { createUser } from "../support/users";

let api: TestApi;
beforeAll(async () => {
  api = await startApi({}, { database: await migratedDatabase() });
}, 60_000);
afterAll(async () => {
  await api?.close();
});

const rowsOf = (result: unknown): Record<string, unknown>[] =>
  (Array.isArray(result) ? result : ((result as { rows?: unknown[] }).rows ?? [])) as Record<string, unknown>[];

/** readHistory's statement as first written (a containment test per day and version, the log joined per dose). */
async function reference(db: Db, userId: string, from: string, today: string) {
  const result = await db.execute(sql`
    with vr as (
      select supplement_id, valid_from, schedule, deleted,
        lead(valid_from) over (partition by supplement_id order by valid_from) as valid_to,
        min(valid_from) over (partition by supplement_id) as added_on
      from ${scheduleVersions} where user_id = ${userId}
    ),
    days as (
      select g::date as date from generate_series(
        least(${from}::date, coalesce((select min(valid_from) from vr), ${from}::date))::timestamp,
        ${today}::date::timestamp, interval '1 day') g
    ),
    doses as (
      select days.date, vr.supplement_id, vr.added_on, t.time
      from days
      join vr on days.date >= vr.valid_from and (vr.valid_to is null or days.date < vr.valid_to)
      cross join lateral jsonb_array_elements_text(vr.schedule -> 'times') as t(time)
      where not vr.deleted and jsonb_typeof(vr.schedule) = 'object'
        and (vr.schedule -> 'days') @> to_jsonb(extract(isodow from days.date)::int)
    )
    select days.date::text as date,
      count(doses.time)::int as due,
      (count(*) filter (where i.status = 'taken'))::int as taken,
      (count(*) filter (where i.status = 'skipped'))::int as skipped,
      (count(doses.time) filter (where i.status is null and days.date < ${today}::date and days.date <> doses.added_on))::int as missed
    from days
    left join doses on doses.date = days.date
    left join ${intakes} i on i.user_id = ${userId} and i.date = doses.date
      and i.supplement_id = doses.supplement_id and i.time = doses.time
    group by days.date order by days.date`);
  return rowsOf(result).map((row) => ({
    date: String(row.date),
    due: Number(row.due),
    taken: Number(row.taken),
    skipped: Number(row.skipped),
    missed: Number(row.missed),
  }));
}

const TIMES = ["morning", "afternoon", "evening", "bedtime"] as const;
type Version = typeof scheduleVersions.$inferInsert;

/**
 * How the rows are written: the versions before the log, the log before the versions, or
 * both and then some versions changed and dropped (the per-day counts the statement reads,
 * intake_days, are kept by triggers on both tables: every order must leave them right).
 */
const ORDERS = ["versions, then log", "log, then versions", "both, then versions changed"] as const;

describe("readHistory's statement answers as the statement first written", () => {
  test.each([1, 2, 3, 4, 5, 6].map((seed) => [seed, ORDERS[seed % ORDERS.length] as (typeof ORDERS)[number]] as const))(
    "random history #%d (%s)",
    async (seed, order) => {
      let state = seed * 7919;
      const random = () => {
        state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
        return state / 2_147_483_648;
      };
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
      const user = await createUser(api);
      const db = api.ctx.database.db;
      const today = "2026-11-23";
      const start = addDays(today, -120);
      const versions: Version[] = [];
      const logged = new Map<string, typeof intakes.$inferInsert>();
      for (let supplementId = 1; supplementId <= 6; supplementId++) {
        let day = addDays(start, Math.floor(random() * 40));
        while (day <= today) {
          const kind = random();
          const schedule =
            kind < 0.15
              ? null
              : kind < 0.3
                ? { times: ["anytime"], days: [1, 2, 3, 4, 5, 6, 7] }
                : {
                    times: TIMES.filter(() => random() < 0.5)
                      .concat(["morning"])
                      .filter((t, i, all) => all.indexOf(t) === i),
                    days: [1, 2, 3, 4, 5, 6, 7]
                      .filter(() => random() < 0.6)
                      .concat([pick([1, 3, 5, 7])])
                      .sort(),
                  };
          versions.push({
            userId: user.id,
            supplementId,
            validFrom: day,
            name: `S${supplementId}`,
            quantityType: "Capsule(s)",
            schedule: (schedule && { ...schedule, days: [...new Set(schedule.days)] }) as Version["schedule"],
            deleted: random() < 0.08,
          });
          day = addDays(day, 1 + Math.floor(random() * 50));
        }
        for (let d = start; d <= today; d = addDays(d, 1)) {
          for (const time of [...TIMES, "anytime", "as-needed"]) {
            if (random() < 0.25) {
              logged.set(`${d}/${supplementId}/${time}`, {
                userId: user.id,
                date: d,
                supplementId,
                time,
                status: random() < 0.8 ? "taken" : "skipped",
                name: `S${supplementId}`,
                at: new Date(`${d}T08:00:00Z`),
              });
            }
          }
        }
      }
      const rows = [...logged.values()];
      const writeLog = async () => {
        for (let i = 0; i < rows.length; i += 500) await db.insert(intakes).values(rows.slice(i, i + 500));
      };
      if (order === "log, then versions") await writeLog();
      await db.insert(scheduleVersions).values(versions);
      if (order !== "log, then versions") await writeLog();
      if (order === "both, then versions changed") {
        // Every third version gets another schedule, every fifth goes; some logged doses go too.
        for (const [i, v] of versions.entries()) {
          const where = sql`user_id = ${user.id} and supplement_id = ${v.supplementId} and valid_from = ${v.validFrom}`;
          if (i % 5 === 4) await db.execute(sql`delete from ${scheduleVersions} where ${where}`);
          else if (i % 3 === 0) {
            const schedule = { times: ["evening", "morning"], days: [2, 4, 6] };
            await db.execute(
              sql`update ${scheduleVersions} set schedule = ${JSON.stringify(schedule)}::jsonb where ${where}`,
            );
          }
        }
        await db.execute(
          sql`delete from ${intakes} where user_id = ${user.id} and extract(day from date)::int % 4 = 0`,
        );
        await db.execute(
          sql`update ${intakes} set status = 'skipped' where user_id = ${user.id} and status = 'taken' and extract(day from date)::int % 7 = 0`,
        );
      }
      for (const from of [start, addDays(today, -30), today]) {
        const expected = await reference(db, user.id, from, today);
        expect(expected.some((day) => day.due > 0 && day.taken > 0 && day.missed > 0)).toBe(true);
        expect(await readHistory(db, user.id, from, today)).toEqual(expected);
      }
    },
  );
});
