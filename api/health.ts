/** GET /api/health: 200 when the database answers, 503 with the reason when not. */
import { Hono } from "hono";
import type { AppEnv } from "./env";

export const health = new Hono<AppEnv>().get("/", async (c) => {
  const { database } = c.get("ctx");
  c.header("Cache-Control", "no-store");
  try {
    await database.ping(2000);
    return c.json({ status: "ok", database: "up" });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return c.json({ status: "unavailable", database: "down", message: `Database unavailable: ${reason}` }, 503);
  }
});
