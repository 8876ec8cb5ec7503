/**
 * The bench's database: a throw-away Postgres cluster (tests/support/pg-cluster.ts, as the tests
 * and .ci/run start), with pg_stat_statements, and an empty database the app owns.
 */
import postgres from "postgres";
import { findPgBin, startPgCluster } from "../tests/support/pg-cluster";
import { onCleanup, portFree } from "../tests/support/process";

export interface BenchDatabase {
  /** What the app connects with (DATABASE_URL). */
  appUrl: string;
  /** A superuser, for statistics. */
  adminUrl: string;
  serverVersion: string;
  /** The postmaster's pid: its backends are counted for CPU use. */
  postmasterPid: number;
  appRole: string;
  stop(): Promise<void>;
}

const SUPERUSER = "bench_admin";
const APP_ROLE = "stacktrack_bench";
const DB_NAME = "stacktrack_bench";

/** Starts a new throw-away cluster (tests/support/pg-cluster.ts) on 127.0.0.1:`port`, with statement statistics. */
export async function startCluster(port: number, durable: boolean): Promise<BenchDatabase> {
  if (!portFree(port)) throw new Error(`port ${port} is taken: set BENCH_PG_PORT to a free port`);
  if (!findPgBin()) {
    throw new Error("Postgres server binaries not found (apt-get install postgresql-15, or set PG_BIN).");
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
    serverVersion: version,
    postmasterPid: cluster.pid() ?? 0,
    appRole: APP_ROLE,
    async stop() {
      unregister();
      await cluster.destroy();
    },
  };
}
