/**
 * The built app (`bun server.ts`, unchanged) plus a test-only control port, for journeys that
 * need a state no screen sets (premium). Test code only: nothing of it is in the app.
 *
 *   const app = await startControlledApp();
 *   await app.setPremium(email, true);
 *
 * Run as a script (what startControlledApp spawns), it opens the context first, so that
 * server.ts shares its database, then serves `POST /premium {email, premium}` on QA_CONTROL_PORT.
 */
import { spawn } from "node:child_process";
import { createTestDatabase } from "./db";
import { freePort, ROOT, serverEnv } from "./process";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy";

export interface ControlledApp {
  /** e.g. http://127.0.0.1:41234 (also the app's PUBLIC_ORIGIN). */
  url: string;
  setPremium(email: string, premium?: boolean): Promise<void>;
  /** Moves the user's schedule versions `days` back, as if their supplements were added that long ago (issue 19). */
  backdateSchedules(email: string, days: number): Promise<void>;
  /**
   * With `{ proxied: true }`: the browser reaches the app through a TCP proxy that the test
   * cuts (every connection closed, new ones refused: the page AND its service worker are
   * without a server, while the browser still believes it is online) and restores.
   */
  network?: Pick<TcpProxy, "cut" | "restore">;
  stop(): Promise<void>;
}

async function runControlled() {
  const { eq } = await import("drizzle-orm");
  const { initContext } = await import("../../api/lib/context");
  const { users } = await import("../../db/schema");
  const ctx = await initContext();
  Bun.serve({
    hostname: "127.0.0.1",
    port: Number(process.env.QA_CONTROL_PORT),
    async fetch(request) {
      const url = new URL(request.url);
      if (request.method === "POST" && url.pathname === "/backdate") {
        const { sql } = await import("drizzle-orm");
        const { email, days } = (await request.json()) as { email: string; days: number };
        await ctx.database.db.execute(
          sql`update schedule_versions set valid_from = valid_from - ${days}::int
              where user_id = (select id from users where email = ${email})`,
        );
        ctx.caches.clear();
        return new Response("ok");
      }
      if (request.method !== "POST" || url.pathname !== "/premium") return new Response("not found", { status: 404 });
      const { email, premium } = (await request.json()) as { email: string; premium: boolean };
      const rows = await ctx.database.db
        .update(users)
        .set({ isPremium: premium })
        .where(eq(users.email, email))
        .returning({ id: users.id });
      return new Response(rows.length === 1 ? "ok" : "no such user", { status: rows.length === 1 ? 200 : 404 });
    },
  });
  await import("../../server");
}

/** `env` adds to the server's environment (e.g. a shorter INSIGHTS_FLUSH_MS). */
export async function startControlledApp(
  env: Record<string, string> = {},
  { proxied = false }: { proxied?: boolean } = {},
): Promise<ControlledApp> {
  const database = await createTestDatabase({ pgliteDir: true });
  const port = freePort();
  const control = freePort();
  const proxy = proxied ? await startTcpProxy({ host: "127.0.0.1", port }) : null;
  const url = `http://127.0.0.1:${proxy ? proxy.port : port}`;
  const child = spawn(process.execPath, [import.meta.path], {
    cwd: ROOT,
    env: serverEnv({
      ...env,
      ...database.env,
      PORT: String(port),
      PUBLIC_ORIGIN: url,
      QA_CONTROL_PORT: String(control),
    }),
    stdio: ["ignore", "inherit", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    proxy?.stop();
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    await database.drop();
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      proxy?.stop();
      await database.drop();
      throw new Error(`the controlled app exited with ${child.exitCode} before it was healthy`);
    }
    try {
      if ((await fetch(`${url}/api/health`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error("the controlled app was not healthy within 30 s");
    }
    await Bun.sleep(100);
  }
  return {
    url,
    network: proxy ? { cut: () => proxy.cut(), restore: () => proxy.restore() } : undefined,
    async setPremium(email, premium = true) {
      const res = await fetch(`http://127.0.0.1:${control}/premium`, {
        method: "POST",
        body: JSON.stringify({ email, premium }),
      });
      if (res.status !== 200) throw new Error(`setPremium(${email}): ${res.status} ${await res.text()}`);
    },
    async backdateSchedules(email, days) {
      const res = await fetch(`http://127.0.0.1:${control}/backdate`, {
        method: "POST",
        body: JSON.stringify({ email, days }),
      });
      if (res.status !== 200) throw new Error(`backdateSchedules(${email}): ${res.status} ${await res.text()}`);
    },
    stop,
  };
}

if (import.meta.main) await runControlled();
