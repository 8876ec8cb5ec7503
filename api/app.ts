/**
 * createApp(): the Hono app behind /api. Middleware (request id, logging,
 * origin check, JSON errors) is here; each resource lives in its own module.
 */
import { Hono } from "hono";
import { getConnInfo } from "hono/bun";
import type { User } from "../db/schema";
import { accountRoutes } from "./account/routes";
import { sessionRoutes } from "./account/session";
import { userRoutes } from "./account/user";
import { CLIENT_IP_HEADER, getSessionUser } from "./auth/auth";
import { servedAuthPath } from "./auth/paths";
import { billingRoutes } from "./billing/routes";
import { calendarRoutes } from "./calendar/routes";
import { copyRoutes } from "./copies/routes";
import { imageRoutes, uploadRoutes } from "./images/routes";
import { ingredientRoutes } from "./ingredients/routes";
import { goRoutes } from "./insights/go";
import { insightsRoutes } from "./insights/routes";
import { clientAddress } from "./lib/client-address";
import { serverError, unavailable } from "./lib/errors";
import { health } from "./lib/health";
import {
  HttpError,
  isDatabaseUnavailable,
  isStatementTimeout,
  refuseUnstorableText,
  STATEMENT_TIMEOUT_MESSAGE,
} from "./lib/http";
import { errorFields, log } from "./lib/log";
import { accountKeyOf, addressKey, authBodyField, limitRoute } from "./lib/rate-limit";
import { isCrossOriginWrite } from "./lib/security";
import type { AppContext, AppEnv, HostEnv } from "./lib/types";
import { profileRoutes } from "./profile/routes";
import { checkUserFieldWrites, USER_FIELD_WRITES } from "./profile/user-fields";
import { pushRoutes } from "./reminders/push";
import { reminderRoutes } from "./reminders/routes";
import { UNSUBSCRIBE_PATH } from "./reminders/unsubscribe";
import { reportRoutes } from "./report/routes";
import { cardRoutes } from "./sharing/card";
import { qrRoutes } from "./sharing/qr";
import { supplementRoutes } from "./supplements/routes";
import { stockRoutes } from "./supplements/stock";
import { trackingRoutes } from "./tracking/routes";

/** The address of the socket the request came in on (none outside Bun.serve, e.g. astro dev). */
function socketAddress(c: import("hono").Context<AppEnv>): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/**
 * Hands better-auth the address we decided, in the one header it reads: whatever a client
 * sent in that header is replaced (or removed). Should the request's headers be immutable,
 * the request is replaced by a copy that carries ours.
 */
function stampClientAddress(c: import("hono").Context<AppEnv>, address: string | undefined) {
  const apply = (headers: Headers) => {
    if (address) headers.set(CLIENT_IP_HEADER, address);
    else headers.delete(CLIENT_IP_HEADER);
  };
  try {
    apply(c.req.raw.headers);
  } catch {
    const headers = new Headers(c.req.raw.headers);
    apply(headers);
    c.req.raw = new Request(c.req.raw, { headers });
  }
}

/**
 * better-auth writes some fields as it gets them: a NUL character or a lone surrogate reached Postgres and came
 * back as a 500, and sign-up and update-user stored any name and any `image`. Every body of a
 * better-auth endpoint that writes user fields is checked here with the app's own rules
 * first (USER_FIELD_WRITES, api/profile/user-fields.ts); better-auth's database hooks check again.
 */
async function checkAuthBody(ctx: AppContext, c: import("hono").Context<AppEnv>): Promise<void> {
  const path = c.req.path;
  const text = await c.req.raw
    .clone()
    .text()
    .catch(() => "");
  const writes = path in USER_FIELD_WRITES;
  // NUL and lone surrogates reach a JSON string only as \u escapes.
  if (!writes && !/\\u(0000|d[89a-f])/i.test(text)) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return; // better-auth answers malformed JSON itself
  }
  refuseUnstorableText(body);
  if (writes) {
    await checkUserFieldWrites(ctx.database.db, path, body, async () => (await c.get("user")())?.id ?? null);
  }
}

/**
 * Spends the rate-limit budgets of a served better-auth endpoint (api/lib/rate-limit.ts): the
 * account a sign-in names and the recipient of a reset mail come from the body, whatever its
 * content type (authBodyField reads it as better-auth does).
 */
async function limitAuthCall(ctx: AppContext, c: import("hono").Context<AppEnv>, pattern: string): Promise<void> {
  if (ctx.config.RATE_LIMIT === "off") return;
  const route = `${c.req.method} /api/auth${pattern}`;
  const email = c.req.method === "POST" ? await authBodyField(c.req.raw, "email") : undefined;
  const address = addressKey(c.get("clientAddress"));
  if (route === "POST /api/auth/sign-in/email") {
    const account = email ? await accountKeyOf(ctx.database.db, email) : undefined;
    return limitRoute(ctx, route, { account, address });
  }
  return limitRoute(ctx, route, { address, recipient: email });
}

/**
 * No /api answer may be kept by a browser or a shared cache unless it says so itself:
 * sessions, the user, supplements, billing and uploads are personal. Answers that set
 * their own Cache-Control (the public GET /api/profile/{name}, /api/health, images) keep
 * it; better-auth's answers (/api/auth/*) are always `no-store`.
 */
function noStoreByDefault(c: import("hono").Context<AppEnv>) {
  const path = c.req.path;
  if (path !== "/api" && !path.startsWith("/api/")) return;
  const forced = path.startsWith("/api/auth/");
  if (!forced && c.res.headers.has("cache-control")) return;
  try {
    c.res.headers.set("Cache-Control", "no-store");
  } catch {
    // Immutable headers (a redirect made by Response.redirect): copy the response.
    const copy = new Response(c.res.body, c.res);
    copy.headers.set("Cache-Control", "no-store");
    c.res = undefined; // Hono's setter would copy the old headers over the new ones
    c.res = copy;
  }
}

/** `response` through Hono's context, so headers the route had already set are kept. */
const answer = (c: import("hono").Context<AppEnv>, response: Response) =>
  c.newResponse(response.body, response.status as 500 | 503, Object.fromEntries(response.headers));

/** The OAuth providers configured here: only their callbacks are served (api/auth/paths.ts). */
function configuredProviders(config: AppContext["config"]): ReadonlySet<string> {
  const providers = new Set<string>();
  if (config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET) providers.add("github");
  if (config.GOOGLE_CLIENT_ID && config.GOOGLE_CLIENT_SECRET) providers.add("google");
  return providers;
}

/** Paths that take state-changing requests from other origins (signed webhooks; one-click unsubscribe, RFC 8058). */
const ORIGIN_EXEMPT = new Set(["/api/stripe/webhook", UNSUBSCRIBE_PATH]);

export function createApp(ctx: AppContext) {
  const app = new Hono<AppEnv>();

  app.use(async (c, next) => {
    c.set("ctx", ctx);
    c.set("requestId", c.req.header("x-request-id") ?? crypto.randomUUID());
    const decided = (c.env as Partial<HostEnv> | undefined)?.clientAddress;
    const address =
      typeof decided === "function"
        ? decided()
        : clientAddress({
            forwardedFor: c.req.raw.headers.get("x-forwarded-for"),
            socketAddress: () => socketAddress(c),
            hops: ctx.config.TRUST_PROXY,
          });
    c.set("clientAddress", address);
    stampClientAddress(c, address);
    let user: Promise<User | null> | undefined;
    c.set("user", () => {
      user ??= getSessionUser(ctx, c.req.raw.headers);
      return user;
    });
    if (!ORIGIN_EXEMPT.has(c.req.path) && isCrossOriginWrite(c.req.raw, ctx.config.origin, !ctx.config.PUBLIC_ORIGIN)) {
      return c.json({ message: "Cross-origin request refused" }, 403);
    }
    await next();
    noStoreByDefault(c);
  });

  const api = new Hono<AppEnv>();
  api.route("/health", health);
  // Ours first, so GET /api/auth/user wins over better-auth's catch-all.
  api.route("/", userRoutes);
  api.route("/", sessionRoutes);
  api.on(["GET", "POST"], "/auth/*", async (c) => {
    const served = servedAuthPath(c.req.method, c.req.path, configuredProviders(ctx.config));
    if (!served) return c.json({ message: "Not found" }, 404);
    await limitAuthCall(ctx, c, served.path);
    if (c.req.method === "POST") await checkAuthBody(ctx, c);
    return ctx.auth.handler(c.req.raw);
  });
  api.route("/", profileRoutes);
  api.route("/", supplementRoutes);
  api.route("/", stockRoutes);
  api.route("/", trackingRoutes);
  api.route("/", ingredientRoutes);
  api.route("/", uploadRoutes);
  api.route("/", billingRoutes);
  api.route("/", insightsRoutes);
  api.route("/", accountRoutes);
  api.route("/", reminderRoutes);
  api.route("/", pushRoutes);
  api.route("/", calendarRoutes);
  api.route("/", reportRoutes);
  api.route("/", copyRoutes);
  app.route("/api", api);
  // Issue 14: public 'View Product' redirects (server.ts answers their 404 with the 404 page).
  app.route("/go", goRoutes);
  // Profile images live outside /api: immutable, cacheable URLs.
  app.route("/images", imageRoutes);
  // Sharing (issue 16): the social card and the QR code, public and cacheable.
  app.route("/og", cardRoutes);
  app.route("/", qrRoutes);

  app.notFound((c) => c.json({ message: "Not found" }, 404));

  app.onError((error, c) => {
    if (error instanceof HttpError) {
      for (const [k, v] of Object.entries(error.headers ?? {})) c.header(k, v);
      return c.json(
        { message: error.message, ...(error.errors ? { errors: error.errors } : {}), ...error.details },
        error.status,
      );
    }
    if (isStatementTimeout(error)) {
      log.warn("statement timeout", { requestId: c.get("requestId"), path: c.req.path, ...errorFields(error) });
      return c.json({ message: STATEMENT_TIMEOUT_MESSAGE }, 503, { "Cache-Control": "no-store" });
    }
    if (isDatabaseUnavailable(error)) {
      log.warn("database unavailable", { requestId: c.get("requestId"), path: c.req.path, ...errorFields(error) });
      return answer(c, unavailable("json"));
    }
    log.error("unhandled error", { requestId: c.get("requestId"), path: c.req.path, ...errorFields(error) });
    return answer(c, serverError("json"));
  });

  return app;
}

export type ApiApp = ReturnType<typeof createApp>;
