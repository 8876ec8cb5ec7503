/** The Hono environment every resource module shares, and the auth guard. */
import type { User } from "../db/schema";
import type { AppContext } from "./context";
import { unauthorized } from "./http";

export type AppEnv = {
  Variables: {
    ctx: AppContext;
    requestId: string;
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
