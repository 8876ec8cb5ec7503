/**
 * The calendar feed's settings (issue 50 §1), the signed-in user's own:
 *   GET  /api/calendar          { enabled, url, hideNames } (url null while off)
 *   PUT  /api/calendar          { enabled?, hideNames? } → the same
 *   POST /api/calendar/reset    a new address (the old one answers 404 at once) → the same
 * The feed itself (`GET /api/calendar/{token}.ics`, no cookie) is still to come.
 */
import { Hono } from "hono";
import { CALENDAR_MESSAGES, calendarInputSchema } from "../../src/lib/calendar";
import { type AppEnv, requireUser } from "../lib/env";
import { HttpError, readJson } from "../lib/http";
import { type FeedKeys, readCalendar, resetCalendar, updateCalendar } from "./settings";

const keysOf = (c: import("hono").Context<AppEnv>): FeedKeys => {
  const { config } = c.get("ctx");
  return { origin: config.origin, secret: config.authSecret };
};

export const calendarRoutes = new Hono<AppEnv>()
  .get("/calendar", async (c) => {
    const user = await requireUser(c);
    c.header("Cache-Control", "no-store");
    return c.json(await readCalendar(c.get("ctx").database.db, user.id, keysOf(c)));
  })
  .put("/calendar", async (c) => {
    const user = await requireUser(c);
    const change = await readJson(c, calendarInputSchema);
    return c.json(await updateCalendar(c.get("ctx").database.db, user.id, change, keysOf(c)));
  })
  .post("/calendar/reset", async (c) => {
    const user = await requireUser(c);
    const reset = await resetCalendar(c.get("ctx").database.db, user.id, keysOf(c));
    if (!reset) throw new HttpError(409, CALENDAR_MESSAGES.offForReset);
    return c.json(reset);
  });
