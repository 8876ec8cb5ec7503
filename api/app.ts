/**
 * createApp(): the Hono app behind /api. Middleware (request id, logging,
 * origin check, JSON errors) is here; each resource lives in its own module.
 */
import { Hono } from "hono";
import { getConnInfo } from "hono/bun";
import { authRoutes, CLIENT_IP_HEADER, getSessionUser } from "./auth";
import { billingRoutes } from "./billing";
import type { User } from "../db/schema";
import type { AppEnv } from "./env";
import type { AppContext } from "./context";
import { health } from "./health";
import { profileRoutes } from "./profile";
import { supplementRoutes } from "./supplements";
import { imageRoutes, uploadRoutes } from "./images";
import { badRequest, fieldErrors, HttpError, isDatabaseUnavailable, refuseUnstorableText } from "./http";
import { z } from "zod";
import { profileUpdateSchema, signUpSchema } from "../src/lib/validation";
import { errorFields, log } from "./log";
import { isCrossOriginWrite } from "./security";

/** The client's address: the socket's, or the proxy's X-Forwarded-For when trusted. */
function clientIp(c: import("hono").Context<AppEnv>, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined; // not running under Bun.serve (astro dev)
  }
}

/**
 * better-auth writes some fields as it gets them: a NUL character or a lone surrogate
 * (reset-password's token), or `name: null` in
 * update-user, reached Postgres and came back as a 500, and update-user's `image` skipped
 * the rule every other way of setting the avatar follows. Those bodies are checked here
 * with the app's own rules first (hostile-input.test.ts); better-auth checks the rest.
 */
const AUTH_BODY_RULES: Record<string, z.ZodType> = {
  "/api/auth/update-user": z.looseObject({
    name: signUpSchema.shape.name.optional(),
    image: profileUpdateSchema.shape.profileImageUrl.unwrap().nullable().optional(),
  }),
};

async function checkAuthBody(path: string, request: Request): Promise<void> {
  const text = await request
    .clone()
    .text()
    .catch(() => "");
  const rule = AUTH_BODY_RULES[path];
  // NUL and lone surrogates reach a JSON string only as \u escapes.
  if (!rule && !/\\u(0000|d[89a-f])/i.test(text)) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return; // better-auth answers malformed JSON itself
  }
  refuseUnstorableText(body);
  if (rule) {
    const result = rule.safeParse(body);
    if (!result.success) {
      throw badRequest(result.error.issues[0]?.message ?? "Invalid input", fieldErrors(result.error));
    }
  }
}

/** Paths that take state-changing requests from other origins (signed webhooks). */
const ORIGIN_EXEMPT = new Set(["/api/stripe/webhook"]);

export function createApp(ctx: AppContext) {
  const app = new Hono<AppEnv>();

  app.use(async (c, next) => {
    c.set("ctx", ctx);
    c.set("requestId", c.req.header("x-request-id") ?? crypto.randomUUID());
    const ip = clientIp(c, ctx.config.TRUST_PROXY);
    try {
      if (ip) c.req.raw.headers.set(CLIENT_IP_HEADER, ip);
      else c.req.raw.headers.delete(CLIENT_IP_HEADER);
    } catch {
      // immutable headers: better-auth then sees no address
    }
    let user: Promise<User | null> | undefined;
    c.set("user", () => {
      user ??= getSessionUser(ctx, c.req.raw.headers);
      return user;
    });
    if (!ORIGIN_EXEMPT.has(c.req.path) && isCrossOriginWrite(c.req.raw, ctx.config.origin)) {
      return c.json({ message: "Cross-origin request refused" }, 403);
    }
    await next();
  });

  const api = new Hono<AppEnv>();
  api.route("/health", health);
  // Ours first, so GET /api/auth/user wins over better-auth's catch-all.
  api.route("/", authRoutes);
  api.on(["GET", "POST"], "/auth/*", async (c) => {
    if (c.req.method === "POST") await checkAuthBody(c.req.path, c.req.raw);
    return ctx.auth.handler(c.req.raw);
  });
  api.route("/", profileRoutes);
  api.route("/", supplementRoutes);
  api.route("/", uploadRoutes);
  api.route("/", billingRoutes);
  app.route("/api", api);
  // Profile images live outside /api: immutable, cacheable URLs.
  app.route("/images", imageRoutes);

  app.notFound((c) => c.json({ message: "Not found" }, 404));

  app.onError((error, c) => {
    if (error instanceof HttpError) {
      for (const [k, v] of Object.entries(error.headers ?? {})) c.header(k, v);
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
export type { AppEnv } from "./env";
