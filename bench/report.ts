/** The one report writer: BENCHMARKS.md from a run's numbers (bench/run.ts). */
import { median } from "./lib";

type Numbers<K extends string> = Record<K, number>;

/**
 * `shares`: each round's req/s as a % of the same round's ceiling. Cores busy (1.0 = one core):
 * the app's (the ceiling's on its row), Postgres', the whole machine's.
 */
export type ScenarioResult = { id: string; label: string; runs: number[]; shares: number[] } & Numbers<
  "rps" | "p50" | "p99" | "errors" | "bytes" | "appCores" | "postgresCores" | "machineCores"
>;

export type InstallSize = Numbers<"packages" | "mb" | "seconds" | "engineWarnings">;

export interface Report {
  date: string;
  minutes: number;
  commit: string;
  machine: string;
  versions: string;
  /** Cores busy on the machine in the second before the warm-up and each round (nothing of the bench running). */
  idleBefore: number[];
  config: { seconds: number; runs: number; warmup: number; connections: number; users: number; only: string[] };
  scenarios: ScenarioResult[];
  statements: { label: string; perRequest: number[]; median: number }[];
  scale?: { cores: Numbers<"app" | "postgres" | "machine"> } & Numbers<
    "profiles" | "zipfS" | "seconds" | "rps" | "p99" | "requests" | "errors" | "hitRate"
  > &
    Numbers<"statementsPerMiss" | "missAppCpuMs" | "hitAppCpuMs">;
  cardFirstRenderMs: number;
  /** RSS at rest: 10 s after the bench's last request (the target's reading). */
  rssEnd: number;
  rssPeak: number;
  /** RSS after each phase, in order: [phase, bytes]. */
  rssPhases: [string, number][];
  install?: InstallSize;
}

const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "—");
const fix = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "—");
const mb = (bytes: number) => `${fix(bytes / 2 ** 20, 0)} MB`;
const verdict = (ok: boolean, margin: string) => (ok ? `met (${margin})` : `**missed** (${margin})`);

export function renderReport(r: Report): string {
  const by = new Map(r.scenarios.map((s) => [s.id, s]));
  /** The median over rounds of the scenario's share of that round's ceiling (the ceiling moves with the machine's load). */
  const share = (id: string) => median(by.get(id)?.shares ?? []);
  const targets: string[][] = [];
  const atLeast = (what: string, id: string, min: number) => {
    const pct = share(id);
    if (!by.has(id)) return;
    const margin = `${pct >= min ? "+" : "−"}${fix(Math.abs(pct - min), 1)} points`;
    targets.push([what, `≥ ${min}% of the ceiling`, `${fix(pct, 1)}%`, verdict(pct >= min, margin)]);
  };
  /** A row for "≤ limit": `show` formats a value of the unit (ms, points, bytes). */
  const atMost = (what: string, value: number, limit: number, show: (x: number) => string) => {
    const ok = value <= limit;
    targets.push([
      what,
      `≤ ${show(limit)}`,
      show(value),
      verdict(ok, `${show(Math.abs(limit - value))} ${ok ? "to spare" : "over"}`),
    ]);
  };
  atLeast("Public profile page, views counted (browser User-Agent)", "profile-counted", 25);
  const counted = by.get("profile-counted");
  if (counted) atMost("… its p99 at 50 connections", counted.p99, 10, (x) => `${fix(x)} ms`);
  if (counted && by.has("profile-crawler")) {
    const crawler = by.get("profile-crawler")?.shares ?? [];
    const cost = median(counted.shares.map((x, i) => (crawler[i] ?? Number.NaN) - x));
    atMost("Counting's cost: the counted page against the crawler's", cost, 5, (x) => `${fix(x, 1)} points`);
  }
  for (const [id, what] of [
    ["api-profile", "`GET /api/profile/{name}`"],
    ["avatar", "Avatar"],
    ["card", "Social card"],
    ["go", "`/go/{id}`"],
    ["today", "`GET /api/today`"],
  ] as const)
    atLeast(what, id, 20);
  const history = by.get("history");
  if (history) {
    const statements = r.statements.find((s) => s.label.startsWith("`GET /api/history`"))?.median ?? Number.NaN;
    const ok = history.rps >= 1165 && statements === 1;
    targets.push([
      "`GET /api/history`, 366 days, a year of doses (issue 36)",
      "≥ 1,165 req/s (5× the 233 before), 1 statement",
      `${int(history.rps)} req/s, ${fix(statements, 0)} statement(s)`,
      verdict(ok, `${fix(history.rps / 233, 1)}× the 233`),
    ]);
  }
  const full = r.config.only.length === 0;
  if (full) {
    atMost(
      "Server RSS at the end of the whole bench (at rest, 10 s after its last request)",
      r.rssEnd,
      300 * 2 ** 20,
      mb,
    );
    atMost("… its peak (VmHWM)", r.rssPeak, 450 * 2 ** 20, mb);
    const loaded = r.rssPhases.find(([phase]) => phase.startsWith("right after"))?.[1] ?? Number.NaN;
    targets.push([
      "… right after its last request (the scale run's garbage not yet collected)",
      "printed",
      mb(loaded),
      "printed",
    ]);
  }
  const printed = (what: string, value: string) => targets.push([what, "printed", value, "printed"]);
  if (r.scale) {
    const s = r.scale;
    printed(
      `${int(s.profiles)} profiles, Zipf visits (s = ${s.zipfS})`,
      `${int(s.rps)} req/s, p99 ${fix(s.p99)} ms, hit rate ${fix(s.hitRate * 100, 1)}%; a miss: ${fix(s.statementsPerMiss, 0)} statement(s), ${fix(s.missAppCpuMs)} ms of app CPU (a hit: ${fix(s.hitAppCpuMs)} ms)`,
    );
  }
  const i = r.install;
  if (i)
    printed(
      "`npm install` on a fresh clone",
      `${int(i.packages)} packages, ${int(i.mb)} MB, ${int(i.seconds)} s (${i.engineWarnings} engine warnings)`,
    );
  const table = (head: string[], rows: string[][]) =>
    [
      `| ${head.join(" | ")} |`,
      `|${head.map(() => "---").join("|")}|`,
      ...rows.map((row) => `| ${row.join(" | ")} |`),
    ].join("\n");
  const idle = r.idleBefore.map((x) => fix(x)).join(", ");
  return `# StackTrack benchmarks

Written by \`npm run bench\` (bench/run.ts) on ${r.date.slice(0, 16).replace("T", " ")} UTC at commit ${r.commit}, in ${fix(r.minutes, 1)} minutes${full ? "" : ` (only: ${r.config.only.join(", ")})`}. Do not edit by hand.
How it measures: [docs/benchmarks.md](docs/benchmarks.md).

- Machine: ${r.machine}, shared by wrk, the app and Postgres. ${r.versions}.
- Other load: the machine's busy cores in the second before the warm-up and each round, nothing of the bench running: ${idle}.${median(r.idleBefore) > 0.5 ? " **Other work kept the machine busy during this run: its rates, latencies and CPU figures are those of a crowded machine, noisy from round to round, and the targets' verdicts are not a measure of the app.**" : ""}
- The app as \`npm start\` ships it: built, \`bun server.ts\`, default settings (\`NODE_ENV=production\`, \`TRUST_PROXY=true\` as behind Caddy), on Postgres with ${int(r.config.users)} seeded profiles of 20 supplements and an avatar each.
- wrk, ${r.config.connections} connections, 1 thread; after a ${r.config.warmup} s warm-up of each, ${r.config.runs} rounds of ${r.config.seconds} s over every scenario; **medians** of the rounds.

## Targets (issue 37)

${table(["what", "target", "measured", "verdict"], targets)}

## Scenarios

Cores: 1.00 = one core busy (the machine has ${r.machine.split(" ")[0]}); "app" is the ceiling's process on its row.

${table(
  "scenario|req/s|% of ceiling|p50 ms|p99 ms|errors|bytes|rounds (req/s)|cores: app|Postgres|machine".split("|"),
  r.scenarios.map((s) => [
    s.label,
    int(s.rps),
    `${fix(share(s.id), 1)}%`,
    fix(s.p50),
    fix(s.p99),
    int(s.errors),
    int(s.bytes),
    s.runs.map(int).join(", "),
    fix(s.appCores),
    fix(s.postgresCores),
    fix(s.machineCores),
  ]),
)}

A social card's first request (its render), one at a time: median ${fix(r.cardFirstRenderMs, 0)} ms.

## Statements per request, one request at a time

The app's SQL statements per request (pg_stat_statements; BEGIN/COMMIT included; each request sent once the app is quiet, the statements of its timers — flushes, the day's salt, reminder rounds — left out), 10 requests after one unmeasured.

${table(
  ["request", "statements (median)", "each"],
  r.statements.map((s) => [s.label, fix(s.median, 0), s.perRequest.join(", ")]),
)}

## Memory

The app's resident memory (VmRSS) after each phase; its peak over the run (VmHWM): ${mb(r.rssPeak)}. What holds it: docs/benchmarks.md, "Memory".

${table(
  ["when", "RSS"],
  r.rssPhases.map(([phase, bytes]) => [phase, mb(bytes)]),
)}
`;
}
