/**
 * GET /api/insights?days=7|30|90 (signed in): the owner's views, unique visitors and (premium)
 * 'View Product' clicks per UTC day, oldest first, zero days present, up to today; what has
 * been flushed (docs/insights.md), a day's visitors its added-up count plus its batches'.
 */
import { and, asc, between, eq, isNotNull } from "drizzle-orm";
import { Hono } from "hono";
import { inOneSnapshot } from "../../db/client";
import { supplementDailyClicks as clicks, supplementDailyCopies as copied, supplements } from "../../db/schema";
import { addDays, INSIGHTS_DAYS_MESSAGE, type InsightsAnswer, type InsightsDay, utcDate } from "../../src/lib/insights";
import { insightsQuerySchema } from "../../src/lib/validation";
import { now } from "../lib/clock";
import { type AppEnv, requireUser } from "../lib/env";
import { badRequest, fieldErrors } from "../lib/http";
import { profileDays } from "./counter";

export const insightsRoutes = new Hono<AppEnv>().get("/insights", async (c) => {
  const user = await requireUser(c);
  const given = c.req.queries("days") ?? [];
  if (given.length > 1) throw badRequest(INSIGHTS_DAYS_MESSAGE, { days: [INSIGHTS_DAYS_MESSAGE] });
  const parsed = insightsQuerySchema.safeParse({ days: given[0] });
  if (!parsed.success) throw badRequest(INSIGHTS_DAYS_MESSAGE, fieldErrors(parsed.error));
  const range = parsed.data.days;
  const to = utcDate(now());
  const from = addDays(to, 1 - range);
  const days = new Map<string, InsightsDay>();
  for (let i = 0; i < range; i++) {
    const date = addDays(from, i);
    days.set(date, { date, views: 0, visitors: 0, clicks: 0 });
  }
  // One snapshot: a flush or the day's adding up between two reads would split a day's figures.
  const [dayRows, clickRows, copyRows] = await inOneSnapshot(
    c.get("ctx").database.db,
    async (db) =>
      [
        await profileDays(db, user.id, { from, to }),
        user.isPremium
          ? await db
              .select({ id: supplements.id, name: supplements.name, day: clicks.day, clicks: clicks.clicks })
              .from(supplements)
              .leftJoin(clicks, and(eq(clicks.supplementId, supplements.id), between(clicks.day, from, to)))
              .where(and(eq(supplements.userId, user.id), isNotNull(supplements.affiliateLink)))
              .orderBy(asc(supplements.sortOrder), asc(supplements.id))
          : [],
        await db
          .select({ id: supplements.id, name: supplements.name, day: copied.day, copies: copied.copies })
          .from(copied)
          .innerJoin(supplements, eq(supplements.id, copied.supplementId))
          .where(and(eq(supplements.userId, user.id), between(copied.day, from, to)))
          .orderBy(asc(supplements.sortOrder), asc(supplements.id)),
      ] as const,
  );
  for (const row of dayRows) if (days.has(row.date)) days.set(row.date, { ...row, clicks: 0 });
  const links: InsightsAnswer["links"] = [];
  const byId = new Map<number, InsightsAnswer["links"][number]>();
  for (const row of clickRows) {
    let link = byId.get(row.id);
    if (!link) {
      link = { supplementId: row.id, name: row.name, clicks: 0 };
      byId.set(row.id, link);
      links.push(link);
    }
    if (row.day && row.clicks) {
      link.clicks += row.clicks;
      const day = days.get(row.day);
      if (day) day.clicks += row.clicks;
    }
  }

  const list = [...days.values()];
  const sum = (key: "views" | "visitors" | "clicks") => list.reduce((n, d) => n + d[key], 0);
  const totals = { views: sum("views"), visitors: sum("visitors"), clicks: sum("clicks") };
  // Issue 50 §3: copies, per day and per supplement.
  const copyDays = new Map(list.map((d) => [d.date, { date: d.date, copies: 0 }]));
  const copiedById = new Map<number, InsightsAnswer["copies"]["supplements"][number]>();
  for (const row of copyRows) {
    const entry = copiedById.get(row.id) ?? { supplementId: row.id, name: row.name, copies: 0 };
    entry.copies += row.copies;
    copiedById.set(row.id, entry);
    const day = copyDays.get(row.day);
    if (day) day.copies += row.copies;
  }
  const copyList = [...copyDays.values()];
  const copies = {
    total: copyList.reduce((n, d) => n + d.copies, 0),
    days: copyList,
    supplements: [...copiedById.values()],
  };
  return c.json<InsightsAnswer>({ from, to, totals, days: list, links, copies });
});
