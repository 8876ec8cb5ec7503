/**
 * Daily tracking (issue 19): GET /api/today, PUT/DELETE /api/intakes/{date}/{supplementId}/{time},
 * PUT /api/intakes/{date} (issue 38: several doses of a day at once: Take all, and its undo),
 * GET /api/history. Private: every route is the signed-in user's own. 'Today' is the user's
 * date in their zone (api/lib/clock.ts for 'now'); a write names the day of the row it was made
 * on, never 'now'. See docs/daily-use.md.
 */
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { scheduleVersions, supplements, type User } from "../../db/schema";
import { AS_NEEDED_COUNT_MAX, AS_NEEDED_MESSAGES } from "../../src/lib/as-needed-input";
import { addDays, daysBetween, isCalendarDate } from "../../src/lib/dates";
import { SUPPLEMENT_MESSAGES } from "../../src/lib/messages";
import {
  AS_NEEDED,
  BATCH_MAX,
  DOSE_TIMES,
  EDITABLE_DAYS,
  HISTORY_DEFAULT_DAYS,
  type HistoryJson,
  INTAKE_STATUSES,
  type IntakeBatchJson,
  type IntakeJson,
  type IntakeStatus,
  type IntakeTime,
  isScheduled,
  TICK_SKEW_MS,
  TRACKING_MESSAGES,
} from "../../src/lib/schedule";
import { adherence, currentStreak, longestStreak } from "../../src/lib/streaks";
import { now, nowMs } from "../lib/clock";
import { type AppEnv, requireUser } from "../lib/env";
import { badRequest, jsonWithEtag, notFound, readJson } from "../lib/http";
import { idNumber, parseIdParam } from "../lib/id";
import { setAsNeededCount, stateOn } from "./as-needed";
import { dayRange, emptyDay, readDay, readHistory } from "./queries";
import { userToday } from "./versions";
import { clearIntakes, type DoseOutcome, setIntakes } from "./writes";

const zoneOf = (user: Pick<User, "timeZone">) => user.timeZone ?? "UTC";

/** A date of the editable window: today or one of the EDITABLE_DAYS before it. */
function editableDate(raw: string | undefined, today: string): string {
  if (raw === undefined) return today;
  if (!isCalendarDate(raw)) throw badRequest(TRACKING_MESSAGES.date, { date: [TRACKING_MESSAGES.date] });
  const back = daysBetween(raw, today);
  if (back < 0) throw badRequest(TRACKING_MESSAGES.future, { date: [TRACKING_MESSAGES.future] });
  if (back > EDITABLE_DAYS) throw badRequest(TRACKING_MESSAGES.tooOld, { date: [TRACKING_MESSAGES.tooOld] });
  return raw;
}

const parseSupplementId = (raw: string) =>
  parseIdParam(raw, "supplementId", SUPPLEMENT_MESSAGES.invalidId, TRACKING_MESSAGES.notFound);

function parseTime(raw: string): IntakeTime {
  if ((DOSE_TIMES as readonly string[]).includes(raw) || raw === AS_NEEDED) return raw as IntakeTime;
  throw badRequest(TRACKING_MESSAGES.time, { time: [TRACKING_MESSAGES.time] });
}

/** A change's own time (an offline tick's, docs/offline.md): ISO with an offset; absent: now. */
const tickedAtSchema = z.iso.datetime({ offset: true, message: TRACKING_MESSAGES.tickedAt }).optional();

/**
 * The time a change was made: `tickedAt`, no later than now (up to TICK_SKEW_MS ahead is a
 * drifting device clock, taken as now) and no earlier than the window's first day can have begun.
 */
function changeTime(tickedAt: string | undefined): Date {
  if (tickedAt === undefined) return now();
  const at = tickedAtSchema.safeParse(tickedAt).success ? Date.parse(tickedAt) : Number.NaN;
  const current = nowMs();
  if (!(at <= current + TICK_SKEW_MS && at >= current - (EDITABLE_DAYS + 1) * 86_400_000)) {
    throw badRequest(TRACKING_MESSAGES.tickedAt, { tickedAt: [TRACKING_MESSAGES.tickedAt] });
  }
  return new Date(Math.min(at, current));
}

const intakeBodySchema = z.object({
  status: z.enum(INTAKE_STATUSES, { message: TRACKING_MESSAGES.status }),
  tickedAt: tickedAtSchema,
});

/**
 * Issue 48: an as-needed dose's body, `{ count: 0–24 }` or (as before) `{ status: "taken" | null }`
 * for 1 / 0; either with `tickedAt`. Answers the count.
 */
const asNeededBodySchema = z
  .object({
    count: z
      .number({ message: AS_NEEDED_MESSAGES.count })
      .int(AS_NEEDED_MESSAGES.count)
      .min(0, AS_NEEDED_MESSAGES.count)
      .max(AS_NEEDED_COUNT_MAX, AS_NEEDED_MESSAGES.count)
      .optional(),
    status: z.enum(INTAKE_STATUSES, { message: TRACKING_MESSAGES.status }).nullable().optional(),
    tickedAt: tickedAtSchema,
  })
  .superRefine((body, ctx) => {
    if (body.count === undefined && body.status === undefined) {
      ctx.addIssue({ code: "custom", path: ["count"], message: AS_NEEDED_MESSAGES.body });
    }
    if (body.count === undefined && body.status === "skipped") {
      ctx.addIssue({ code: "custom", path: ["status"], message: TRACKING_MESSAGES.asNeededTaken });
    }
  })
  .transform((body) => ({ count: body.count ?? (body.status === "taken" ? 1 : 0), tickedAt: body.tickedAt }));

interface Target {
  user: User;
  date: string;
  supplementId: number;
  time: IntakeTime;
  today: string;
}

/** The path's parts, judged in order: date, supplement id, time. */
function readTarget(c: { req: { param: (key: string) => string } }, user: User): Target {
  const today = userToday(user);
  const date = editableDate(c.req.param("date"), today);
  const supplementId = parseSupplementId(c.req.param("supplementId"));
  const time = parseTime(c.req.param("time"));
  return { user, date, supplementId, time, today };
}

const versionColumns = {
  supplementId: scheduleVersions.supplementId,
  validFrom: scheduleVersions.validFrom,
  name: scheduleVersions.name,
  schedule: scheduleVersions.schedule,
  deleted: scheduleVersions.deleted,
  /** Issue 48: the supplement's limits now (as-needed warnings). */
  asNeeded: supplements.asNeeded,
};
type VersionRow = { [K in keyof typeof versionColumns]: (typeof versionColumns)[K]["_"]["data"] };

/**
 * A write's rules on the version of its supplement in force on that day (or, when it was
 * added later, its first one): none, or deleted by then: 404; not scheduled at that time on
 * that weekday: 400; an as-needed dose only 'taken'.
 */
function judge(version: VersionRow | undefined, date: string, time: IntakeTime, status: IntakeStatus | null) {
  if (!version || version.deleted) throw notFound(TRACKING_MESSAGES.notFound);
  const onThatDay = version.validFrom <= date;
  const scheduled =
    onThatDay && (time === AS_NEEDED ? version.schedule === null : isScheduled(version.schedule, time, date));
  if (!scheduled) throw badRequest(TRACKING_MESSAGES.notScheduled, { time: [TRACKING_MESSAGES.notScheduled] });
  if (time === AS_NEEDED && status !== null && status !== "taken") {
    throw badRequest(TRACKING_MESSAGES.asNeededTaken, { status: [TRACKING_MESSAGES.asNeededTaken] });
  }
  return version;
}

/** Statement one of a write: the version of each supplement in force on `date` (see judge). */
function versionsOn(db: import("../../db/client").Db, userId: string, date: string, supplementIds: number[]) {
  return db
    .selectDistinctOn([scheduleVersions.supplementId], versionColumns)
    .from(scheduleVersions)
    .leftJoin(
      supplements,
      and(eq(supplements.id, scheduleVersions.supplementId), eq(supplements.userId, scheduleVersions.userId)),
    )
    .where(and(eq(scheduleVersions.userId, userId), inArray(scheduleVersions.supplementId, supplementIds)))
    .orderBy(
      asc(scheduleVersions.supplementId),
      sql`${scheduleVersions.validFrom} <= ${date} desc`,
      desc(scheduleVersions.validFrom),
    );
}

async function versionFor(db: import("../../db/client").Db, target: Target, status: IntakeStatus | null) {
  const [version] = await versionsOn(db, target.user.id, target.date, [target.supplementId]);
  return judge(version, target.date, target.time, status);
}

const doseKey = (d: { supplementId: number; time: string }) => `${d.supplementId}/${d.time}`;

/** PUT /api/intakes/{date}: one status (null clears) for up to BATCH_MAX different doses. */
const batchBodySchema = z.object({
  status: z.enum(INTAKE_STATUSES, { message: TRACKING_MESSAGES.batchStatus }).nullable(),
  doses: z
    .array(
      z.object({
        supplementId: idNumber(TRACKING_MESSAGES.notFound),
        time: z.enum([...DOSE_TIMES, AS_NEEDED] as [IntakeTime, ...IntakeTime[]], { message: TRACKING_MESSAGES.time }),
      }),
      { message: TRACKING_MESSAGES.doses },
    )
    .min(1, TRACKING_MESSAGES.doses)
    .max(BATCH_MAX, TRACKING_MESSAGES.doses)
    .refine((doses) => new Set(doses.map(doseKey)).size === doses.length, TRACKING_MESSAGES.doses),
  tickedAt: tickedAtSchema,
});

const intakeJson = (date: string, d: DoseOutcome): IntakeJson => ({
  date,
  supplementId: d.supplementId,
  time: d.time,
  status: d.status,
  at: d.at.toISOString(),
  applied: d.applied,
});

/** The first day of the editable window: intake clears before it are pruned. */
const windowStart = (today: string) => addDays(today, -EDITABLE_DAYS);

/**
 * Sets an as-needed dose's count (issue 48) and answers the dose as Today then shows it: the
 * intake's shape, with `count`, `lastTakenAt` and, with limits, `nextAllowedAt` and a `warning`
 * when the last dose broke one (it is recorded all the same).
 */
async function writeAsNeeded(db: import("../../db/client").Db, target: Target, count: number, at: Date) {
  const version = await versionFor(db, target, null);
  const { user, date, supplementId } = target;
  const { applied, log } = await setAsNeededCount(db, {
    userId: user.id,
    date,
    supplementId,
    name: version.name,
    count,
    at,
    oldest: windowStart(target.today),
  });
  const state = stateOn(log, version.asNeeded, date, nowMs(), zoneOf(user));
  return {
    date,
    supplementId,
    time: AS_NEEDED,
    status: state.count > 0 ? ("taken" as const) : null,
    at: (applied ? at.toISOString() : state.lastTakenAt) ?? at.toISOString(),
    applied,
    ...state,
  };
}

export const trackingRoutes = new Hono<AppEnv>()
  .get("/today", async (c) => {
    const user = await requireUser(c);
    const date = editableDate(c.req.query("date"), userToday(user));
    // The host answers a matching If-None-Match with a 304 (server/cache.ts).
    return jsonWithEtag(c, await readDay(c.get("ctx").database.db, user.id, date, zoneOf(user)));
  })
  .put("/intakes/:date/:supplementId/:time", async (c) => {
    const user = await requireUser(c);
    const target = readTarget(c, user);
    const ctx = c.get("ctx");
    if (target.time === AS_NEEDED) {
      const { count, tickedAt } = await readJson(c, asNeededBodySchema);
      return c.json(await writeAsNeeded(ctx.database.db, target, count, changeTime(tickedAt)));
    }
    const { status, tickedAt } = await readJson(c, intakeBodySchema);
    const at = changeTime(tickedAt);
    const version = await versionFor(ctx.database.db, target, status);
    const [outcome] = await setIntakes(ctx.database.db, user.id, target.date, status, at, [
      { supplementId: target.supplementId, time: target.time, name: version.name },
    ]);
    if (!outcome) throw new Error("a write answered no dose");
    const answer = intakeJson(target.date, outcome);
    return c.json(answer);
  })
  // Take all (issue 38) and its undo: every dose named, judged like a single tick, then one
  // write for all of them (two statements in all); any dose refused refuses the whole request.
  .put("/intakes/:date", async (c) => {
    const user = await requireUser(c);
    const date = editableDate(c.req.param("date"), userToday(user));
    const { status, doses, tickedAt } = await readJson(c, batchBodySchema);
    const at = changeTime(tickedAt);
    const { database } = c.get("ctx");
    const ids = [...new Set(doses.map((d) => d.supplementId))];
    const versions = new Map((await versionsOn(database.db, user.id, date, ids)).map((v) => [v.supplementId, v]));
    const named = doses.map((d) => ({ ...d, name: judge(versions.get(d.supplementId), date, d.time, status).name }));
    const outcomes =
      status === null
        ? await clearIntakes(database.db, user.id, date, at, windowStart(userToday(user)), named)
        : await setIntakes(database.db, user.id, date, status, at, named);
    const answer: IntakeBatchJson = {
      date,
      status,
      doses: doses.map(({ supplementId, time }) => ({ supplementId, time })),
      ignored: outcomes.filter((o) => !o.applied).map(({ supplementId, time }) => ({ supplementId, time })),
    };
    return c.json(answer);
  })
  .delete("/intakes/:date/:supplementId/:time", async (c) => {
    const user = await requireUser(c);
    const target = readTarget(c, user);
    const ctx = c.get("ctx");
    const at = changeTime(c.req.query("tickedAt"));
    if (target.time === AS_NEEDED) {
      const answer = await writeAsNeeded(ctx.database.db, target, 0, at);
      return answer.applied ? c.body(null, 204) : c.json(answer);
    }
    const version = await versionFor(ctx.database.db, target, null);
    const [outcome] = await clearIntakes(ctx.database.db, user.id, target.date, at, windowStart(target.today), [
      { supplementId: target.supplementId, time: target.time, name: version.name },
    ]);
    if (!outcome) throw new Error("a clear answered no dose");
    if (!outcome.applied) return c.json(intakeJson(target.date, outcome));
    return c.body(null, 204);
  })
  .get("/history", async (c) => {
    const user = await requireUser(c);
    const today = userToday(user);
    const { from, to } = dayRange({ from: c.req.query("from"), to: c.req.query("to") }, today, HISTORY_DEFAULT_DAYS);
    const span = daysBetween(from, to) + 1;
    // One statement: the user's days from their first version to today (streaks are over all
    // of them), never more; the asked days before it have nothing due and are made here.
    const all = await readHistory(c.get("ctx").database.db, user.id, today, today);
    // `all` runs from its first day to today without a gap: the asked days are a slice of it.
    const offset = all[0] ? daysBetween(all[0].date, from) : span;
    const days = Array.from({ length: span }, (_, i) => all[offset + i] ?? emptyDay(addDays(from, i)));
    const answer: HistoryJson = {
      from,
      to,
      timeZone: zoneOf(user),
      days,
      adherence: adherence(days, today),
      currentStreak: currentStreak(all, today),
      longestStreak: longestStreak(all, today),
    };
    c.header("Cache-Control", "no-store");
    return c.json(answer);
  });
