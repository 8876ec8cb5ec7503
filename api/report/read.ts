/**
 * The report for the doctor (issue 50 §2), read for one signed-in user: the range and the
 * supplements asked for (checked here, for the API and the /report page alike), then two
 * statements (every schedule version with the supplement's list position; the doses logged in
 * the range) and the plan (./plan.ts).
 */
import { and, asc, eq, gte, lte } from "drizzle-orm";
import type { Db } from "../../db/client";
import { intakes, scheduleVersions, supplements } from "../../db/schema";
import { REPORT_DEFAULT_DAYS, REPORT_MAX_IDS, REPORT_MESSAGES, type ReportJson } from "../../src/lib/report";
import { badRequest } from "../lib/http";
import { ID_MAX } from "../lib/id";
import { dayRange } from "../tracking/queries";
import { plannedVersionColumns } from "../tracking/versions";
import { type PlanIntake, planReport } from "./plan";

export interface ReportQuery {
  from?: string | null;
  to?: string | null;
  /** `12,15`: ids of the user's supplements; empty or absent: all. */
  supplements?: string | null;
}

export interface ReportRange {
  from: string;
  to: string;
  ids: number[] | null;
}

const given = (value: string | null | undefined) =>
  value === undefined || value === null || value === "" ? null : value;

/**
 * The range asked for (the history's rule: api/tracking/queries.ts `dayRange`, 30 days by
 * default) and the supplements; a 400 naming the field.
 */
export function reportRange(query: ReportQuery, today: string): ReportRange {
  const raw = { from: given(query.from) ?? undefined, to: given(query.to) ?? undefined };
  const { from, to } = dayRange(raw, today, REPORT_DEFAULT_DAYS);
  const rawIds = given(query.supplements);
  if (rawIds === null) return { from, to, ids: null };
  const parts = rawIds.split(",").map((part) => part.trim());
  const bad = () => badRequest(REPORT_MESSAGES.supplements, { supplements: [REPORT_MESSAGES.supplements] });
  if (parts.length > REPORT_MAX_IDS) throw bad();
  const ids = parts.map((part) => (/^\d{1,12}$/.test(part) ? Number(part) : 0));
  if (ids.some((id) => id < 1 || id > ID_MAX)) throw bad();
  return { from, to, ids: [...new Set(ids)] };
}

/** The report of `range` for `user`; ids that are not the user's supplements are a 400. */
export async function readReport(
  db: Db,
  user: { id: string; timeZone: string | null },
  range: ReportRange,
  today: string,
): Promise<ReportJson> {
  const [versions, logged] = await Promise.all([
    db
      .select({
        ...plannedVersionColumns,
        sortOrder: supplements.sortOrder,
      })
      .from(scheduleVersions)
      .leftJoin(
        supplements,
        and(eq(supplements.id, scheduleVersions.supplementId), eq(supplements.userId, scheduleVersions.userId)),
      )
      .where(and(eq(scheduleVersions.userId, user.id), lte(scheduleVersions.validFrom, range.to)))
      .orderBy(asc(scheduleVersions.supplementId), asc(scheduleVersions.validFrom)),
    db
      .select({
        date: intakes.date,
        supplementId: intakes.supplementId,
        time: intakes.time,
        status: intakes.status,
        at: intakes.at,
        count: intakes.count,
      })
      .from(intakes)
      .where(and(eq(intakes.userId, user.id), gte(intakes.date, range.from), lte(intakes.date, range.to))),
  ]);
  const known = new Set(versions.map((v) => v.supplementId));
  if (range.ids?.some((id) => !known.has(id))) {
    throw badRequest(REPORT_MESSAGES.supplements, { supplements: [REPORT_MESSAGES.supplements] });
  }
  const order = new Map<number, number>();
  for (const v of versions) if (v.sortOrder !== null) order.set(v.supplementId, v.sortOrder);
  return planReport({
    from: range.from,
    to: range.to,
    today,
    timeZone: user.timeZone ?? "UTC",
    versions,
    intakes: logged as PlanIntake[],
    only: range.ids ? new Set(range.ids) : null,
    order,
  });
}
