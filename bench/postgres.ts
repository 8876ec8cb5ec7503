/**
 * The benchmark's database: a throw-away Postgres cluster (tests/support/pg-cluster.ts, the
 * one that the tests and .ci/run start too), or a fresh
 * database on the server of BENCH_DATABASE_URL. Either way the bench gets a new, empty
 * database that the app owns, and everything is removed at the end.
 */
import postgres from "postgres";
import { findPgBin, startPgCluster } from "../tests/support/pg-cluster";
import { onCleanup, portFree } from "../tests/support/process";

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

const SUPERUSER = "bench_admin";
const APP_ROLE = "stacktrack_bench";
const DB_NAME = "stacktrack_bench";

/** Starts a new throw-away cluster (tests/support/pg-cluster.ts) on 127.0.0.1:`port`, with statement statistics. */
export async function startCluster(port: number, durable: boolean): Promise<BenchDatabase> {
  if (!portFree(port)) throw new Error(`port ${port} is taken: set BENCH_PG_PORT to a free port`);
  if (!findPgBin()) {
    throw new Error(
      "Postgres server binaries not found (apt-get install postgresql-15, or set PG_BIN, or set BENCH_DATABASE_URL).",
    );
  }
  const cluster = await startPgCluster({
    port,
    superuser: SUPERUSER,
    // "none" as in CI, unless the bench measures what production runs (the default).
    durability: durable ? "full" : "none",
    settings: ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=top"],
  });
  const unregister = onCleanup("stop Postgres", () => cluster.destroy());
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create role ${APP_ROLE} login`);
    await admin.unsafe(`create database ${DB_NAME} owner ${APP_ROLE}`);
  } finally {
    await admin.end();
  }
  const inDb = postgres(cluster.urlFor(DB_NAME), { max: 1, onnotice: () => {} });
  let version = "";
  try {
    await inDb`create extension if not exists pg_stat_statements`;
    version = (await inDb`show server_version`)[0]?.server_version ?? "";
  } finally {
    await inDb.end();
  }
  return {
    appUrl: `postgres://${APP_ROLE}@127.0.0.1:${port}/${DB_NAME}`,
    adminUrl: cluster.urlFor(DB_NAME),
    description: `own throw-away cluster on 127.0.0.1:${port} (${findPgBin()})`,
    serverVersion: version,
    postmasterPid: cluster.pid(),
    statements: true,
    settings: cluster.settings.join(", "),
    async stop() {
      unregister();
      await cluster.destroy();
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
