/** GET /api/auth/user: the signed-in user (ours, mounted before better-auth's /api/auth/* catch-all). */
import { Hono } from "hono";
import { getSessionUser } from "../auth/auth";
import { syncPendingSubscription } from "../billing/sync";
import type { AppEnv } from "../lib/env";
import { toUserJson } from "../profile/user-queries";

export const userRoutes = new Hono<AppEnv>().get("/auth/user", async (c) => {
  c.header("Cache-Control", "no-store");
  const ctx = c.get("ctx");
  const user = await getSessionUser(ctx, c.req.raw.headers);
  if (!user) return c.json({ message: "Unauthorized" }, 401);
  // A subscription that may just have been paid is synced from Stripe, so premium does not wait for the webhook.
  return c.json(toUserJson(await syncPendingSubscription(ctx, user)));
});
