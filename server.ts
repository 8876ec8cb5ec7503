/**
 * StackTrack's one process. `/api/*` goes straight to the Hono app, built assets and
 * prerendered pages are served from memory, and everything else is rendered by Astro.
 *
 *   bun server.ts        (after `bun --bun astro build`)
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { createApp } from "./api/app";
import { clientAddress } from "./api/client-address";
import type { HostEnv } from "./api/env";
import { PROFILE_USER_HEADER, serveCached, toCachedBody } from "./api/cache";
import { isReservedUsername } from "./src/lib/constants";
import { isValidUsername } from "./src/lib/validation";
import { ConfigError, initContext } from "./api/context";
import { isDatabaseUnavailable } from "./api/http";
import { errorFields, log } from "./api/log";
import { securityHeaders, withSecurityHeaders } from "./api/security";
import { DataDirLockedError } from "./db/client";
import { isSharingPath } from "./api/sharing/qr";

const root = import.meta.dir;
const clientDir = join(root, "dist/client");
const serverEntry = join(root, "dist/server/entry.mjs");

interface StaticFile {
  body: Uint8Array<ArrayBuffer>;
  gzip?: Uint8Array<ArrayBuffer>;
  type: string;
  etag: string;
  cacheControl: string;
}

/** `/{name}`: a public profile page when the name passes the username rule (isValidUsername). */
const PROFILE_PATH = /^\/([^/]+)$/;

/**
 * The largest request body the server reads (an avatar is at most 5 MB). Bun's own
 * `maxRequestBodySize` answers a bare 413 with no body and none of our headers, so the
 * limit is ours: a declared larger body is refused with a JSON 413 before any of it is
 * read, and a body without Content-Length is counted as it streams in and cut off at
 * the limit (see `limitBody`). Bun's ceiling stays as a last resort far above it.
 */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const BUN_BODY_CEILING = 1024 * 1024 * 1024;

const bodyTooLarge = () =>
  Response.json(
    { message: "Request body is too large" },
    { status: 413, headers: { Connection: "close", "Cache-Control": "no-store" } },
  );

/**
 * A request whose streamed body (no Content-Length) errors once it passes `max` bytes;
 * `exceeded()` then says the handler's failure was the size, to be answered with 413.
 */
function limitBody(request: Request, max: number): { request: Request; exceeded: () => boolean } {
  let exceeded = false;
  if (!request.body || request.headers.has("content-length")) return { request, exceeded: () => false };
  let seen = 0;
  const counted = request.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > max) {
          exceeded = true;
          controller.error(new Error("request body too large"));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
  const limited = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: counted,
    signal: request.signal,
    // @ts-expect-error: streaming request bodies need duplex (not yet in the DOM types)
    duplex: "half",
  });
  return { request: limited, exceeded: () => exceeded };
}

/**
 * The request's URL, or undefined when it has no usable host: an HTTP/1.0 request without
 * Host, an empty or malformed Host header, or an absolute-form target whose authority is
 * not a host. Such a request is answered 400 (never a 500), with the usual headers.
 */
function requestUrl(request: Request): URL | undefined {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return undefined;
  }
  if (!url.hostname || (url.protocol !== "http:" && url.protocol !== "https:")) return undefined;
  const host = request.headers.get("host");
  if (host !== null && !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(:\d{1,5})?$/.test(host)) return undefined;
  return url;
}

const badHost = () =>
  Response.json(
    { message: "Bad request: the Host header is missing or malformed" },
    { status: 400, headers: { Connection: "close", "Cache-Control": "no-store" } },
  );

const COMPRESSIBLE = /^(text\/|application\/(javascript|json|xml|manifest\+json)|image\/svg\+xml)/;

/** Every built file, keyed by URL path, loaded once (the client folder is small). */
function loadStaticFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const full = join(folder, name);
      if (statSync(full).isDirectory()) {
        walk(full);
        continue;
      }
      const urlPath = `/${relative(dir, full).split(sep).join("/")}`;
      const file = Bun.file(full);
      const body = new Uint8Array(readFileSync(full));
      const type =
        file.type.startsWith("text/") && !file.type.includes("charset") ? `${file.type};charset=utf-8` : file.type;
      const entry: StaticFile = {
        body,
        type,
        etag: `"${Bun.hash(body).toString(36)}"`,
        cacheControl: urlPath.startsWith("/_astro/")
          ? "public, max-age=31536000, immutable"
          : "public, max-age=0, must-revalidate",
      };
      if (COMPRESSIBLE.test(type) && body.byteLength > 512)
        entry.gzip = new Uint8Array(Bun.gzipSync(body, { level: 9 }));
      files.set(urlPath, entry);
      if (urlPath.endsWith("/index.html")) files.set(urlPath.slice(0, -"index.html".length) || "/", entry);
    }
  };
  if (existsSync(dir)) walk(dir);
  return files;
}

function serveStatic(file: StaticFile, request: Request): Response {
  const headers: Record<string, string> = {
    "Content-Type": file.type,
    "Cache-Control": file.cacheControl,
    ETag: file.etag,
    Vary: "Accept-Encoding",
  };
  if (request.headers.get("if-none-match") === file.etag) return new Response(null, { status: 304, headers });
  const gzip = file.gzip && /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  if (gzip) headers["Content-Encoding"] = "gzip";
  const body = gzip ? file.gzip : file.body;
  return new Response(request.method === "HEAD" ? null : body, { headers });
}

/**
 * postgres.js 3.4 under Bun: when Postgres goes away in the middle of a transaction, the
 * ROLLBACK that follows is queued on the dead connection, and a timer then writes to its
 * socket, which is gone (`socket.write` on null, postgres/src/connection.js). The query
 * has already failed (the request answers 503), but the throw is uncaught and ended the
 * whole process, and the connection it happened on stays stuck: later queries queue on it
 * and are never sent (tests/api/faults.test.ts). Exactly that error is survived and the
 * pool is replaced (db/client.ts `reset`); any other uncaught exception still ends the
 * process.
 */
function isDeadSocketWrite(error: unknown): boolean {
  const stack = error instanceof Error ? (error.stack ?? "") : "";
  return (
    error instanceof TypeError &&
    /socket\.write/.test(error.message) &&
    /postgres[\\/]src[\\/]connection\.js/.test(stack)
  );
}

/**
 * Fail fast while the database is in trouble: a query that waits on a dying connection
 * (or on a reconnect that backs off) would keep its request hanging for the whole outage.
 * Once the database has failed (an answer was a 503, or the broken write happened), for
 * the next 30 s any request still unanswered after 2 s is answered 503 (its work, if it
 * ever completes, is discarded). In normal operation nothing is ever cut short.
 */
const TROUBLE_WINDOW_MS = 30_000;
const TROUBLE_DEADLINE_MS = 2_000;
let troubleUntil = 0;
const waiting = new Set<{ started: number; expire: () => void }>();
let ticker: ReturnType<typeof setInterval> | undefined;

function markDatabaseTrouble() {
  troubleUntil = Date.now() + TROUBLE_WINDOW_MS;
  ticker ??= setInterval(() => {
    const now = Date.now();
    if (now > troubleUntil) {
      clearInterval(ticker);
      ticker = undefined;
      return;
    }
    for (const entry of waiting) if (now - entry.started > TROUBLE_DEADLINE_MS) entry.expire();
  }, 200);
  ticker.unref?.();
}

const DEADLINE = Symbol("deadline");

/** The work's answer, or DEADLINE when the database is in trouble and it takes too long. */
async function withTroubleDeadline<T>(work: Promise<T>): Promise<T | typeof DEADLINE> {
  let entry: { started: number; expire: () => void } | undefined;
  const expired = new Promise<typeof DEADLINE>((resolve) => {
    entry = { started: Date.now(), expire: () => resolve(DEADLINE) };
    waiting.add(entry);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    if (entry) waiting.delete(entry);
  }
}

/** Set once the database is open: replaces a pool that the error above has left broken. */
let resetDatabase: (() => void) | undefined;
let lastReset = 0;

process.on("uncaughtException", (error) => {
  if (isDeadSocketWrite(error)) {
    markDatabaseTrouble();
    // That connection is stuck for good (queries queue on it unsent): a fresh pool.
    if (Date.now() - lastReset > 500) {
      lastReset = Date.now();
      resetDatabase?.();
    }
    log.warn("write to a closed database connection: connection pool replaced", errorFields(error));
    return;
  }
  log.error("uncaught exception", errorFields(error));
  process.exit(1);
});

async function main() {
  let ctx: Awaited<ReturnType<typeof initContext>>;
  try {
    ctx = await initContext();
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DataDirLockedError) {
      console.error(`StackTrack cannot start. ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const { config, database } = ctx;
  resetDatabase = database.reset?.bind(database);

  if (!existsSync(serverEntry)) {
    console.error("StackTrack cannot start: dist/ is missing. Run `bun --bun run build` first.");
    await database.close();
    process.exit(1);
  }
  const { render } = (await import(serverEntry)) as {
    render: (request: Request, locals?: App.Locals) => Promise<Response>;
  };
  const api = createApp(ctx);
  const files = loadStaticFiles(clientDir);
  const headers = securityHeaders(config);
  let inFlight = 0;

  /**
   * A public profile page: the same for every visitor, so it is rendered once and
   * served from memory until the profile changes (see api/cache.ts).
   */
  async function profilePage(name: string, request: Request): Promise<Response> {
    const cached = ctx.caches.getProfile(name, "page");
    if (cached) return serveCached(cached, request);
    const since = ctx.caches.begin();
    const response = await render(new Request(request.url, { headers: { accept: "text/html" } }));
    if ((response.status !== 200 && response.status !== 404) || response.headers.has("set-cookie")) return response;
    const body = await toCachedBody(response);
    const userId = response.headers.get(PROFILE_USER_HEADER);
    body.headers = body.headers.filter(([key]) => key !== PROFILE_USER_HEADER);
    ctx.caches.setProfile(name, "page", userId, body, since);
    return serveCached(body, request);
  }

  async function route(request: Request, url: URL, env: HostEnv): Promise<Response> {
    const declared = Number(request.headers.get("content-length") ?? "0");
    if (declared > MAX_BODY_BYTES) return bodyTooLarge();
    const limited = limitBody(request, MAX_BODY_BYTES);
    if (limited.request !== request) {
      // A copy the socket does not know: the client address was decided from the original
      // request (env.clientAddress), which is what the app uses.
      const response = await dispatch(limited.request, url, env);
      return limited.exceeded() ? bodyTooLarge() : response;
    }
    return dispatch(request, url, env);
  }

  async function dispatch(request: Request, url: URL, env: HostEnv): Promise<Response> {
    const path = url.pathname;
    if (path === "/api" || path.startsWith("/api/") || path.startsWith("/images/")) return api.fetch(request, env);
    if (isSharingPath(path) && (request.method === "GET" || request.method === "HEAD")) return api.fetch(request, env);
    if (request.method === "GET" || request.method === "HEAD") {
      // `/` is the prerendered landing page, unless the visitor has a session.
      if (path === "/" && request.headers.get("cookie")?.includes("session_token")) {
        return render(new Request(new URL("/dashboard", url), request));
      }
      const file = files.get(path);
      if (file) return serveStatic(file, request);
      const name = PROFILE_PATH.exec(path)?.[1];
      if (name && isValidUsername(name) && !isReservedUsername(name)) return profilePage(name, request);
    }
    return render(request);
  }

  const server = Bun.serve({
    hostname: config.HOST,
    port: config.PORT,
    maxRequestBodySize: BUN_BODY_CEILING,
    async fetch(request, server) {
      const started = performance.now();
      inFlight++;
      let url: URL | undefined;
      // Decided once, when first asked (the API's limits, the log line), from the socket.
      let address: { value: string | undefined } | undefined;
      const addressOf = () => {
        address ??= {
          value: clientAddress({
            forwardedFor: request.headers.get("x-forwarded-for"),
            socketAddress: server.requestIP(request)?.address,
            hops: config.TRUST_PROXY,
          }),
        };
        return address.value;
      };
      let response: Response;
      try {
        url = requestUrl(request);
        if (!url) {
          response = badHost();
          return finish(response);
        }
        const work = route(request, url, { server, clientAddress: addressOf });
        const answer = await withTroubleDeadline(work);
        if (answer === DEADLINE) {
          work.catch(() => {}); // abandoned: its outcome no longer matters
          throw Object.assign(new Error("the database did not answer within 2000 ms"), { code: "ETIMEDOUT" });
        }
        response = answer;
      } catch (error) {
        const path = url?.pathname ?? "";
        if (isDatabaseUnavailable(error)) {
          markDatabaseTrouble();
          log.warn("database unavailable", { method: request.method, path, ...errorFields(error) });
          const retry = { "Retry-After": "5", "Cache-Control": "no-store" };
          response = path.startsWith("/api/")
            ? Response.json(
                { message: "Service temporarily unavailable. Please try again." },
                { status: 503, headers: retry },
              )
            : new Response("StackTrack is temporarily unavailable. Please try again in a moment.", {
                status: 503,
                headers: { ...retry, "Content-Type": "text/plain;charset=utf-8" },
              });
        } else {
          log.error("request failed", { method: request.method, path, ...errorFields(error) });
          response = path.startsWith("/api/")
            ? Response.json({ message: "Something went wrong. Please try again." }, { status: 500 })
            : new Response("Something went wrong. Please try again.", { status: 500 });
        }
      } finally {
        inFlight--;
      }
      return finish(response);

      function finish(answer: Response): Response {
        if (answer.status === 503 && answer.headers.has("retry-after")) markDatabaseTrouble();
        const secured = withSecurityHeaders(answer, headers);
        if (log.enabled("info")) {
          log.info("request", {
            method: request.method,
            path: url?.pathname ?? "(no usable host)",
            status: secured.status,
            ms: Math.round((performance.now() - started) * 10) / 10,
            ip: addressOf(),
          });
        }
        return secured;
      }
    },
    error(error) {
      log.error("server error", errorFields(error));
      return withSecurityHeaders(
        Response.json({ message: "Something went wrong. Please try again." }, { status: 500 }),
        headers,
      );
    },
  });

  log.info("StackTrack is listening", { url: `http://localhost:${server.port}`, origin: config.origin });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal, inFlight });
    const stopped = server.stop(false);
    const deadline = Date.now() + 15_000;
    while (inFlight > 0 && Date.now() < deadline) await Bun.sleep(25);
    await Promise.race([stopped, Bun.sleep(1000)]);
    await database.close();
    log.info("stopped", { signal });
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

await main();
