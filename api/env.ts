/** The Hono environment every resource module shares (defined in api/types.ts), and the auth guard. */
import type { User } from "../db/schema";
import { unauthorized } from "./http";
import type { AppEnv } from "./types";

export type { AppEnv, HostEnv } from "./types";

/** The signed-in user, or a 401. */
export async function requireUser(c: { var: AppEnv["Variables"] }): Promise<User> {
  const user = await c.var.user();
  if (!user) throw unauthorized();
  return user;
}
