/**
 * The calendar feed's settings (issue 50 §1), the signed-in user's own:
 *   GET  /api/calendar          { enabled, url, hideNames } (url null while off)
 *   PUT  /api/calendar          { enabled?, hideNames? } → the same
 *   POST /api/calendar/reset    a new address (the old one answers 404 at once) → the same
 * and the feed itself, no cookie needed (the token is the key):
 *   GET  /api/calendar/{token}.ics   text/calendar; 404 with no detail for an unknown, reset or
 *                                    switched-off address; 429 past 60 fetches an hour
 */
import { Hono } from "hono";
import { CALENDAR_MESSAGES, calendarInputSchema } from "../../src/lib/calendar";
import { now } from "../lib/clock";
import { type AppEnv, requireUser } from "../lib/env";
import { HttpError, readJson } from "../lib/http";
import { feedAnswer } from "./feed";
import { type FeedKeys, readCalendar, resetCalendar, updateCalendar } from "./settings";
import { FEED_TOKEN_PATTERN } from "./token";

const keysOf = (c: import("hono").Context<AppEnv>): FeedKeys => {
  const { config } = c.get("ctx");
  return { origin: config.origin, secret: config.authSecret };
};

const notFound = () =>
  new Response(JSON.stringify({ message: "Not found" }), {
    status: 404,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });

export const calendarRoutes = new Hono<AppEnv>()
  .get("/calendar/:file{[^/]+\\.ics}", async (c) => {
    const token = c.req.param("file").slice(0, -".ics".length);
    if (!FEED_TOKEN_PATTERN.test(token)) return notFound();
    const ctx = c.get("ctx");
    const answer = await feedAnswer(ctx.database.db, token, now(), new URL(ctx.config.origin).host);
    if (answer.status === 404) return notFound();
    if (answer.status === 429) {
      return c.json({ message: "Too many requests for this calendar. Try again in an hour." }, 429, {
        "Retry-After": "3600",
      });
    }
    return c.body(answer.text, 200, {
      "Content-Type": "text/calendar; charset=utf-8",
      "Cache-Control": "private, no-cache",
    });
  })
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
