/**
 * StackTrack's one process. `/api/*` goes straight to the Hono app, built assets and
 * prerendered pages are served from memory, and everything else is rendered by Astro.
 *
 *   bun server.ts        (after `bun --bun astro build`)
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { createApp } from "./api/app";
import { PROFILE_USER_HEADER, serveCached, toCachedBody } from "./api/cache";
import { isReservedUsername } from "./src/lib/constants";
import { ConfigError, initContext } from "./api/context";
import { errorFields, log } from "./api/log";
import { securityHeaders, withSecurityHeaders } from "./api/security";
import { DataDirLockedError } from "./db/client";

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

const PROFILE_PATH = /^\/([A-Za-z0-9_]{3,50})$/;

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
      const type = file.type.startsWith("text/") && !file.type.includes("charset") ? `${file.type};charset=utf-8` : file.type;
      const entry: StaticFile = {
        body,
        type,
        etag: `"${Bun.hash(body).toString(36)}"`,
        cacheControl: urlPath.startsWith("/_astro/")
          ? "public, max-age=31536000, immutable"
          : "public, max-age=0, must-revalidate",
      };
      if (COMPRESSIBLE.test(type) && body.byteLength > 512) entry.gzip = new Uint8Array(Bun.gzipSync(body, { level: 9 }));
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

  async function route(request: Request, url: URL, server: Bun.Server<undefined>): Promise<Response> {
    const path = url.pathname;
    if (path === "/api" || path.startsWith("/api/") || path.startsWith("/images/")) return api.fetch(request, server);
    if (request.method === "GET" || request.method === "HEAD") {
      // `/` is the prerendered landing page, unless the visitor has a session.
      if (path === "/" && request.headers.get("cookie")?.includes("session_token")) {
        return render(new Request(new URL("/dashboard", url), request));
      }
      const file = files.get(path);
      if (file) return serveStatic(file, request);
      const name = PROFILE_PATH.exec(path)?.[1];
      if (name && !isReservedUsername(name)) return profilePage(name, request);
    }
    return render(request);
  }

  const server = Bun.serve({
    hostname: config.HOST,
    port: config.PORT,
    maxRequestBodySize: 8 * 1024 * 1024,
    async fetch(request, server) {
      const started = performance.now();
      inFlight++;
      const url = new URL(request.url);
      let response: Response;
      try {
        response = await route(request, url, server);
      } catch (error) {
        log.error("request failed", { method: request.method, path: url.pathname, ...errorFields(error) });
        response = url.pathname.startsWith("/api/")
          ? Response.json({ message: "Something went wrong. Please try again." }, { status: 500 })
          : new Response("Something went wrong. Please try again.", { status: 500 });
      } finally {
        inFlight--;
      }
      response = withSecurityHeaders(response, headers);
      if (log.enabled("info")) {
        log.info("request", {
          method: request.method,
          path: url.pathname,
          status: response.status,
          ms: Math.round((performance.now() - started) * 10) / 10,
        });
      }
      return response;
    },
    error(error) {
      log.error("server error", errorFields(error));
      return Response.json({ message: "Something went wrong. Please try again." }, { status: 500 });
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
