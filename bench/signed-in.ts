/**
 * Issue 46's rows: `GET /api/today` and `GET /api/supplements` of one signed-in user (20
 * supplements, a year logged, stock on each) at 50 connections with wrk (p50, p99), and the
 * dose-tick write rate with 32 writers at once (each its own user and dose, taken and skipped
 * alternately): ticks per second. One built instance (`bun server.ts`) on a throw-away
 * Postgres 15 cluster that commits as production does (fsync, synchronous commit).
 * Method: docs/benchmarks.md "Signed-in reads and dose ticks".
 *
 *   bun --bun astro build && bun bench/signed-in.ts            (prints the rows)
 *   SIGNED_IN_BENCHMARKS=1 bun bench/signed-in.ts              (also writes BENCHMARKS.md's section)
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pLimit from "p-limit";
import postgres from "postgres";
import { writeSection } from "../tests/support/benchmarks-file";
import { startInstance } from "../tests/support/instances";
import { startPgCluster } from "../tests/support/pg-cluster";
import { luaPrelude, runWrk, type WrkResult } from "./lib";
import { ownAddress, type SessionUser, seedStock, seedSupplementsFor, seedTracking, signUp } from "./seed";

const SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 50;
const WRITERS = 32;

const cluster = await startPgCluster({ durability: "full" });
const url = await cluster.createDatabase();
const app = await startInstance({ DATABASE_URL: url, BETTER_AUTH_SECRET: "bench-secret-0123456789-0123456789-0123" });
const sql = postgres(url, { max: 4, onnotice: () => {} });
try {
  const origin = app.url;
  const reader = await signUp(origin, "reader@bench.example.com", "reader", ownAddress(1));
  const writers = await pLimit(4).map(
    Array.from({ length: WRITERS }, (_, i) => i),
    (i) => signUp(origin, `writer${i}@bench.example.com`, `writer${i}`, ownAddress(10 + i)),
  );
  const ids = await seedSupplementsFor(sql, reader.id, 20, 1);
  await seedTracking(sql, reader.id, ids, 366);
  await seedStock(sql, reader.id);
  const doses = await pLimit(4).map(writers, async (w, i) => {
    const [first] = await seedSupplementsFor(sql, w.id, 1, 100 + i);
    await seedTracking(sql, w.id, [first as number], 1); // its dose is 'anytime' every day
    return first as number;
  });
  await sql`vacuum analyze`;

  const read = async (path: string): Promise<WrkResult> => {
    const script = join(tmpdir(), `signed-in-${crypto.randomUUID()}.lua`);
    const lua = (name: string) => Bun.file(join(import.meta.dir, "lua", name)).text();
    const prelude = luaPrelude({ cookie: reader.cookie, address: reader.address, path });
    writeFileSync(script, [prelude, await lua("session-get.lua"), await lua("report.lua")].join("\n"));
    const check = await fetch(`${origin}${path}`, { headers: { Cookie: reader.cookie } });
    if (check.status !== 200) throw new Error(`GET ${path}: ${check.status}`);
    await runWrk(`${origin}${path}`, script, 2, CONNECTIONS); // warm-up
    return runWrk(`${origin}${path}`, script, SECONDS, CONNECTIONS);
  };

  /** WRITERS loops, each ticking its own user's dose for SECONDS; ticks per second. */
  const ticks = async () => {
    const today = new Date().toISOString().slice(0, 10);
    const tick = (w: SessionUser, dose: number, n: number) =>
      fetch(`${origin}/api/intakes/${today}/${dose}/anytime`, {
        method: "PUT",
        headers: { Cookie: w.cookie, Origin: origin, "Content-Type": "application/json", "X-Forwarded-For": w.address },
        body: JSON.stringify({ status: n % 2 ? "skipped" : "taken" }),
      }).then(async (res) => {
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`tick: ${res.status}`);
      });
    const until = performance.now() + SECONDS * 1000;
    const started = performance.now();
    const counts = await Promise.all(
      writers.map(async (w, i) => {
        let n = 0;
        while (performance.now() < until) await tick(w, doses[i] as number, n++);
        return n;
      }),
    );
    return counts.reduce((a, b) => a + b, 0) / ((performance.now() - started) / 1000);
  };

  const figures = (r: WrkResult) =>
    `${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.errors} errors`;
  const today = await read("/api/today");
  const list = await read("/api/supplements");
  await ticks(); // warm-up
  const rate = await ticks();
  const commit = process.env.BENCH_COMMIT ?? (await Bun.$`git rev-parse --short HEAD`.quiet().nothrow().text()).trim();
  const lines = [
    `- \`GET /api/today\` (20 supplements scheduled, a year logged), ${CONNECTIONS} connections: ${figures(today)}`,
    `- \`GET /api/supplements\` (20, stock on each), ${CONNECTIONS} connections: ${figures(list)}`,
    `- Dose ticks (\`PUT /api/intakes/…\`), ${WRITERS} writers at once, each its own user: ${Math.round(rate)} ticks/s`,
  ];
  console.log(`commit ${commit}\n${lines.join("\n")}`);
  if (process.env.SIGNED_IN_BENCHMARKS === "1") {
    const when = new Date().toISOString().slice(0, 16).replace("T", " ");
    writeSection(
      "bench:signed-in",
      `## Signed-in reads and dose ticks (\`bun bench/signed-in.ts\`)\n\nWritten by \`SIGNED_IN_BENCHMARKS=1 bun bench/signed-in.ts\` at ${commit} on ${when} UTC, ${SECONDS} s per row (method: docs/benchmarks.md).\n\n${lines.join("\n")}`,
    );
  }
} finally {
  await sql.end();
  await app.stop();
  await cluster.destroy();
}
