/**
 * `npm run test:mutation` (docs/mutation-testing.md): StrykerJS once per rules module, each
 * config in stryker/<module>.conf.mjs with the tests that cover it, then a score table. Stryker
 * is installed into stryker/ (its own package.json, `npm ci`) the first time. Exits non-zero
 * when a run fails or a score is below MUTATION_MIN_SCORE (80).
 *
 *   npm run test:mutation                  # every module, in sequence
 *   npm run test:mutation -- security      # only the named modules
 *   MUTATION_CONCURRENCY=2 npm run test:mutation
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const MIN_SCORE = Number(process.env.MUTATION_MIN_SCORE ?? 80);

/** Modules in run order; `source` is the file the config mutates (a missing one is skipped). */
const MODULES: { name: string; source: string }[] = [
  { name: "security", source: "api/lib/security.ts" },
  { name: "client-address", source: "api/lib/client-address.ts" },
  { name: "validation", source: "src/lib/validation.ts" },
  { name: "rate-limit", source: "api/lib/rate-limit.ts" },
  { name: "supplements", source: "api/supplements/routes.ts" },
  { name: "profile", source: "api/profile/routes.ts" },
  { name: "images", source: "api/images/routes.ts" },
  { name: "billing-webhook", source: "api/billing/webhook.ts" },
  { name: "streaks", source: "src/lib/streaks.ts" },
  { name: "export", source: "api/account/export.ts" },
  { name: "deletion", source: "api/account/delete.ts" },
  { name: "counter", source: "api/insights/counter.ts" },
  { name: "offline-sync", source: "src/lib/offline-sync.ts" },
  { name: "tracking-writes", source: "api/tracking/writes.ts" },
  { name: "take-all", source: "api/tracking/routes.ts" },
  { name: "stock", source: "api/supplements/stock.ts" },
  { name: "trash", source: "api/supplements/trash.ts" },
  { name: "reminders", source: "api/reminders/outbox.ts" },
  { name: "reminder-bounds", source: "api/reminders/isolate.ts" },
];

interface Counts {
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  errors: number;
}

interface Row extends Counts {
  name: string;
  seconds: number;
  status: "ok" | "failed" | "skipped";
  note?: string;
}

/** Counts the mutants of a Stryker JSON report (mutation-testing-report-schema). */
function countReport(file: string): Counts {
  const report = JSON.parse(readFileSync(file, "utf8")) as {
    files: Record<string, { mutants: { status: string }[] }>;
  };
  const counts: Counts = { killed: 0, timeout: 0, survived: 0, noCoverage: 0, errors: 0 };
  for (const { mutants } of Object.values(report.files)) {
    for (const { status } of mutants) {
      if (status === "Killed") counts.killed++;
      else if (status === "Timeout") counts.timeout++;
      else if (status === "Survived") counts.survived++;
      else if (status === "NoCoverage") counts.noCoverage++;
      else if (status !== "Ignored") counts.errors++;
    }
  }
  return counts;
}

/** Stryker's mutation score: detected (killed or timed out) over all valid mutants. */
const score = (c: Counts) => {
  const valid = c.killed + c.timeout + c.survived + c.noCoverage;
  return valid === 0 ? Number.NaN : ((c.killed + c.timeout) / valid) * 100;
};

const STRYKER = join(ROOT, "stryker/node_modules/.bin/stryker");
if (!existsSync(STRYKER)) {
  console.log("Installing StrykerJS (stryker/package.json, once)…");
  const install = Bun.spawnSync(["npm", "ci", "--no-audit", "--no-fund"], {
    cwd: join(ROOT, "stryker"),
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (install.exitCode !== 0) process.exit(install.exitCode ?? 1);
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !MODULES.some((m) => m.name === w));
if (unknown.length > 0) {
  console.error(`Unknown module(s): ${unknown.join(", ")}. Known: ${MODULES.map((m) => m.name).join(", ")}`);
  process.exit(2);
}
const selected = wanted.length > 0 ? MODULES.filter((m) => wanted.includes(m.name)) : MODULES;

const rows: Row[] = [];
const started = performance.now();
for (const module of selected) {
  const empty: Counts = { killed: 0, timeout: 0, survived: 0, noCoverage: 0, errors: 0 };
  if (!existsSync(join(ROOT, module.source))) {
    rows.push({ name: module.name, seconds: 0, status: "skipped", note: `${module.source} does not exist`, ...empty });
    continue;
  }
  console.log(`\n=== ${module.name} (${module.source}) ===`);
  const report = join(ROOT, "reports/mutation", `${module.name}.json`);
  const t0 = performance.now();
  const child = Bun.spawn([STRYKER, "run", `stryker/${module.name}.conf.mjs`], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const code = await child.exited;
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0 || !existsSync(report)) {
    rows.push({ name: module.name, seconds, status: "failed", note: `stryker exited with ${code}`, ...empty });
    continue;
  }
  rows.push({ name: module.name, seconds, status: "ok", ...countReport(report) });
}
const totalSeconds = (performance.now() - started) / 1000;

const total = rows.reduce<Counts>(
  (sum, r) => ({
    killed: sum.killed + r.killed,
    timeout: sum.timeout + r.timeout,
    survived: sum.survived + r.survived,
    noCoverage: sum.noCoverage + r.noCoverage,
    errors: sum.errors + r.errors,
  }),
  { killed: 0, timeout: 0, survived: 0, noCoverage: 0, errors: 0 },
);

const fmtTime = (seconds: number) => {
  const whole = Math.round(seconds); // rounded first: 119.6 s is 2m00s, not 1m60s
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
};
const fmtScore = (c: Counts) => (Number.isNaN(score(c)) ? "-" : `${score(c).toFixed(2)}%`);
const header = ["module", "killed", "timeout", "survived", "no cov", "errors", "score", "time"];
const lines = rows.map((r) =>
  r.status === "ok"
    ? [r.name, r.killed, r.timeout, r.survived, r.noCoverage, r.errors, fmtScore(r), fmtTime(r.seconds)]
    : [r.name, "", "", "", "", "", r.status, r.note ?? ""],
);
lines.push([
  "overall",
  total.killed,
  total.timeout,
  total.survived,
  total.noCoverage,
  total.errors,
  fmtScore(total),
  fmtTime(totalSeconds),
]);
const cells = [header, ...lines].map((l) => l.map(String));
const widths = header.map((_, i) => Math.max(...cells.map((l) => (l[i] ?? "").length)));
console.log("\nMutation score per module (reports in reports/mutation/):\n");
for (const [i, l] of cells.entries()) {
  console.log(`| ${l.map((c, j) => c.padEnd(widths[j] ?? 0)).join(" | ")} |`);
  if (i === 0) console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
}

const failed = rows.filter((r) => r.status === "failed" || (r.status === "ok" && !(score(r) >= MIN_SCORE)));
if (failed.length > 0) {
  console.error(`\nBelow ${MIN_SCORE}% or failed: ${failed.map((r) => r.name).join(", ")}`);
  process.exit(1);
}
