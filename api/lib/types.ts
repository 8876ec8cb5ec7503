/**
 * The types every server module shares: the process-wide context and the Hono environment.
 * A leaf: it imports only types, from modules that never import it back (config, cache,
 * auth, the database), so any module may import it without making a cycle.
 */
import type { Database } from "../../db/client";
import type { User } from "../../db/schema";
import type { Auth } from "../auth/auth";
import type { Caches } from "./cache";
import type { Config } from "./config";

/** Configuration, the database, the auth instance and this instance's caches (api/lib/context.ts makes it). */
export interface AppContext {
  config: Config;
  database: Database;
  auth: Auth;
  caches: Caches;
  /**
   * This instance's one `name` (a counter, a limiter, the card store), made by `make` on first
   * use: the one way to keep per-instance state (api/lib/context.ts `instanceRegistry`).
   */
  instance<T>(name: string, make: () => T): T;
}

/**
 * What server.ts passes the app as Hono's env: the Bun server, and the client's address it
 * decided once for the request (api/lib/client-address.ts). Tests pass the Bun server itself;
 * astro dev passes nothing. Without `clientAddress` the app decides it from the socket.
 */
export interface HostEnv {
  server: Bun.Server<undefined>;
  clientAddress: () => string | undefined;
  /** The security headers server.ts adds to every answer (api/lib/security.ts). */
  security?: Record<string, string>;
}

/** The Hono environment of every route module. */
export type AppEnv = {
  Variables: {
    ctx: AppContext;
    requestId: string;
    /** The client's address (api/lib/client-address.ts), when known. */
    clientAddress: string | undefined;
    /** Memoised session look-up: `await c.var.user()` gives the signed-in user or null. */
    user: () => Promise<User | null>;
  };
};
