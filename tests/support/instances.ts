/**
 * Built app instances (`bun server.ts`) for the reliability suites: on ports 4500-4599,
 * on a database the test can also reach directly, restartable on the same port.
 *
 *   const db = await sharedDatabase("faults");        // Postgres (TEST_DATABASE_URL or own cluster) or PGlite
 *   const a = await startInstance({ ...db.env });
 *   await a.kill("SIGKILL"); await a.restart();
 *   await db.withDb((db) => db.select().from(users));  // PGlite: only while no instance holds it
 */
import { expect } from "bun:test";
import type { Database } from "../../db/client";
import { openDatabase } from "../../db/client";
import { createTestDatabase, type TestDatabase, usingPostgres } from "./db";
import { portFree, type ServerProcess, spawnServer, waitUntilHealthy } from "./process";

const FIRST_PORT = 4500;
const LAST_PORT = 4599;
const taken = new Set<number>();

/** A free port in 4500-4599, not handed out before by this process. */
export function allocatePort(): number {
  const start = FIRST_PORT + Math.floor(Math.random() * (LAST_PORT - FIRST_PORT + 1));
  for (let i = 0; i <= LAST_PORT - FIRST_PORT; i++) {
    const port = FIRST_PORT + ((start - FIRST_PORT + i) % (LAST_PORT - FIRST_PORT + 1));
    if (!taken.has(port) && portFree(port)) {
      taken.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${FIRST_PORT}-${LAST_PORT}`);
}

export interface Instance {
  url: string;
  port: number;
  env: Record<string, string>;
  /** The current process (a new one after restart()). */
  server: ServerProcess;
  pid(): number;
  /** Sends a signal and waits for the exit; resolves with the exit code (null when signalled). */
  kill(signal: "SIGKILL" | "SIGTERM"): Promise<number | null>;
  /** Starts the server again on the same port and environment; waits until healthy. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** Peak resident memory so far (VmHWM), in bytes; null where /proc is not available. */
  peakRss(): Promise<number | null>;
  rss(): Promise<number | null>;
}

async function procStatus(pid: number, field: "VmHWM" | "VmRSS"): Promise<number | null> {
  try {
    const text = await Bun.file(`/proc/${pid}/status`).text();
    const kb = text.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Starts the built server. `env` adds to (and overrides) the test defaults of
 * spawnServer (NODE_ENV=test, LOG_LEVEL=warn, RATE_LIMIT=off, HOST=127.0.0.1).
 * PUBLIC_ORIGIN defaults to the instance's own URL.
 */
export async function startInstance(
  env: Record<string, string>,
  options: { timeoutMs?: number } = {},
): Promise<Instance> {
  const port = allocatePort();
  const url = `http://127.0.0.1:${port}`;
  const fullEnv = { PUBLIC_ORIGIN: url, ...env, PORT: String(port) };
  const launch = async () => {
    const server = spawnServer(fullEnv);
    try {
      await waitUntilHealthy(server, options.timeoutMs ?? 30_000);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  };
  const instance: Instance = {
    url,
    port,
    env: fullEnv,
    server: await launch(),
    pid: () => instance.server.proc.pid,
    async kill(signal) {
      const { proc } = instance.server;
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await instance.server.exited;
      return proc.exitCode;
    },
    async restart() {
      const { proc } = instance.server;
      if (proc.exitCode === null && proc.signalCode === null)
        throw new Error("restart(): the instance is still running");
      instance.server = await launch();
    },
    async stop() {
      const { proc } = instance.server;
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const done = await Promise.race([instance.server.exited.then(() => true), Bun.sleep(20_000).then(() => false)]);
      if (!done) {
        proc.kill("SIGKILL");
        await instance.server.exited;
      }
    },
    peakRss: () => procStatus(instance.server.proc.pid, "VmHWM"),
    rss: () => procStatus(instance.server.proc.pid, "VmRSS"),
  };
  return instance;
}

/**
 * A database for spawned servers that the test can also open: a fresh Postgres
 * database (TEST_DATABASE_URL, or `url` when given), or a fresh PGlite folder. A PGlite
 * folder admits one process at a time (the app locks it), so `withDb` opens it only
 * while no instance runs on it.
 */
export interface SharedDatabase {
  env: Record<string, string>;
  kind: "postgres" | "pglite";
  /** Runs `fn` on a connection of the test's own (opened and closed around it). */
  withDb<T>(fn: (db: Database["db"]) => Promise<T>): Promise<T>;
  drop(): Promise<void>;
}

export async function sharedDatabase(options: { url?: string } = {}): Promise<SharedDatabase> {
  let inner: TestDatabase;
  if (options.url) {
    inner = { env: { DATABASE_URL: options.url }, drop: async () => {} };
  } else {
    inner = await createTestDatabase({ pgliteDir: true });
  }
  const kind = inner.env.DATABASE_URL ? "postgres" : "pglite";
  let pg: Database | undefined;
  return {
    env: inner.env,
    kind,
    async withDb(fn) {
      if (kind === "postgres") {
        pg ??= await openDatabase({ url: inner.env.DATABASE_URL, dataDir: ":memory:", poolSize: 4 });
        return fn(pg.db);
      }
      const database = await openDatabase({ dataDir: inner.env.DATA_DIR as string });
      try {
        return await fn(database.db);
      } finally {
        await database.close();
      }
    },
    async drop() {
      await pg?.close();
      pg = undefined;
      await inner.drop();
    },
  };
}

export { usingPostgres };

/** Reads a JSON body whatever the status; null when the body is not JSON. */
export async function jsonOf(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A user signed up and given `username` over HTTP on a built server (`base`), with its session cookie. */
export interface InstanceClient {
  cookie: string;
  username: string;
}

export async function signUpOn(base: string, username: string, name: string): Promise<InstanceClient> {
  const res = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { origin: base, "content-type": "application/json" },
    body: JSON.stringify({ email: `${username}@example.com`, password: "correct horse battery", name }),
  });
  expect(res.status).toBe(200);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const put = await fetch(`${base}/api/profile`, {
    method: "PUT",
    headers: { origin: base, "content-type": "application/json", cookie },
    body: JSON.stringify({ username }),
  });
  expect(put.status).toBe(200);
  return { cookie, username };
}
