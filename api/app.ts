/**
 * createApp(): the Hono app behind /api. Middleware (request id, logging,
 * origin check, JSON errors) is here; each resource lives in its own module.
 */
import { Hono } from "hono";
import type { AppContext } from "./context";
import { health } from "./health";
import { HttpError, isDatabaseUnavailable } from "./http";
import { errorFields, log } from "./log";
import { isCrossOriginWrite } from "./security";

export type AppEnv = {
  Variables: {
    ctx: AppContext;
    requestId: string;
  };
};

/** Paths that take state-changing requests from other origins (signed webhooks). */
const ORIGIN_EXEMPT = new Set(["/api/stripe/webhook"]);

export function createApp(ctx: AppContext) {
  const app = new Hono<AppEnv>().basePath("/api");

  app.use(async (c, next) => {
    c.set("ctx", ctx);
    c.set("requestId", c.req.header("x-request-id") ?? crypto.randomUUID());
    if (!ORIGIN_EXEMPT.has(c.req.path) && isCrossOriginWrite(c.req.raw, ctx.config.origin)) {
      return c.json({ message: "Cross-origin request refused" }, 403);
    }
    await next();
  });

  app.route("/health", health);

  app.notFound((c) => c.json({ message: "Not found" }, 404));

  app.onError((error, c) => {
    if (error instanceof HttpError) {
      return c.json({ message: error.message, ...(error.errors ? { errors: error.errors } : {}) }, error.status);
    }
    if (isDatabaseUnavailable(error)) {
      log.warn("database unavailable", { requestId: c.get("requestId"), path: c.req.path, ...errorFields(error) });
      c.header("Retry-After", "5");
      return c.json({ message: "Service temporarily unavailable. Please try again." }, 503);
    }
    log.error("unhandled error", { requestId: c.get("requestId"), path: c.req.path, ...errorFields(error) });
    return c.json({ message: "Something went wrong. Please try again." }, 500);
  });

  return app;
}

export type ApiApp = ReturnType<typeof createApp>;
