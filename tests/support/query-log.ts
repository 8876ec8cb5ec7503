/**
 * startApi() with every SQL statement the app sends recorded (createContext's `onQuery`),
 * for tests that count statements. Built exactly like tests/support/server.ts builds the
 * app: a fresh database, the real Hono app over real HTTP on a free port.
 *
 *   const api = await startApiWithQueryLog();
 *   api.queries.length = 0;
 *   await api.fetch(...);
 *   expect(api.queries.length).toBe(...);
 */
import { createApp } from "../../api/app";
import { type AppContext, createContext } from "../../api/context";
import { createTestDatabase } from "./db";
import { buildRequest, type TestApi } from "./server";

export interface QueryLoggingApi extends TestApi {
  /** Every statement sent since start (clear it with `queries.length = 0`). */
  queries: string[];
}

export async function startApiWithQueryLog(extraEnv: Record<string, string> = {}): Promise<QueryLoggingApi> {
  const database = await createTestDatabase();
  const queries: string[] = [];
  let handler: ((request: Request, server: Bun.Server<undefined>) => Response | Promise<Response>) | undefined;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request, server) {
      if (!handler) return new Response("starting", { status: 503 });
      return handler(request, server);
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  let ctx: AppContext;
  try {
    const env: Record<string, string | undefined> = { ...process.env };
    delete env.DATABASE_URL;
    delete env.DATA_DIR;
    ctx = await createContext({
      env: {
        ...env,
        NODE_ENV: "test",
        LOG_LEVEL: "warn",
        RATE_LIMIT: "off",
        PUBLIC_ORIGIN: url,
        ...database.env,
        ...extraEnv,
      },
      onQuery: (query) => queries.push(query),
    });
  } catch (error) {
    server.stop(true);
    await database.drop();
    throw error;
  }
  const app = createApp(ctx);
  handler = (request, server) => app.fetch(request, server);

  let closed = false;
  return {
    url,
    origin: url,
    ctx,
    queries,
    fetch: (path, init) => fetch(buildRequest(url, url, path, init)),
    async close() {
      if (closed) return;
      closed = true;
      await server.stop(true);
      await ctx.database.close();
      await database.drop();
    },
  };
}
