/**
 * The API on a fresh database, served over real HTTP on a free port in this process.
 *
 *   const api = await startApi();
 *   const res = await api.fetch("/api/profile", { method: "PUT", body: { bio: "hi" } });
 *   await api.close();
 */
import { createApp } from "../../api/app";
import { clientAddress } from "../../api/lib/client-address";
import { type AppContext, createContext } from "../../api/lib/context";
import { stopReminderWorker } from "../../api/reminders/worker";
import { createHost } from "../../server/host";
import { createTestDatabase, type TestDatabase } from "./db";

export interface ApiRequestInit extends Omit<RequestInit, "body"> {
  /** A plain object or array is sent as JSON. */
  body?: BodyInit | Record<string, unknown> | unknown[] | null;
  /** The Origin header: the server's own by default, `null` for none. */
  origin?: string | null;
}

export interface TestApi {
  /** The server's base URL, e.g. http://127.0.0.1:41234 (also the app's PUBLIC_ORIGIN). */
  url: string;
  origin: string;
  ctx: AppContext;
  /** fetch() relative to the server, with this origin's Origin header and JSON bodies. */
  fetch(path: string, init?: ApiRequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface StartApiOptions {
  /** Use this database instead of a fresh one; it is dropped on close(). */
  database?: TestDatabase;
  /** Called with every SQL statement the app sends (statement counting). */
  onQuery?: (query: string) => void;
}

const isJsonBody = (body: unknown): body is Record<string, unknown> | unknown[] =>
  Array.isArray(body) ||
  (typeof body === "object" && body !== null && Object.getPrototypeOf(body) === Object.prototype);

export function buildRequest(base: string, origin: string, path: string, init: ApiRequestInit = {}): Request {
  const { body, origin: originHeader = origin, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (originHeader !== null && !headers.has("origin")) headers.set("origin", originHeader);
  let payload: BodyInit | null | undefined;
  if (isJsonBody(body)) {
    payload = JSON.stringify(body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  } else {
    payload = body;
    if (typeof body === "string" && !headers.has("content-type")) headers.set("content-type", "application/json");
  }
  return new Request(new URL(path, base), { ...rest, headers, body: payload, redirect: rest.redirect ?? "manual" });
}

export async function startApi(extraEnv: Record<string, string> = {}, options: StartApiOptions = {}): Promise<TestApi> {
  const database = options.database ?? (await createTestDatabase());
  let handler: ((request: Request, server: Bun.Server<undefined>) => Response | Promise<Response>) | undefined;
  // Bind first, so that the app's PUBLIC_ORIGIN can be the port actually served.
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
        REMINDER_TICK_MS: "0", // reminder rounds: the tests run them (api/reminders/worker.ts)
        PUBLIC_ORIGIN: url,
        ...database.env,
        ...extraEnv,
      },
      onQuery: options.onQuery,
    });
  } catch (error) {
    server.stop(true);
    await database.drop();
    throw error;
  }
  const app = createApp(ctx);
  // The same way in as server.ts (server/host.ts): the response cache in front of the app.
  const dispatch = createHost({ ctx, api: app });
  handler = (request, server) => {
    const clientAddressOf = () =>
      clientAddress({
        forwardedFor: request.headers.get("x-forwarded-for"),
        socketAddress: () => server.requestIP(request)?.address,
        hops: ctx.config.TRUST_PROXY,
      });
    return dispatch(request, new URL(request.url), { server, clientAddress: clientAddressOf });
  };

  let closed = false;
  return {
    url,
    origin: url,
    ctx,
    fetch: (path, init) => fetch(buildRequest(url, url, path, init)),
    async close() {
      if (closed) return;
      closed = true;
      stopReminderWorker(ctx); // a test with REMINDER_TICK_MS > 0 leaves no loop on a closed database
      await server.stop(true);
      await ctx.database.close();
      await database.drop();
    },
  };
}
