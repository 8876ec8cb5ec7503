/**
 * The benchmark's database: a throw-away Postgres cluster (as .ci/run starts one; when
 * running as root, initdb runs as the unprivileged OS user `stacktrack`), or a fresh
 * database on the server of BENCH_DATABASE_URL. Either way the bench gets a new, empty
 * database that the app owns, and everything is removed at the end.
 */
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { onCleanup, portFree, run } from "./proc";

export interface BenchDatabase {
  /** What the app connects with (DATABASE_URL). */
  appUrl: string;
  /** A superuser (own cluster) or the given role (BENCH_DATABASE_URL), for statistics. */
  adminUrl: string;
  /** "own cluster on 127.0.0.1:54400" or "BENCH_DATABASE_URL". */
  description: string;
  serverVersion: string;
  /** The postmaster's pid (own cluster only): its backends are counted for CPU use. */
  postmasterPid?: number;
  /** True when pg_stat_statements could be enabled (statement counts per request). */
  statements: boolean;
  settings: string;
  stop(): Promise<void>;
}

const OS_USER = "stacktrack";
const SUPERUSER = "bench_admin";
const APP_ROLE = "stacktrack_bench";
const DB_NAME = "stacktrack_bench";

function pgBin(): string {
  const candidates = [process.env.BENCH_PG_BIN, "/usr/lib/postgresql/15/bin"];
  for (const dir of candidates) {
    if (dir && existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres"))) return dir;
  }
  throw new Error(
    "Postgres 15 server binaries not found in /usr/lib/postgresql/15/bin " +
      "(apt-get install postgresql-15, or set BENCH_PG_BIN, or set BENCH_DATABASE_URL).",
  );
}

const isRoot = () => process.getuid?.() === 0;

async function ensureOsUser(): Promise<void> {
  const probe = await run(["id", "-u", OS_USER], { check: false });
  if (probe.code === 0) return;
  await run(["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", OS_USER]);
}

/** Starts a new cluster in a new folder under /tmp on 127.0.0.1:`port`. */
export async function startCluster(port: number, durable: boolean): Promise<BenchDatabase> {
  if (!(await portFree(port))) throw new Error(`port ${port} is taken: set BENCH_PG_PORT to a free port`);
  const bin = pgBin();
  // Its own folder (not inside the bench's 0700 work folder): the cluster's OS user must reach it.
  const dir = mkdtempSync("/tmp/stacktrack-bench-pg-");
  const asPg = (cmd: string[]) => (isRoot() ? ["runuser", "-u", OS_USER, "--", ...cmd] : cmd);
  const data = join(dir, "data");
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (existsSync(join(data, "postmaster.pid"))) {
      await run(asPg([join(bin, "pg_ctl"), "-D", data, "-m", "fast", "-w", "-t", "30", "stop"]), { check: false });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const unregister = onCleanup("stop Postgres", stop);
  if (isRoot()) {
    // initdb refuses root: the cluster belongs to an unprivileged user, as in .ci/run.
    await ensureOsUser();
    const id = await run(["id", "-u", OS_USER]);
    const gid = await run(["id", "-g", OS_USER]);
    chownSync(dir, Number(id.stdout.trim()), Number(gid.stdout.trim()));
  }
  await run(
    asPg([
      join(bin, "initdb"),
      "-D",
      data,
      "-U",
      SUPERUSER,
      "--auth=trust",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
    ]),
  );
  const settings = [
    "max_connections=200",
    "shared_preload_libraries=pg_stat_statements",
    "pg_stat_statements.track=top",
    ...(durable ? [] : ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]),
  ];
  const options = `-h 127.0.0.1 -p ${port} -k ${dir} ${settings.map((s) => `-c ${s}`).join(" ")}`;
  await run(
    asPg([join(bin, "pg_ctl"), "-D", data, "-l", join(dir, "server.log"), "-w", "-t", "60", "-o", options, "start"]),
  );
  const postmasterPid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);

  const adminBase = `postgres://${SUPERUSER}@127.0.0.1:${port}`;
  const admin = postgres(`${adminBase}/postgres`, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create role ${APP_ROLE} login`);
    await admin.unsafe(`create database ${DB_NAME} owner ${APP_ROLE}`);
  } finally {
    await admin.end();
  }
  const inDb = postgres(`${adminBase}/${DB_NAME}`, { max: 1, onnotice: () => {} });
  let version = "";
  try {
    await inDb`create extension if not exists pg_stat_statements`;
    version = (await inDb`show server_version`)[0]?.server_version ?? "";
  } finally {
    await inDb.end();
  }
  return {
    appUrl: `postgres://${APP_ROLE}@127.0.0.1:${port}/${DB_NAME}`,
    adminUrl: `${adminBase}/${DB_NAME}`,
    description: `own throw-away cluster on 127.0.0.1:${port} (${bin})`,
    serverVersion: version,
    postmasterPid,
    statements: true,
    settings: settings.join(", "),
    async stop() {
      unregister();
      await stop();
    },
  };
}

/** A fresh database on the server of `url` (the role needs CREATEDB); dropped at the end. */
export async function createExternalDatabase(url: string): Promise<BenchDatabase> {
  const name = `stacktrack_bench_${process.pid}_${Date.now().toString(36)}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const target = new URL(url);
  target.pathname = `/${name}`;
  const appUrl = target.toString();
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await sql.unsafe(`drop database if exists ${name} with (force)`);
    } finally {
      await sql.end();
    }
  };
  const unregister = onCleanup("drop the bench database", drop);
  const sql = postgres(appUrl, { max: 1, onnotice: () => {} });
  let statements = false;
  let version = "";
  try {
    version = (await sql`show server_version`)[0]?.server_version ?? "";
    try {
      await sql`create extension if not exists pg_stat_statements`;
      await sql`select count(*) from pg_stat_statements`;
      statements = true;
    } catch {
      // not preloaded or not permitted: no statement counts
    }
  } finally {
    await sql.end();
  }
  return {
    appUrl,
    adminUrl: appUrl,
    description: `database ${name} on the server of BENCH_DATABASE_URL (${target.host})`,
    serverVersion: version,
    statements,
    settings: "as configured on that server",
    async stop() {
      unregister();
      await drop();
    },
  };
}
