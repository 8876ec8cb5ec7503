/** The Hono environment every resource module shares, and the auth guard. */
import type { User } from "../db/schema";
import type { AppContext } from "./context";
import { unauthorized } from "./http";

/**
 * What server.ts passes the app as Hono's env: the Bun server, and the client's address it
 * decided once for the request (api/client-address.ts). Tests pass the Bun server itself;
 * astro dev passes nothing. Without `clientAddress` the app decides it from the socket.
 */
export interface HostEnv {
  server: Bun.Server<undefined>;
  clientAddress: () => string | undefined;
}

export type AppEnv = {
  Variables: {
    ctx: AppContext;
    requestId: string;
    /** The client's address (api/client-address.ts), when known. */
    clientAddress: string | undefined;
    /** Memoised session look-up: `await c.var.user()` gives the signed-in user or null. */
    user: () => Promise<User | null>;
  };
};

/** The signed-in user, or a 401. */
export async function requireUser(c: { var: AppEnv["Variables"] }): Promise<User> {
  const user = await c.var.user();
  if (!user) throw unauthorized();
  return user;
}
