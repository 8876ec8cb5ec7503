/**
 * A throw-away Postgres cluster that a test owns and may stop, crash and start again
 * (the fault tests), on 127.0.0.1 at a port from 54500 up. Needs the Postgres server
 * binaries (PG_BIN, `pg_config --bindir`, or /usr/lib/postgresql/{15,16,17}/bin).
 * `initdb` refuses root, so as root the cluster belongs to the unprivileged user
 * `stacktrack` (PG_OS_USER), as in .ci/run.
 *
 *   const why = clusterUnavailable();        // a reason to skip, or null
 *   const pg = await startPgCluster();
 *   const url = await pg.createDatabase();   // postgres://…/st_xxx
 *   await pg.stop("immediate");              // a crash
 *   await pg.start();                        // back on the same port and data
 *   await pg.destroy();
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

const OS_USER = process.env.PG_OS_USER ?? "stacktrack";
const FIRST_PORT = 54500;
const LAST_PORT = 54599;

function findBin(): string | null {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  try {
    candidates.push(execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim());
  } catch {
    // no pg_config
  }
  candidates.push("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin");
  return candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) ?? null;
}

const isRoot = () => userInfo().uid === 0;

function osUser(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync("id", ["-u", OS_USER], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", OS_USER], { encoding: "utf8" }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/** Why no cluster can be started here (to skip with), or null when one can. */
export function clusterUnavailable(): string | null {
  if (!findBin()) return "no Postgres server binaries (set PG_BIN, or install postgresql-15)";
  if (isRoot() && !osUser())
    return `running as root and there is no user '${OS_USER}' to own the cluster (initdb refuses root)`;
  return null;
}

/**
 * For `describe.skipIf(...)`: true (skip, saying why) when no cluster can be started,
 * except in CI, where that is a failure rather than a silent skip.
 */
export function skipWithoutCluster(what: string): boolean {
  const why = clusterUnavailable();
  if (!why) return false;
  if (process.env.CI) throw new Error(`${what} needs a Postgres cluster it can restart, and cannot start one: ${why}`);
  console.warn(`SKIPPED: ${what}: ${why}`);
  return true;
}

async function portFree(port: number): Promise<boolean> {
  try {
    const probe = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
    probe.stop(true);
    return true;
  } catch {
    return false;
  }
}

export interface PgCluster {
  port: number;
  /** The server URL as superuser, database `postgres`. */
  url: string;
  /** A URL to database `name` on this cluster. */
  urlFor(name: string): string;
  /** Creates a fresh empty database and returns its URL. */
  createDatabase(): Promise<string>;
  /** `fast` (clean shutdown, clients disconnected) or `immediate` (a crash). */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  start(): Promise<void>;
  readonly running: boolean;
  /** Stops the server and removes its files. Safe to call twice. */
  destroy(): Promise<void>;
  /** The server's log so far. */
  log(): string;
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = findBin();
  if (!bin) throw new Error("no Postgres server binaries");
  const owner = isRoot() ? osUser() : null;
  if (isRoot() && !owner) throw new Error(`no user ${OS_USER} to own the cluster`);
  const dir = mkdtempSync(join(tmpdir(), "stacktrack-pg-"));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, "data");
  const logFile = join(dir, "server.log");
  const superuser = owner ? OS_USER : userInfo().username;

  const run = async (args: string[], timeoutMs = 60_000) => {
    const cmd = owner ? ["runuser", "-u", OS_USER, "--", ...args] : args;
    const proc = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    clearTimeout(timer);
    if (code !== 0) throw new Error(`${args.join(" ")} exited with ${code}:\n${out}\n${err}`);
    return out;
  };

  await run([
    join(bin, "initdb"),
    "-D",
    data,
    "-U",
    superuser,
    "--auth=trust",
    "-E",
    "UTF8",
    "--locale=C.UTF-8",
    "--no-sync",
  ]);

  let port = 0;
  for (let p = FIRST_PORT; p <= LAST_PORT; p++) {
    if (await portFree(p)) {
      port = p;
      break;
    }
  }
  if (!port) throw new Error(`no free port in ${FIRST_PORT}-${LAST_PORT}`);

  let running = false;
  const options = [
    `-h 127.0.0.1 -p ${port} -k ${dir}`,
    // Commits stay synchronous: the fault tests crash this server and count on every
    // acknowledged commit being in the WAL (fsync=off is safe here, the OS does not crash).
    "-c fsync=off -c full_page_writes=off",
    "-c max_connections=200 -c shared_buffers=64MB",
  ].join(" ");

  const start = async () => {
    await run([join(bin, "pg_ctl"), "-D", data, "-l", logFile, "-w", "-t", "60", "-o", options, "start"]);
    running = true;
  };
  const stop = async (mode: "fast" | "immediate" = "fast") => {
    if (!running) return;
    await run([join(bin, "pg_ctl"), "-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
    running = false;
  };

  await start();
  const url = `postgres://${superuser}@127.0.0.1:${port}/postgres`;
  const urlFor = (name: string) => {
    const u = new URL(url);
    u.pathname = `/${name}`;
    return u.toString();
  };
  let destroyed = false;
  return {
    port,
    url,
    urlFor,
    async createDatabase() {
      const name = `st_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
      const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
      try {
        await sql.unsafe(`create database "${name}"`);
      } finally {
        await sql.end({ timeout: 5 });
      }
      return urlFor(name);
    },
    stop,
    start,
    get running() {
      return running;
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      try {
        await stop("immediate");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    log() {
      try {
        return readFileSync(logFile, "utf8");
      } catch {
        return "";
      }
    },
  };
}

/**
 * A fresh Postgres database for tests that need a real server (many instances): on
 * TEST_DATABASE_URL's server when set, else on a cluster of the test's own.
 */
export async function postgresDatabase(): Promise<{ url: string; cluster?: PgCluster; release(): Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) {
    const { createTestDatabase } = await import("./db");
    const database = await createTestDatabase();
    return { url: database.env.DATABASE_URL as string, release: () => database.drop() };
  }
  const cluster = await startPgCluster();
  return { url: await cluster.createDatabase(), cluster, release: () => cluster.destroy() };
}

/** For describe.skipIf: true (skip, saying why) when neither TEST_DATABASE_URL nor a cluster of our own is possible. */
export function skipWithoutPostgres(what: string): boolean {
  if (process.env.TEST_DATABASE_URL) return false;
  return skipWithoutCluster(what);
}
