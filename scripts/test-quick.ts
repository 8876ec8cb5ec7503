/**
 * `npm run test:quick`: the edit loop (issue 46). Typecheck (tsc only; `astro check` is left to
 * `npm test`), lint, the import graph, then the unit and API tests without the suites that
 * start several servers, restart Postgres or run load: those are named in SLOW, and `npm test`
 * (which CI runs) still runs everything. docs/testing.md gives both times.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");

/** Load, faults, shutdown, several instances, built-server start-ups: minutes, not seconds. */
export const SLOW = new Set([
  "api/load.test.ts",
  "api/faults.test.ts",
  "api/pool-recovery.test.ts",
  "api/shutdown.test.ts",
  "api/reminders-faults.test.ts",
  "api/reminders-instances.test.ts",
  "api/tracking-instances.test.ts",
  "api/instances.test.ts",
  "api/go-instances.test.ts",
  "api/go-links-instances.test.ts",
  "api/own-drops.test.ts",
  "api/pglite-template.test.ts",
  "api/data-dir-lock.test.ts",
  "api/hostile-input.test.ts",
  "api/route-limits.test.ts",
]);

const tests = ["unit", "api"].flatMap((dir) =>
  readdirSync(join(ROOT, "tests", dir))
    .filter((f) => f.endsWith(".test.ts") && !SLOW.has(`${dir}/${f}`))
    .map((f) => `tests/${dir}/${f}`),
);

const steps: [string, string[]][] = [
  ["typecheck", ["bun", "--bun", "tsc", "--noEmit", "-p", "tsconfig.json"]],
  ["lint", ["bun", "run", "lint"]],
  ["import graph", ["bun", "run", "check:imports"]],
];

const started = performance.now();
for (const [name, command] of steps) {
  console.log(`\n== ${name}`);
  const { exitCode } = Bun.spawnSync(command, { cwd: ROOT, stdio: ["inherit", "inherit", "inherit"] });
  if (exitCode !== 0) {
    console.error(`test:quick: ${name} failed (exit ${exitCode})`);
    process.exit(exitCode ?? 1);
  }
}

// The test files in SHARDS processes at once (each file has its own database, so they do not
// meet); each shard's output is printed whole when it ends, so lines do not interleave.
const SHARDS = Math.max(1, Number(process.env.TEST_QUICK_SHARDS ?? 2));
console.log(`\n== unit and API tests: ${tests.length} files in ${SHARDS} processes`);
const shards = Array.from({ length: SHARDS }, (_, n) => tests.filter((_, i) => i % SHARDS === n));
const codes = await Promise.all(
  shards.map(async (files, n) => {
    const child = Bun.spawn(["bun", "test", "--timeout", "20000", ...files], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    console.log(`\n-- shard ${n + 1} of ${SHARDS} (exit ${code})\n${out}${err}`);
    return code;
  }),
);
const failed = codes.filter((code) => code !== 0).length;
const seconds = ((performance.now() - started) / 1000).toFixed(0);
if (failed > 0) {
  console.error(`test:quick: ${failed} of ${SHARDS} test shards failed (${seconds} s)`);
  process.exit(1);
}
console.log(
  `\ntest:quick passed in ${seconds} s (${tests.length} test files; npm test runs them all and the slow ones)`,
);
