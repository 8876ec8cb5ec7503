/**
 * The bench's database: a throw-away Postgres cluster (tests/support/pg-cluster.ts, as the tests
 * and .ci/run start), with pg_stat_statements, and an empty database the app owns.
 */
import postgres from "postgres";
import { startPgCluster } from "../tests/support/pg-cluster";
import { onCleanup } from "../tests/support/process";

/** The app's role, and the database it owns. */
const APP_ROLE = "stacktrack_bench";

export type BenchDatabase = Awaited<ReturnType<typeof startCluster>>;

/** Starts a new throw-away cluster on 127.0.0.1:`port`, with statement statistics. */
export async function startCluster(port: number) {
  const cluster = await startPgCluster({
    port,
    superuser: "bench_admin",
    durability: "full", // what production runs
    settings: ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=top"],
  });
  const unregister = onCleanup("stop Postgres", () => cluster.destroy());
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create role ${APP_ROLE} login`);
    await admin.unsafe(`create database ${APP_ROLE} owner ${APP_ROLE}`);
  } finally {
    await admin.end();
  }
  const inDb = postgres(cluster.urlFor(APP_ROLE), { max: 1, onnotice: () => {} });
  let serverVersion = "";
  try {
    await inDb`create extension if not exists pg_stat_statements`;
    serverVersion = (await inDb`show server_version`)[0]?.server_version ?? "";
  } finally {
    await inDb.end();
  }
  return {
    /** What the app connects with (DATABASE_URL). */
    appUrl: `postgres://${APP_ROLE}@127.0.0.1:${port}/${APP_ROLE}`,
    /** A superuser, for statistics. */
    adminUrl: cluster.urlFor(APP_ROLE),
    serverVersion,
    /** The postmaster's pid: its backends are counted for CPU use. */
    postmasterPid: cluster.pid() ?? 0,
    appRole: APP_ROLE,
    async stop() {
      unregister();
      await cluster.destroy();
    },
  };
}
