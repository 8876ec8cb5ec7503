/** The Hono environment every resource module shares (defined in api/lib/types.ts), and the auth guard. */
import type { User } from "../../db/schema";
import { unauthorized } from "./http";
import type { AppEnv } from "./types";

export type { AppEnv, HostEnv } from "./types";

/**
 * The signed-in user, or a 401. Reads the look-up with `c.get` (Hono's `c.var` builds an
 * object of every variable on each read).
 */
export async function requireUser(c: { get: (key: "user") => AppEnv["Variables"]["user"] }): Promise<User> {
  const user = await c.get("user")();
  if (!user) throw unauthorized();
  return user;
}
