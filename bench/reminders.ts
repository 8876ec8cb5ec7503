/**
 * Issue 39's scale run: 10,000 users due at the same 08:00 (UTC), pushed by one and then two
 * built instances on one Postgres to the local push service (the test double, which checks and
 * decrypts every message; its own process at `nice 10`, as in production it is another
 * machine): seconds until it has them all, duplicates, each process's CPU; with one instance,
 * a public page's figures (wrk) idle and during delivery. Method and figures: docs/reminders.md.
 *
 *   bun --bun astro build && TEST_DATABASE_URL=postgres://… bun bench/reminders.ts [users]
 *
 * With REMINDERS_BENCHMARKS=1 it also writes its section of BENCHMARKS.md.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "../db/client";
import type { TestSubscription } from "../tests/fakes/push-service";
import { writeSection } from "../tests/support/benchmarks-file";
import { startInstance } from "../tests/support/instances";
import { postgresDatabase } from "../tests/support/pg-cluster";
import { seedReminderUsers } from "../tests/support/reminder-users";
import { type CpuSnapshot, coresBetween, cpuSnapshot, runWrk, startService, type WrkResult } from "./lib";

const USERS = Number(process.argv[2] ?? 10_000);
const EIGHT = Date.parse("2026-06-01T08:00:00Z");
const PAGE = "benchreminders";
const figures = (r: WrkResult) =>
  `${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.errors} errors`;
type Count = { received: number; distinct: number; refused: number };

/** The push service double, its own process at a low priority; `ask` reaches its /_fake/ paths. */
async function startDouble() {
  const log = join(tmpdir(), `push-double-${crypto.randomUUID()}.log`);
  const cmd = ["nice", "-n", "10", process.execPath, "tests/fakes/push-service.ts"];
  const service = startService(cmd, { env: process.env as Record<string, string>, logFile: log });
  while (!readFileSync(log, "utf8").includes("\n")) await Bun.sleep(50);
  const { url, caFile, pushHosts } = JSON.parse(readFileSync(log, "utf8").split("\n")[0] ?? "");
  const ask = async <T>(path: string, method = "GET") =>
    (await (await fetch(`${url}/_fake/${path}`, { method, tls: { rejectUnauthorized: false } })).json()) as T;
  const stop = () => service.stop().finally(() => rmSync(log, { force: true }));
  return {
    pid: service.pid,
    env: { NODE_EXTRA_CA_CERTS: caFile as string, PUSH_HOSTS: pushHosts as string },
    ask,
    stop,
  };
}

async function run(instanceCount: number, withPage: boolean) {
  const [pg, push] = await Promise.all([postgresDatabase(), startDouble()]);
  const clockFile = join(tmpdir(), `reminder-bench-clock-${crypto.randomUUID()}`);
  writeFileSync(clockFile, String(EIGHT - 60_000));
  const direct = await openDatabase({ url: pg.url, dataDir: ":memory:", poolSize: 4 });
  try {
    const subscriptions = await push.ask<TestSubscription[]>(`subscription?n=${USERS}`, "POST");
    const seeded = await seedReminderUsers(direct.db, {
      count: USERS,
      zones: ["UTC"],
      since: new Date(EIGHT - 3_600_000),
      validFrom: "2026-05-01",
      subscription: () => subscriptions.pop() as TestSubscription,
      email: () => false,
      followUpMinutes: () => 0,
    });
    // One of them has a public page: its figures idle and while the reminders go out.
    await direct.db.execute(sql`update users set username = ${PAGE} where id = ${seeded[0]?.id ?? ""}`);
    const [backend] = (await direct.db.execute(sql`select pg_backend_pid() as pid`)) as unknown as { pid: number }[];
    const postmaster = Number(readFileSync(`/proc/${backend?.pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
    const env = {
      DATABASE_URL: pg.url,
      BETTER_AUTH_SECRET: "one-secret-shared-by-every-instance-0123456789",
      TEST_CLOCK_FILE: clockFile,
      REMINDER_TICK_MS: "1000",
      ...push.env,
    };
    const instances = await Promise.all(Array.from({ length: instanceCount }, () => startInstance(env)));
    const wrkPage = () => runWrk(`${instances[0]?.url}/${PAGE}`, "bench/lua/report.lua", 8, 50);
    const snapshot = () => instances.map((i) => cpuSnapshot({ app: i.pid(), ceiling: push.pid, postmaster }));
    try {
      const idle = withPage ? await wrkPage() : undefined;
      const cpuBefore = snapshot();
      const started = Date.now();
      const clock = setInterval(() => writeFileSync(clockFile, String(EIGHT + (Date.now() - started))), 50);
      writeFileSync(clockFile, String(EIGHT));
      const during = withPage ? wrkPage() : undefined;
      let count: Count = { received: 0, distinct: 0, refused: 0 };
      while (count.received < seeded.length && Date.now() - started < 300_000)
        count = await Bun.sleep(250).then(() => push.ask<Count>("count"));
      const seconds = (Date.now() - started) / 1000;
      const cores = snapshot().map((after, i) => coresBetween(cpuBefore[i] as CpuSnapshot, after));
      await Bun.sleep(3000); // a duplicate would arrive now
      clearInterval(clock);
      count = await push.ask<Count>("count");
      const app = cores.reduce((sum, c) => sum + c.app, 0);
      const { ceiling, postgres, machine } = cores[0] as (typeof cores)[number];
      const of = (c: number) => `${c.toFixed(2)} (${((c * seconds * 1000) / seeded.length).toFixed(2)})`;
      return [
        `all delivered in ${seconds.toFixed(1)} s (${count.received} pushes, ${count.distinct} distinct, ${count.refused} refused; duplicates ${count.received - count.distinct})`,
        `cores busy during delivery (CPU ms per push): instances ${of(app)}${withPage ? " with the page's" : ""}, push double ${of(ceiling)}, Postgres ${of(postgres)}, whole machine ${machine.toFixed(2)}`,
        ...(idle && during ? [`public page idle: ${figures(idle)}; during delivery: ${figures(await during)}`] : []),
      ];
    } finally {
      await Promise.all(instances.map((i) => i.stop()));
    }
  } finally {
    await direct.close();
    await push.stop();
    await pg.release();
    rmSync(clockFile, { force: true });
  }
}

const report: string[] = [];
for (const n of [1, 2]) {
  const [head, ...rest] = await run(n, n === 1);
  report.push(`- ${USERS.toLocaleString("en")} users due at 08:00, ${n} instance${n === 1 ? "" : "s"}: ${head}`);
  report.push(...rest.map((line) => `  - ${line}`));
}
console.log(report.join("\n"));
if (process.env.REMINDERS_BENCHMARKS === "1") {
  const when = new Date().toISOString().slice(0, 16).replace("T", " ");
  writeSection(
    "bench:reminders",
    `## Reminders going out (\`bun bench/reminders.ts\`)\n\nWritten by \`REMINDERS_BENCHMARKS=1 bun bench/reminders.ts\` on ${when} UTC (method: docs/reminders.md).\n\n${report.join("\n")}`,
  );
}
