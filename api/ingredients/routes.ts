/**
 * What is in a stack (issue 47): GET /api/nutrients, the table (public, the same for everyone),
 * and GET /api/stack/totals?date=, the owner's day totals per nutrient. The totals read is
 * Today's own read (api/tracking/queries.ts: the doses due that day at the amounts of the
 * versions in force, and the log; two statements) and pure arithmetic (src/lib/totals.ts).
 * See docs/ingredients.md.
 */
import { Hono } from "hono";
import { daysBetween, isCalendarDate } from "../../src/lib/dates";
import { NUTRIENTS } from "../../src/lib/nutrients";
import { HISTORY_MAX_DAYS, TRACKING_MESSAGES } from "../../src/lib/schedule";
import { dayTotals } from "../../src/lib/totals";
import { TOTALS_MESSAGES } from "../../src/lib/totals-words";
import { type AppEnv, requireUser } from "../lib/env";
import { badRequest } from "../lib/http";
import { readDay } from "../tracking/queries";
import { userToday } from "../tracking/versions";

const NUTRIENTS_JSON = JSON.stringify(
  NUTRIENTS.map(({ id, name, unit, units, ul, ulNote }) => ({ id, name, unit, units, ul, ulNote })),
);

/** Today, or a day of the last HISTORY_MAX_DAYS (tracking's history limit); never a day to come. */
function totalsDate(raw: string | undefined, today: string): string {
  if (raw === undefined) return today;
  if (!isCalendarDate(raw)) throw badRequest(TRACKING_MESSAGES.date, { date: [TRACKING_MESSAGES.date] });
  const back = daysBetween(raw, today);
  if (back < 0) throw badRequest(TRACKING_MESSAGES.future, { date: [TRACKING_MESSAGES.future] });
  if (back > HISTORY_MAX_DAYS) throw badRequest(TOTALS_MESSAGES.tooOld, { date: [TOTALS_MESSAGES.tooOld] });
  return raw;
}

export const ingredientRoutes = new Hono<AppEnv>()
  .get("/nutrients", (c) =>
    c.body(NUTRIENTS_JSON, 200, {
      "Content-Type": "application/json; charset=UTF-8",
      "Cache-Control": "public, max-age=86400",
    }),
  )
  .get("/stack/totals", async (c) => {
    const user = await requireUser(c);
    const date = totalsDate(c.req.query("date"), userToday(user));
    const day = await readDay(c.get("ctx").database.db, user.id, date, user.timeZone ?? "UTC");
    c.header("Cache-Control", "no-store");
    return c.json(dayTotals(day));
  });
