/**
 * The app's one process: wiring only. Every request goes through the host (server/host.ts):
 * built files from memory, then the one response cache (server/cache.ts) in front of the
 * Hono app (`/api`, images, `/go`, the social card) and Astro (pages).
 * Body limits: server/body-limit.ts; 500/503 answers: api/lib/errors.ts; the fail-fast
 * window while the database is in trouble: server/database-trouble.ts; postgres.js's
 * dead-socket write: db/dead-socket.ts.
 *
 *   bun server.ts        (after `bun --bun astro build`)
 */
// First: without DATABASE_URL, PGlite's WebAssembly compiles while the rest loads.
import "./server/pglite-early";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "./api/app";
import { counterOf } from "./api/insights/counter";
import { clientAddress } from "./api/lib/client-address";
import { ConfigError, initContext } from "./api/lib/context";
import type { HostEnv } from "./api/lib/env";
import { answerFor, serverError, unavailable } from "./api/lib/errors";
import { isDatabaseUnavailable } from "./api/lib/http";
import { errorFields, flushLogs, log } from "./api/lib/log";
import { securityHeadersOf, withSecurityHeaders } from "./api/lib/security";
import type { Database } from "./db/client";
import { DataDirLockedError } from "./db/client";
import { deadSocketSurvivor } from "./db/dead-socket";
import { BUN_BODY_CEILING, withBodyLimit } from "./server/body-limit";
import { markDatabaseTrouble, recoverWith, withTroubleDeadline } from "./server/database-trouble";
import { createHost } from "./server/host";
import { importGraph } from "./server/preload";
import { badHost, requestUrl } from "./server/request-url";
import { Shutdown } from "./server/shutdown";
import { loadStaticFiles } from "./server/static";
import { PRODUCT_NAME } from "./src/lib/constants";

const root = import.meta.dir;
const clientDir = join(root, "dist/client");
const serverEntry = join(root, "dist/server/entry.mjs");

/** Set once the database is open, for the dead-socket workaround to replace its pool. */
let openDatabase: Database | undefined;
const survivesDeadSocket = deadSocketSurvivor(() => openDatabase);

process.on("uncaughtException", (error) => {
  if (survivesDeadSocket(error)) {
    markDatabaseTrouble();
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
      console.error(`${PRODUCT_NAME} cannot start. ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const { config, database } = ctx;
  openDatabase = database;
  const { recover } = database;
  // Postgres: after trouble, a fresh pool once the server answers again (server/database-trouble.ts).
  recoverWith(
    recover &&
      (async () => {
        const answered = await recover();
        if (answered) log.warn("the database answers again: connection pool replaced");
        return answered;
      }),
  );

  if (!existsSync(serverEntry)) {
    console.error(`${PRODUCT_NAME} cannot start: dist/ is missing. Run \`bun --bun run build\` first.`);
    await database.close();
    process.exit(1);
  }
  const { render } = (await import(serverEntry)) as {
    render: (request: Request, locals?: App.Locals) => Promise<Response>;
  };
  const api = createApp(ctx);
  void counterOf(ctx).flush(); // issue 14: the counter reads the day's visitor salt
  // The same object for every answer, so answers kept in memory keep their final headers (api/lib/security.ts).
  const headers = securityHeadersOf(config);
  const dispatch = createHost({
    ctx,
    api,
    render,
    files: loadStaticFiles(clientDir),
    security: headers,
    modules: importGraph(join(clientDir, "_astro")),
  });
  let inFlight = 0;

  /** The answer to a request that failed: 503 while the database is unreachable, else 500. */
  function failure(error: unknown, request: Request, path: string): Response {
    if (isDatabaseUnavailable(error)) {
      markDatabaseTrouble();
      log.warn("database unavailable", { method: request.method, path, ...errorFields(error) });
      return unavailable(answerFor(path));
    }
    log.error("request failed", { method: request.method, path, ...errorFields(error) });
    return serverError(answerFor(path));
  }

  const shutdown = new Shutdown({
    drainMs: config.SHUTDOWN_DRAIN_SECONDS * 1000,
    log,
    decorate: (response) => withSecurityHeaders(response, headers),
  });
  const server = Bun.serve({
    hostname: config.HOST,
    port: config.PORT,
    maxRequestBodySize: BUN_BODY_CEILING,
    fetch: shutdown.handler((request, server) => {
      const started = performance.now();
      inFlight++;
      let url: URL | undefined;
      // Decided once, when first asked (the API's limits, the log line), from the socket.
      let address: { value: string | undefined } | undefined;
      const addressOf = () => {
        address ??= {
          value: clientAddress({
            forwardedFor: request.headers.get("x-forwarded-for"),
            socketAddress: () => server.requestIP(request)?.address,
            hops: config.TRUST_PROXY,
          }),
        };
        return address.value;
      };
      const finish = (answer: Response): Response => {
        inFlight--;
        if (answer.status === 503 && answer.headers.has("retry-after")) markDatabaseTrouble();
        const secured = withSecurityHeaders(answer, headers);
        if (log.enabled("info")) {
          log.request({
            method: request.method,
            path: url?.pathname ?? "(no usable host)",
            status: secured.status,
            ms: Math.round((performance.now() - started) * 10) / 10,
            ip: addressOf(),
          });
        }
        return secured;
      };
      const failed = (error: unknown) => finish(failure(error, request, url?.pathname ?? ""));
      let answer: Response | Promise<Response>;
      try {
        url = requestUrl(request);
        if (!url) return finish(badHost());
        const env: HostEnv = { server, clientAddress: addressOf, security: headers };
        const target = url;
        answer = withBodyLimit(request, (limited) => dispatch(limited, target, env));
      } catch (error) {
        return failed(error);
      }
      // Only work that waits (on the database, a render) can be cut short while in trouble.
      return answer instanceof Response ? finish(answer) : withTroubleDeadline(answer).then(finish, failed);
    }),
    error(error) {
      log.error("server error", errorFields(error));
      return withSecurityHeaders(serverError("json"), headers);
    },
  });

  log.info(`${PRODUCT_NAME} is listening`, { url: `http://localhost:${server.port}`, origin: config.origin });

  // SIGTERM drains, then stops (server/shutdown.ts); SIGINT or a second SIGTERM stops at once.
  shutdown.listen({
    stopListening: () => server.stop(false),
    inFlight: () => inFlight,
    closeDatabase: async () => {
      await counterOf(ctx).flush(); // issue 14: views and clicks still in memory
      await database.close();
    },
    exit: (code) => {
      flushLogs(); // every request's line is out before the process ends
      process.exit(code);
    },
  });
}

await main();
