/**
 * GET /api/health: 200 when the database answers, 503 with the reason when not. Still 200 but
 * `degraded`, with the reason, when this instance's reminder loop has not finished a round in
 * 5 minutes (issue 45): the instance serves, its reminders are stuck.
 */
import { Hono } from "hono";
import { reminderLoopProblem } from "../reminders/worker";
import type { AppEnv } from "./env";

export const health = new Hono<AppEnv>().get("/", async (c) => {
  const ctx = c.get("ctx");
  c.header("Cache-Control", "no-store");
  try {
    await ctx.database.ping(2000);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return c.json({ status: "unavailable", database: "down", message: `Database unavailable: ${reason}` }, 503);
  }
  const stuck = reminderLoopProblem(ctx);
  if (stuck) return c.json({ status: "degraded", database: "up", reminders: "stuck", message: stuck });
  return c.json({ status: "ok", database: "up" });
});
