/**
 * A throw-away Postgres cluster a test owns and may stop, crash and start again, on 127.0.0.1
 * from port 54500. Needs the server programs (PG_BIN, `pg_config --bindir`, or
 * /usr/lib/postgresql/{15,16,17}/bin); as root it belongs to the user `stacktrack` (PG_OS_USER).
 *
 *   const pg = await startPgCluster();           // clusterUnavailable(): a reason to skip, or null
 *   const url = await pg.createDatabase();
 *   await pg.stop("immediate"); await pg.start(); await pg.destroy();
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { portFree, run } from "./process";

const OS_USER = process.env.PG_OS_USER ?? "stacktrack";
const FIRST_PORT = 54500;
const LAST_PORT = 54599;

/** The folder of the Postgres server programs (initdb, pg_ctl, postgres), or null. */
export function findPgBin(): string | null {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  try {
    candidates.push(execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: "pipe" }).trim());
  } catch {
    // no pg_config
  }
  candidates.push("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin");
  return (
    candidates.find(
      (dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")) && existsSync(join(dir, "postgres")),
    ) ?? null
  );
}

const isRoot = () => userInfo().uid === 0;

function osUser(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync("id", ["-u", OS_USER], { encoding: "utf8", stdio: "pipe" }).trim());
    const gid = Number(execFileSync("id", ["-g", OS_USER], { encoding: "utf8", stdio: "pipe" }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/** As root: the unprivileged user that owns clusters (initdb refuses root), created when missing. */
function ensureOsUser(): { uid: number; gid: number } {
  const found = osUser();
  if (found) return found;
  execFileSync("useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", OS_USER], {
    stdio: "pipe",
  });
  const created = osUser();
  if (!created) throw new Error(`could not create the user '${OS_USER}' to own the cluster`);
  return created;
}

/** Why no cluster can be started here (to skip with), or null when one can. */
export function clusterUnavailable(): string | null {
  if (!findPgBin()) return "no Postgres server binaries (set PG_BIN, or install postgresql-15)";
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

/**
 * How much the cluster may lose in a crash of the machine (never of the process):
 * - `full`: Postgres' defaults (the benchmark's default: what production runs);
 * - `commits`: fsync and full-page writes off, commits still wait for the WAL write, so an
 *   acknowledged commit survives a crash of the server (the fault tests crash it);
 * - `none`: also synchronous_commit off (CI's shared cluster: fastest).
 */
export type Durability = "full" | "commits" | "none";

export interface PgClusterOptions {
  /** A fixed port (fails when taken); default: the first free one from 54500 up. */
  port?: number;
  /** The folder for the cluster (created); default: a new one under the system's tmp. */
  dir?: string;
  /** The superuser's name; default: the cluster's OS user. */
  superuser?: string;
  durability?: Durability;
  /** More `name=value` server settings. */
  settings?: string[];
}

export interface PgCluster {
  port: number;
  dir: string;
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
  /** The postmaster's pid while running. */
  pid(): number | undefined;
  /** The server settings it runs with, as `name=value`. */
  settings: string[];
  /** Stops the server and removes its files. Safe to call twice. */
  destroy(): Promise<void>;
  /** The server's log so far. */
  log(): string;
}

const DURABILITY_SETTINGS: Record<Durability, string[]> = {
  full: [],
  commits: ["fsync=off", "full_page_writes=off"],
  none: ["fsync=off", "full_page_writes=off", "synchronous_commit=off"],
};

/** Starts a throw-away cluster: initdb in its own folder, then the server on 127.0.0.1. */
export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
  const bin = findPgBin();
  if (!bin) throw new Error("no Postgres server binaries (set PG_BIN, or install postgresql-15)");
  const owner = isRoot() ? ensureOsUser() : null;
  let dir: string;
  if (options.dir) {
    mkdirSync(options.dir, { recursive: true });
    dir = options.dir;
  } else dir = mkdtempSync(join(tmpdir(), "stacktrack-pg-"));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, "data");
  const logFile = join(dir, "server.log");
  const superuser = options.superuser ?? (owner ? OS_USER : userInfo().username);
  const asOwner = (cmd: string[]) => (owner ? ["runuser", "-u", OS_USER, "--", ...cmd] : cmd);
  const pgRun = (cmd: string[]) => run(asOwner(cmd), { timeoutMs: 60_000 });

  let port = options.port ?? 0;
  if (port) {
    if (!portFree(port)) throw new Error(`port ${port} is taken`);
  } else {
    for (let p = FIRST_PORT; p <= LAST_PORT && !port; p++) if (portFree(p)) port = p;
    if (!port) throw new Error(`no free port in ${FIRST_PORT}-${LAST_PORT}`);
  }

  await pgRun([
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

  const settings = [
    "max_connections=200",
    ...DURABILITY_SETTINGS[options.durability ?? "commits"],
    ...(options.settings ?? []),
  ];
  const serverOptions = `-h 127.0.0.1 -p ${port} -k ${dir} ${settings.map((s) => `-c ${s}`).join(" ")}`;
  let running = false;
  const start = async () => {
    await pgRun([join(bin, "pg_ctl"), "-D", data, "-l", logFile, "-w", "-t", "60", "-o", serverOptions, "start"]);
    running = true;
  };
  const stop = async (mode: "fast" | "immediate" = "fast") => {
    if (!running) return;
    await pgRun([join(bin, "pg_ctl"), "-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
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
    dir,
    url,
    urlFor,
    settings,
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
    pid() {
      if (!running) return undefined;
      try {
        return Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]) || undefined;
      } catch {
        return undefined;
      }
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

/**
 * The same cluster from the shell, for .ci/run (pg_ctl keeps the server running after
 * this exits):
 *   bun tests/support/pg-cluster.ts start --dir D --port P [--durability none] [--role R]
 *     prints the URL of database `postgres` for role R (created LOGIN CREATEDB, member of
 *     pg_signal_backend), or the superuser
 *   bun tests/support/pg-cluster.ts stop --dir D
 */
async function cli(args: string[]): Promise<void> {
  const [command, ...rest] = args;
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) flags.set(rest[i]?.replace(/^--/, "") ?? "", rest[i + 1] ?? "");
  const dir = flags.get("dir");
  if (!dir || (command !== "start" && command !== "stop")) {
    throw new Error(
      "usage: pg-cluster.ts start --dir D --port P [--durability full|commits|none] [--role R] | stop --dir D",
    );
  }
  if (command === "stop") {
    const bin = findPgBin();
    if (!bin || !existsSync(join(dir, "data", "postmaster.pid"))) return;
    const cmd = [join(bin, "pg_ctl"), "-D", join(dir, "data"), "-m", "fast", "-w", "-t", "60", "stop"];
    await run(isRoot() ? ["runuser", "-u", OS_USER, "--", ...cmd] : cmd);
    return;
  }
  const durability = (flags.get("durability") ?? "commits") as Durability;
  if (!(durability in DURABILITY_SETTINGS)) throw new Error(`unknown durability ${durability}`);
  const cluster = await startPgCluster({ dir, port: Number(flags.get("port") ?? "0") || undefined, durability });
  const role = flags.get("role");
  if (!role) {
    console.log(cluster.url);
    return;
  }
  if (!/^[a-z_][a-z0-9_]*$/.test(role)) throw new Error(`role name ${role} is not a plain identifier`);
  const sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`create role ${role} login createdb`);
    // The suites drop their databases `with (force)`, which ends every backend still on them:
    // an autovacuum worker is no role the test role is a member of, so without this the drop
    // failed now and then ('must be a member of the role whose process is being terminated or
    // member of pg_signal_backend', a CI run's account-delete suite).
    await sql.unsafe(`grant pg_signal_backend to ${role}`);
  } finally {
    await sql.end();
  }
  console.log(`postgres://${role}@127.0.0.1:${cluster.port}/postgres`);
}

if (import.meta.main) {
  cli(process.argv.slice(2)).catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
