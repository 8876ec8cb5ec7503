/**
 * `GET /api/calendar/{token}.ics` (issue 50 §1): no cookie, the token is the key. Three
 * statements: the feed found by its token's hash and its hour's fetch counted (with the user's
 * zone and reminder times), the user's schedule versions with each supplement's stock, and the
 * doses taken in the window. The days (7 back, 30 ahead, in the user's zone) are planned here by
 * the one due rule (src/lib/schedule.ts `dueOn`), as Today plans them.
 */
import { and, asc, eq, gte, lte, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Db } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { intakes, scheduleVersions, supplements } from "../../db/schema";
import { addDays, dateIn } from "../../src/lib/dates";
import { dosePhrase } from "../../src/lib/dose";
import { amountAt, versionOn } from "../../src/lib/due";
import { dueOn } from "../../src/lib/schedule";
import { stockOf } from "../../src/lib/stock";
import { factsOf, leadOf, stockColumns } from "../supplements/stock-queries";
import { plannedVersionColumns } from "../tracking/versions";
import { type FeedDose, type FeedInput, feedEvents, type Slot } from "./events";
import { calendarText } from "./ics";
import { feedTokenHash } from "./token";

export const FEED_DAYS_BACK = 7;
export const FEED_DAYS_AHEAD = 30;
export const FEED_FETCHES_PER_HOUR = 60;
const DEFAULT_TIMES: Record<Slot, string> = {
  morning: "08:00",
  afternoon: "13:00",
  evening: "18:00",
  bedtime: "22:00",
};

interface FoundFeed {
  user_id: string;
  feed_id: string;
  hide_names: boolean;
  fetches: number;
  time_zone: string | null;
  morning: string | null;
  afternoon: string | null;
  evening: string | null;
  bedtime: string | null;
}

/** The enabled feed of `token`, its fetch counted in the hour that `at` falls in; null: no such feed. */
async function findFeed(db: Db, token: string, at: Date): Promise<FoundFeed | null> {
  const hourAgo = sql`${new Date(at.getTime() - 3_600_000).toISOString()}::timestamptz`;
  const stamp = sql`${at.toISOString()}::timestamptz`;
  const rows = rowsOf<FoundFeed>(
    await db.execute(sql`
      update calendar_feeds f set
        fetches = case when f.window_start <= ${hourAgo} then 1 else f.fetches + 1 end,
        window_start = case when f.window_start <= ${hourAgo} then ${stamp} else f.window_start end
      from users u left join reminder_settings rs on rs.user_id = u.id
      where f.token_hash = ${feedTokenHash(token)} and f.enabled and u.id = f.user_id
      returning f.user_id, f.feed_id, f.hide_names, f.fetches, u.time_zone,
        rs.morning, rs.afternoon, rs.evening, rs.bedtime`),
  );
  return rows[0] ?? null;
}

export type FeedAnswer = { status: 404 } | { status: 429 } | { status: 200; text: string };

/** The feed's answer at `at`: its calendar text, or 404 (unknown, reset or off) or 429. */
export async function feedAnswer(db: Db, token: string, at: Date, host: string): Promise<FeedAnswer> {
  const feed = await findFeed(db, token, at);
  if (!feed) return { status: 404 };
  if (feed.fetches > FEED_FETCHES_PER_HOUR) return { status: 429 };
  const zone = feed.time_zone ?? "UTC";
  const today = dateIn(zone, at);
  const from = addDays(today, -FEED_DAYS_BACK);
  const to = addDays(today, FEED_DAYS_AHEAD);
  const s = alias(supplements, "s");
  const stock = stockColumns("s", sql`${today}::date`);
  const [versions, taken] = await Promise.all([
    db
      .select({
        ...plannedVersionColumns,
        sortOrder: s.sortOrder,
        unitsPerPack: s.unitsPerPack,
        stockCount: s.stockCount,
        stockRefills: s.stockRefills,
        liveSchedule: s.schedule,
        liveAmount: s.doseAmount,
        stockUsed: stock.stockUsed,
        stockRecent: stock.stockRecent,
        refillLeadDays: stock.refillLeadDays,
      })
      .from(scheduleVersions)
      .leftJoin(s, and(eq(s.id, scheduleVersions.supplementId), eq(s.userId, scheduleVersions.userId)))
      .where(and(eq(scheduleVersions.userId, feed.user_id), lte(scheduleVersions.validFrom, to)))
      .orderBy(asc(scheduleVersions.supplementId), asc(scheduleVersions.validFrom)),
    db
      .select({ date: intakes.date, supplementId: intakes.supplementId, time: intakes.time })
      .from(intakes)
      .where(
        and(
          eq(intakes.userId, feed.user_id),
          gte(intakes.date, from),
          lte(intakes.date, today),
          eq(intakes.status, "taken"),
        ),
      ),
  ]);
  const tookOn = new Set(taken.map((t) => `${t.date}/${t.supplementId}/${t.time}`));
  // Each supplement's versions, oldest first: a day takes the last one from on or before it.
  const bySupplement = new Map<number, typeof versions>();
  for (const v of versions) bySupplement.set(v.supplementId, [...(bySupplement.get(v.supplementId) ?? []), v]);
  const order = (v: (typeof versions)[number]) => v.sortOrder ?? Number.MAX_SAFE_INTEGER;
  const days: FeedInput["days"] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) {
    const live = [...bySupplement.values()]
      .map((list) => versionOn(list, date))
      .filter((v): v is (typeof versions)[number] => v !== undefined && !v.deleted)
      .sort((a, b) => order(a) - order(b) || a.supplementId - b.supplementId);
    const doses: FeedDose[] = dueOn(live, date).doses.map(({ item, time }) => {
      const amount = amountAt(item.schedule, time, item.doseAmount);
      return {
        name: item.name,
        // Without an amount, the name alone (as the reminders list it).
        phrase: amount == null ? "" : dosePhrase(amount, item.quantityType),
        time,
        taken: tookOn.has(`${date}/${item.supplementId}/${time}`),
      };
    });
    days.push({ date, doses });
  }
  // A refill: the day its reminder would come (the run-out less the lead time), in the window.
  const refills: FeedInput["refills"] = [];
  for (const list of bySupplement.values()) {
    const v = list.at(-1);
    if (!v || v.deleted || v.sortOrder === null) continue;
    const lead = leadOf(v.refillLeadDays);
    const facts = factsOf(
      {
        unitsPerPack: v.unitsPerPack,
        stockCount: v.stockCount,
        stockRefills: v.stockRefills ?? [],
        schedule: v.liveSchedule,
        doseAmount: v.liveAmount,
      },
      v.stockUsed,
      v.stockRecent,
    );
    const runsOut = stockOf(facts, today, lead)?.runsOutOn;
    if (!runsOut) continue;
    let date = addDays(runsOut, -lead);
    if (date < today) date = today;
    if (date <= to) refills.push({ supplementId: v.supplementId, name: v.name, date });
  }
  const times: Record<Slot, string> = {
    morning: feed.morning ?? DEFAULT_TIMES.morning,
    afternoon: feed.afternoon ?? DEFAULT_TIMES.afternoon,
    evening: feed.evening ?? DEFAULT_TIMES.evening,
    bedtime: feed.bedtime ?? DEFAULT_TIMES.bedtime,
  };
  const events = feedEvents({
    feedId: feed.feed_id.slice(0, 12),
    host,
    zone,
    today,
    times,
    days,
    refills,
    hideNames: feed.hide_names,
  });
  const text = calendarText(events, {
    prodId: "-//StackTrack//Calendar feed//EN",
    name: "StackTrack",
    refreshMinutes: 60,
    stamp: at,
  });
  return { status: 200, text };
}
