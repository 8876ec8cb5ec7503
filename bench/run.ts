/**
 * `bun run bench`: builds the app, starts it on a fresh Postgres with seeded data,
 * measures every scenario of issue 7 with wrk against a ceiling started in the same
 * run, measures shipped JavaScript (Playwright) and Lighthouse scores (Chromium), and
 * writes BENCHMARKS.md. Everything it starts is stopped at the end, also on failure
 * and on Ctrl-C. See BENCHMARKS.md ("Method") for what is measured and how.
 *
 * Settings (environment): BENCH_DURATION (s per run, 10), BENCH_RUNS (3), BENCH_WARMUP
 * (s, 5), BENCH_CONNECTIONS (50), BENCH_THREADS (wrk threads, 1), BENCH_USERS (1000),
 * BENCH_PORT (4401), BENCH_CEILING_PORT (4402), BENCH_PG_PORT (54400),
 * BENCH_DATABASE_URL (use that server instead of an own cluster), BENCH_PG_DURABLE
 * (on; "off" = fsync/synchronous_commit off as in CI), BENCH_SKIP_BUILD=1,
 * BENCH_SKIP_BROWSER=1, BENCH_LIGHTHOUSE_RUNS (3), BENCH_OUT (BENCHMARKS.md), BENCH_QUIET_WAIT
 * (s to wait for other processes to calm down before the warm-up and each round, 30),
 * BENCH_ONLY (comma-separated scenario ids; the ceiling always runs), BENCH_APP_FLAGS
 * (extra Bun flags for the app, e.g. "--cpu-prof-md --cpu-prof-dir=/tmp/prof").
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { cleanupAll, findFreePort, run } from "../tests/support/process";
import { CpuMeter, type CpuUse, memory, resetPeak } from "./cpu";
import { CHROMIUM_PATH, measureJs, type PageJs } from "./js-size";
import { type LighthouseResult, runLighthouse } from "./lighthouse";
import { type BenchDatabase, createExternalDatabase, startCluster } from "./postgres";
import { installSignalHandlers, type Service, startService, waitForHttp } from "./proc";
import { type Report, renderReport, type ScenarioResult } from "./report";
import {
  type Avatar,
  makeAvatars,
  pool,
  refreshSession,
  type SessionUser,
  seedSupplementsFor,
  seedUsers,
  setUsername,
  signUp,
} from "./seed";
import { luaPrelude, runWrk, type WrkResult } from "./wrk";

const ROOT = join(import.meta.dir, "..");
const env = process.env;
const num = (name: string, fallback: number) => {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, not "${raw}"`);
  return value;
};

const config = {
  seconds: num("BENCH_DURATION", 10),
  runs: num("BENCH_RUNS", 3),
  warmup: num("BENCH_WARMUP", 5),
  connections: num("BENCH_CONNECTIONS", 50),
  threads: num("BENCH_THREADS", 1),
  users: num("BENCH_USERS", 1000),
  perUser: 20,
  writers: num("BENCH_WRITERS", 50),
  reorderers: num("BENCH_REORDER_USERS", 50),
  reorderSize: 200,
  appPort: num("BENCH_PORT", 4401),
  ceilingPort: num("BENCH_CEILING_PORT", 4402),
  pgPort: num("BENCH_PG_PORT", 54400),
  durable: env.BENCH_PG_DURABLE !== "off",
  build: env.BENCH_SKIP_BUILD !== "1",
  browser: env.BENCH_SKIP_BROWSER !== "1",
  lighthouseRuns: num("BENCH_LIGHTHOUSE_RUNS", 3),
  out: env.BENCH_OUT ?? join(ROOT, "BENCHMARKS.md"),
  /** Only these scenario ids (comma-separated; the ceiling always runs). */
  only: (env.BENCH_ONLY ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
  /** Extra Bun flags for the app process, e.g. "--cpu-prof-md --cpu-prof-dir=/tmp/prof". */
  appFlags: (env.BENCH_APP_FLAGS ?? "").split(/\s+/).filter(Boolean),
  /** Seconds to wait, before the warm-up and before each round, for other processes to calm down. */
  quietWait: num("BENCH_QUIET_WAIT", 30),
};

const started = performance.now();
const log = (message: string) => {
  const s = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  console.log(`[bench ${s}s] ${message}`);
};

const median = (values: number[]) => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

async function text(cmd: string[]): Promise<string> {
  try {
    const r = await run(cmd, { check: false, cwd: ROOT });
    return `${r.stdout}${r.stderr}`.trim();
  } catch {
    return "";
  }
}

/** The environment of the app: only what it needs, nothing inherited that could change its behaviour. */
function appEnv(database: BenchDatabase, port: number, secret: string): Record<string, string> {
  const base: Record<string, string> = {};
  for (const key of ["PATH", "HOME", "LANG", "TMPDIR", "TZ"]) {
    const value = env[key];
    if (value) base[key] = value;
  }
  return {
    ...base,
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: String(port),
    PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
    DATABASE_URL: database.appUrl,
    BETTER_AUTH_SECRET: secret,
    LOG_LEVEL: "warn",
    // The bench sends thousands of requests a second from one address: the per-IP and
    // per-user limits would answer 429 and measure the limiter, not the app.
    RATE_LIMIT: "off",
  };
}

/** One wrk measurement: what to ask for, of which server, with which Lua script and data. */
interface Scenario {
  id: string;
  label: string;
  path: string;
  /** Lua scenario file in bench/lua (report.lua is appended); undefined = report.lua only. */
  lua?: string;
  /** Data the Lua script reads, fresh before every run (session cookies are refreshed). */
  data?: () => Promise<Parameters<typeof luaPrelude>[0]>;
  connections?: number;
  target: "ceiling" | "app";
}

/** The users and rows the scenarios use, made before any measurement. */
interface Setup {
  origin: string;
  seeded: Awaited<ReturnType<typeof seedUsers>>;
  dashboardUser: SessionUser;
  writers: SessionUser[];
  reorderers: SessionUser[];
  reorderIds: number[][];
}

/**
 * Every scenario of issue 7, as data: its id and label, the path wrk asks for (or the Lua
 * script and the data it reads, fresh before each run), the connections when not the
 * default, and which server answers. One loop (`measureScenarios`) runs them all.
 */
function scenarioTable(setup: Setup): Scenario[] {
  const { origin, seeded, dashboardUser, writers, reorderers, reorderIds } = setup;
  const refresh = (users: SessionUser[]) => pool(users, 8, (u) => refreshSession(origin, u));
  const scenarios: Scenario[] = [
    { id: "ceiling", label: "Ceiling: Bun.serve, same bytes as a profile page", path: "/", target: "ceiling" },
    { id: "landing", label: "Landing page `/`", path: "/", target: "app" },
    {
      id: "profile",
      label: `Public profile page \`/{username}\`, random of ${seeded.usernames.length}`,
      path: "/",
      lua: "random-path.lua",
      data: async () => ({ paths: seeded.usernames.map((n) => `/${n}`) }),
      target: "app",
    },
    {
      id: "api-profile",
      label: "`GET /api/profile/{username}`, random users",
      path: "/",
      lua: "random-path.lua",
      data: async () => ({ paths: seeded.usernames.map((n) => `/api/profile/${n}`) }),
      target: "app",
    },
    {
      id: "supplements-get",
      label: `\`GET /api/supplements\` with a session (${config.perUser} items)`,
      path: "/api/supplements",
      lua: "session-get.lua",
      data: async () => {
        await refresh([dashboardUser]);
        return { cookie: dashboardUser.jar.header() };
      },
      target: "app",
    },
    {
      id: "supplements-write",
      label: `\`POST /api/supplements\` alternating with \`DELETE\` of the created row, ${config.writers} users`,
      path: "/",
      lua: "supplements-write.lua",
      data: async () => {
        await refresh(writers);
        return { origin, cookies: writers.map((u) => u.jar.header()) };
      },
      target: "app",
    },
    {
      id: "reorder",
      label: `\`PUT /api/supplements/reorder\`, ${config.reorderSize} items, ${config.reorderers} users`,
      path: "/",
      lua: "reorder.lua",
      data: async () => {
        await refresh(reorderers);
        return { origin, cookies: reorderers.map((u) => u.jar.header()), ids: reorderIds };
      },
      target: "app",
    },
    {
      id: "avatar",
      label: `Avatar \`/images/{id}.webp\`, random of ${seeded.avatarPaths.length}`,
      path: "/",
      lua: "random-path.lua",
      data: async () => ({ paths: seeded.avatarPaths }),
      target: "app",
    },
  ];
  const first = reorderers[0];
  const firstIds = reorderIds[0];
  if (first && firstIds) {
    scenarios.push({
      id: "reorder-1",
      label: `\`PUT /api/supplements/reorder\`, ${config.reorderSize} items, one user, 1 connection (latency floor)`,
      path: "/",
      lua: "reorder.lua",
      connections: 1,
      data: async () => {
        await refresh([first]);
        return { origin, cookies: [first.jar.header()], ids: [firstIds] };
      },
      target: "app",
    });
  }
  return scenarios;
}

/** BENCH_ONLY's scenarios (the ceiling always runs); every scenario when it is empty. */
function selectScenarios(scenarios: Scenario[], only: string[]): Scenario[] {
  if (!only.length) return scenarios;
  const unknown = only.filter((id) => !scenarios.some((s) => s.id === id));
  if (unknown.length) throw new Error(`BENCH_ONLY: unknown scenario ${unknown.join(", ")}`);
  return scenarios.filter((s) => s.id === "ceiling" || only.includes(s.id));
}

/** What is running, for the `finally` of main() to stop whatever a failure left behind. */
interface Running {
  app?: Service;
  ceiling?: Service;
  database?: BenchDatabase;
}

/** wrk's version, and free ports for the app and the ceiling. */
async function preflight(workDir: string) {
  const wrkVersion = (await text(["wrk", "-v"])).split("\n")[0] ?? "";
  if (!wrkVersion.startsWith("wrk")) throw new Error("wrk is not installed: apt-get install -y wrk");
  const appPort = await findFreePort(config.appPort, config.appPort + 50);
  const ceilingPort = await findFreePort(config.ceilingPort, config.ceilingPort + 50, [appPort]);
  const origin = `http://127.0.0.1:${appPort}`;
  log(`work folder ${workDir}; app on ${appPort}, ceiling on ${ceilingPort}`);
  return { wrkVersion, appPort, ceilingPort, origin };
}

async function buildApp() {
  const pathEnv = `${join(ROOT, "node_modules/.bin")}:${env.PATH ?? ""}`;
  if (config.build) {
    log("building the app (bun --bun run build)…");
    await run([process.execPath, "--bun", "run", "build"], { cwd: ROOT, env: { ...env, PATH: pathEnv } });
  } else log("BENCH_SKIP_BUILD=1: using the existing dist/");
}

async function openBenchDatabase(): Promise<BenchDatabase> {
  let database: BenchDatabase;
  if (env.BENCH_DATABASE_URL) {
    log("creating a fresh database on the server of BENCH_DATABASE_URL…");
    database = await createExternalDatabase(env.BENCH_DATABASE_URL);
  } else {
    const pgPort = await findFreePort(config.pgPort, config.pgPort + 50);
    log(`starting a throw-away Postgres cluster on 127.0.0.1:${pgPort}…`);
    database = await startCluster(pgPort, config.durable);
  }
  log(`Postgres ${database.serverVersion}: ${database.description}`);
  return database;
}

/** Real sign-ups over HTTP (the app migrates the database at start); the app is stopped after. */
async function signUpUsers(running: Running, startApp: (logName: string) => Promise<Service>, origin: string) {
  log("starting the app to migrate the database and sign users up over HTTP…");
  const app = await startApp("app-setup.log");
  running.app = app;
  const signUpStarted = performance.now();
  const dashboardUser = await signUp(origin, origin, "dashboard@bench.example.com", "Dana Dashboard");
  await setUsername(origin, origin, dashboardUser, "dana_dashboard");
  const emails = [
    ...Array.from({ length: config.writers }, (_, i) => `writer${i + 1}@bench.example.com`),
    ...Array.from({ length: config.reorderers }, (_, i) => `reorder${i + 1}@bench.example.com`),
  ];
  const signedUp = await pool(emails, 4, (email) => signUp(origin, origin, email, email.split("@")[0] ?? "Bench"));
  const writers = signedUp.slice(0, config.writers);
  const reorderers = signedUp.slice(config.writers);
  log(
    `${signedUp.length + 1} users signed up over HTTP in ${((performance.now() - signUpStarted) / 1000).toFixed(1)} s`,
  );
  await app.stop();
  running.app = undefined;
  return { dashboardUser, writers, reorderers };
}

/** The bulk seed with SQL, the app stopped (so no cache of it can be stale). */
async function seedDatabase(
  db: BenchDatabase,
  avatars: Promise<Avatar[]>,
  dashboardUser: SessionUser,
  reorderers: SessionUser[],
) {
  log(`seeding ${config.users} users × ${config.perUser} supplements with WebP avatars…`);
  const sql = postgres(db.appUrl, { max: 4, onnotice: () => {} });
  const reorderIds: number[][] = [];
  try {
    const seeded = await seedUsers(sql, await avatars, config.perUser);
    await seedSupplementsFor(sql, dashboardUser.id, config.perUser, 1);
    for (const [i, user] of reorderers.entries()) {
      reorderIds.push(await seedSupplementsFor(sql, user.id, config.reorderSize, 100 + i));
    }
    await sql`vacuum analyze`;
    const [counts] = await sql<{ users: number; supplements: number; images: number; sessions: number }[]>`
      select (select count(*)::int from users) as users, (select count(*)::int from supplements) as supplements,
             (select count(*)::int from images) as images, (select count(*)::int from sessions) as sessions`;
    log(`database: ${JSON.stringify(counts)}`);
    return { seeded, reorderIds };
  } finally {
    await sql.end();
  }
}

/** The app for the measurements, and the ceiling: Bun.serve answering a profile page's bytes. */
async function startMeasured(
  running: Running,
  startApp: (logName: string) => Promise<Service>,
  workDir: string,
  origin: string,
  ceilingPort: number,
  seeded: Setup["seeded"],
) {
  log("starting the app for the measurements…");
  const app = await startApp("app.log");
  running.app = app;
  const memoryAtStart = memory(app.pid);
  const sampleName = seeded.usernames[0] ?? "";
  const sample = await fetch(`${origin}/${sampleName}`);
  const sampleBody = new Uint8Array(await sample.arrayBuffer());
  const sampleType = sample.headers.get("content-type") ?? "text/html";
  if (sample.status !== 200) throw new Error(`GET /${sampleName} answered ${sample.status}`);
  writeFileSync(join(workDir, "profile.html"), sampleBody);
  const ceiling = startService(
    "ceiling",
    [
      process.execPath,
      join(import.meta.dir, "ceiling.ts"),
      String(ceilingPort),
      join(workDir, "profile.html"),
      sampleType,
    ],
    { cwd: ROOT, env: { PATH: env.PATH ?? "" }, logFile: join(workDir, "ceiling.log") },
  );
  running.ceiling = ceiling;
  await waitForHttp(`http://127.0.0.1:${ceilingPort}/`, ceiling);
  log(`ceiling serves the ${sampleBody.byteLength} bytes of /${sampleName} (${sampleType})`);
  return { appPid: app.pid, ceilingPid: ceiling.pid, memoryAtStart, sampleName, sampleBody };
}

type Results = Map<string, { runs: WrkResult[]; cpu: CpuUse[]; statements: number[]; peakRss: number }>;

/**
 * The one loop: a warm-up of every scenario, then BENCH_RUNS rounds of every scenario, each
 * round after waiting for a quiet machine. Per run: requests (wrk), CPU of every process,
 * statements per request (pg_stat_statements) and the app's peak memory. Then the statements
 * per reorder, on the same statistics connection.
 */
async function measureScenarios(
  scenarios: Scenario[],
  workDir: string,
  db: BenchDatabase,
  measured: Awaited<ReturnType<typeof startMeasured>>,
  urlOf: (s: Scenario) => string,
  setup: Setup,
) {
  const { appPid, ceilingPid, memoryAtStart } = measured;
  const reportLua = readFileSync(join(import.meta.dir, "lua/report.lua"), "utf8");
  const writeScript = async (scenario: Scenario) => {
    const parts = [`-- generated by bench/run.ts for scenario "${scenario.id}"\n`];
    if (scenario.data) parts.push(luaPrelude(await scenario.data()));
    if (scenario.lua) parts.push(readFileSync(join(import.meta.dir, "lua", scenario.lua), "utf8"));
    parts.push(reportLua);
    const file = join(workDir, `${scenario.id}.lua`);
    writeFileSync(file, parts.join("\n"));
    return file;
  };

  const meter = new CpuMeter({ app: () => appPid, ceiling: () => ceilingPid, postmaster: db.postmasterPid });
  const stats = db.statements ? postgres(db.adminUrl, { max: 1, onnotice: () => {} }) : undefined;
  const appRole = new URL(db.appUrl).username;
  const sameRole = appRole === new URL(db.adminUrl).username;
  const statementCalls = async (): Promise<number> => {
    if (!stats) return Number.NaN;
    const [row] = await stats<{ calls: string }[]>`
      select coalesce(sum(calls), 0)::bigint as calls from pg_stat_statements
      where userid = (select oid from pg_roles where rolname = ${appRole})
        and dbid = (select oid from pg_database where datname = current_database())`;
    return Number(row?.calls ?? 0) - (sameRole ? 1 : 0);
  };

  const results: Results = new Map();
  for (const s of scenarios) results.set(s.id, { runs: [], cpu: [], statements: [], peakRss: 0 });
  // The app's peak resident memory: per scenario (the kernel's mark is reset before each
  // run, where permitted) and over the whole run (the maximum of every reading).
  let overallPeak = memoryAtStart?.peak ?? 0;
  const peakSinceReset = () => {
    const m = memory(appPid);
    const peak = m?.peak ?? Number.NaN;
    if (Number.isFinite(peak)) overallPeak = Math.max(overallPeak, peak);
    return peak;
  };
  const peakResettable = resetPeak(appPid);

  const once = async (scenario: Scenario, seconds: number, measure: boolean) => {
    const script = await writeScript(scenario);
    peakSinceReset();
    resetPeak(appPid);
    const callsBefore = measure ? await statementCalls() : 0;
    const before = meter.snapshot();
    const result = await runWrk({
      url: urlOf(scenario),
      script,
      seconds,
      connections: scenario.connections ?? config.connections,
      threads: Math.min(config.threads, scenario.connections ?? config.connections),
    });
    const after = meter.snapshot();
    const peak = peakSinceReset();
    const calls = measure ? (await statementCalls()) - callsBefore : Number.NaN;
    const entry = results.get(scenario.id);
    if (entry && peakResettable) entry.peakRss = Math.max(entry.peakRss, peak);
    if (measure) {
      entry?.runs.push(result);
      entry?.cpu.push(meter.between(before, after, result.wrkCpuSeconds));
      entry?.statements.push(calls / result.requests);
    }
    return result;
  };

  // Other processes on the machine distort every number: measure them while we are idle,
  // and wait a while (BENCH_QUIET_WAIT) for them to calm down.
  const backgroundLoads: number[] = [];
  const waitQuiet = async (when: string) => {
    const deadline = Date.now() + config.quietWait * 1000;
    let load = Number.NaN;
    for (;;) {
      const a = meter.snapshot();
      await Bun.sleep(2000);
      const b = meter.between(a, meter.snapshot(), 0);
      load = b.machineBusy - b.app - b.ceiling - b.postgres;
      if (load < 0.2 || Date.now() >= deadline) break;
      log(`  ${when}: other processes keep ${load.toFixed(2)} cores busy; waiting for a quieter machine…`);
    }
    backgroundLoads.push(load);
    if (load >= 0.2)
      log(`WARNING: ${when}: the machine is busy (${load.toFixed(2)} cores); results will be low and noisy`);
  };
  await waitQuiet("before the warm-up");

  if (config.warmup > 0) {
    log(`warm-up: ${config.warmup} s per scenario`);
    for (const s of scenarios) {
      const r = await once(s, config.warmup, false);
      log(`  warm-up ${s.id}: ${r.rps.toFixed(0)} req/s, ${r.errorCount} errors`);
    }
  }
  for (let round = 1; round <= config.runs; round++) {
    await waitQuiet(`before round ${round}`);
    log(`round ${round}/${config.runs}: ${scenarios.length} scenarios × ${config.seconds} s`);
    for (const s of scenarios) {
      await Bun.sleep(500);
      const r = await once(s, config.seconds, true);
      const counters = Object.keys(r.counters).length ? ` ${JSON.stringify(r.counters)}` : "";
      log(
        `  ${s.id.padEnd(17)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.latencyMs.p50.toFixed(2)} ms  p99 ${r.latencyMs.p99.toFixed(2)} ms  errors ${r.errorCount}${counters}`,
      );
    }
  }
  peakSinceReset();
  const memoryAfterLoad = memory(appPid);

  // ---- statements per reorder: 200 items against 20 --------------------------------
  const reorderStatements = await measureReorderStatements(
    setup.origin,
    statementCalls,
    setup.reorderers[0],
    setup.reorderIds[0],
    setup.dashboardUser,
    stats !== undefined,
  );
  await stats?.end();
  return {
    results,
    backgroundLoads,
    memoryAfterLoad,
    reorderStatements,
    peakSinceReset,
    overallPeak: () => overallPeak,
  };
}

/** Shipped JavaScript (Playwright) and Lighthouse scores (Chromium); a failure is reported, not fatal. */
async function measureBrowser(origin: string, sampleName: string, dashboardUser: SessionUser) {
  let js: PageJs[] = [];
  let lighthouse: LighthouseResult[] = [];
  let browserError: string | undefined;
  if (config.browser) {
    try {
      log("measuring the JavaScript each page ships (Playwright + Chromium)…");
      await refreshSession(origin, dashboardUser);
      js = await measureJs(origin, [
        { name: "Landing `/`", path: "/" },
        { name: `Profile \`/${sampleName}\``, path: `/${sampleName}` },
        { name: "Dashboard `/dashboard`, signed in", path: "/dashboard", cookies: dashboardUser.jar.cookies },
      ]);
      for (const p of js) log(`  ${p.name}: HTTP ${p.status}, ${p.total.raw} B raw, ${p.total.gzip} B gzip`);
      log(`Lighthouse (desktop preset), ${config.lighthouseRuns} runs per page…`);
      lighthouse = await runLighthouse(
        [
          { name: "Landing `/`", url: `${origin}/` },
          { name: `Profile \`/${sampleName}\``, url: `${origin}/${sampleName}` },
        ],
        config.lighthouseRuns,
      );
      for (const l of lighthouse) log(`  ${l.name}: ${JSON.stringify(l.scores)} (perf runs ${l.performanceRuns})`);
    } catch (error) {
      browserError = error instanceof Error ? error.message : String(error);
      log(`browser measurements failed: ${browserError}`);
    }
  }
  return { js, lighthouse, browserError };
}

/** One scenario's runs as the report shows them: medians, the runs, CPU shares. */
function scenarioResult(s: Scenario, results: Results): ScenarioResult {
  const r = results.get(s.id);
  const runs = r?.runs ?? [];
  const cpu = r?.cpu ?? [];
  const avg = (pick: (c: CpuUse) => number) => cpu.reduce((sum, c) => sum + pick(c), 0) / (cpu.length || 1);
  const counters: Record<string, number> = {};
  for (const run of runs) for (const [k, v] of Object.entries(run.counters)) counters[k] = (counters[k] ?? 0) + v;
  return {
    id: s.id,
    label: s.label,
    connections: s.connections ?? config.connections,
    rps: median(runs.map((x) => x.rps)),
    p50: median(runs.map((x) => x.latencyMs.p50)),
    p99: median(runs.map((x) => x.latencyMs.p99)),
    errors: median(runs.map((x) => x.errorCount)),
    errorDetail: runs.map((x) => x.errors),
    runs: runs.map((x) => ({ rps: x.rps, p50: x.latencyMs.p50, p99: x.latencyMs.p99, errors: x.errorCount })),
    statementsPerRequest: median(r?.statements ?? []),
    peakRss: r?.peakRss || Number.NaN,
    bytesPerResponse: median(runs.map((x) => x.bytes / Math.max(x.requests, 1))),
    counters,
    cpu: {
      app: avg((c) => c.app),
      postgres: avg((c) => c.postgres),
      ceiling: avg((c) => c.ceiling),
      wrk: avg((c) => c.wrk),
      irq: avg((c) => c.irq),
      other: avg((c) => c.other),
      machineBusy: avg((c) => c.machineBusy),
      ioStall: avg((c) => c.ioStall),
    },
  };
}

/** Versions of what was measured with, and the commit. */
async function versions(wrkVersion: string, db: BenchDatabase): Promise<Report["versions"]> {
  const astroVersion = (
    JSON.parse(readFileSync(join(ROOT, "node_modules/astro/package.json"), "utf8")) as { version: string }
  ).version;
  const lighthouseVersion = (
    JSON.parse(readFileSync(join(ROOT, "node_modules/lighthouse/package.json"), "utf8")) as { version: string }
  ).version;
  const commit = await text(["git", "rev-parse", "--short", "HEAD"]);
  const dirty = (await text(["git", "status", "--porcelain"])).length > 0;
  return {
    bun: Bun.version,
    postgres: db.serverVersion,
    astro: astroVersion,
    wrk: wrkVersion,
    // Debian's wrapper script prints a shell warning before the version line.
    chromium: config.browser
      ? ((await text([CHROMIUM_PATH, "--version"])).split("\n").find((l) => l.startsWith("Chromium")) ?? "")
      : "",
    lighthouse: lighthouseVersion,
    commit: `${commit || "unknown"}${dirty ? " (with uncommitted changes)" : ""}`,
  };
}

async function main() {
  const workDir = mkdtempSync("/tmp/stacktrack-bench-");
  installSignalHandlers(() => console.error(`[bench] interrupted; logs kept in ${workDir}`));
  let keepWorkDir = false;
  const running: Running = {};
  try {
    const { wrkVersion, appPort, ceilingPort, origin } = await preflight(workDir);

    // Avatars are encoded while the app builds and the database starts (sharp runs off the JS thread).
    const avatarsStarted = performance.now();
    const avatarsReady = makeAvatars(config.users).then((list) => {
      log(`${list.length} WebP avatars encoded in ${((performance.now() - avatarsStarted) / 1000).toFixed(1)} s`);
      return list;
    });
    avatarsReady.catch(() => {}); // awaited below; a failure surfaces there

    await buildApp();
    const db = await openBenchDatabase();
    running.database = db;

    const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(36))).toString("base64url");
    const startApp = async (logName: string) => {
      const service = startService("app", [process.execPath, ...config.appFlags, "server.ts"], {
        cwd: ROOT,
        env: appEnv(db, appPort, secret),
        logFile: join(workDir, logName),
      });
      await waitForHttp(`${origin}/api/health`, service);
      return service;
    };

    const { dashboardUser, writers, reorderers } = await signUpUsers(running, startApp, origin);
    const { seeded, reorderIds } = await seedDatabase(db, avatarsReady, dashboardUser, reorderers);
    const setup: Setup = { origin, seeded, dashboardUser, writers, reorderers, reorderIds };

    const measured = await startMeasured(running, startApp, workDir, origin, ceilingPort, seeded);
    await sanityChecks(origin, seeded, dashboardUser, writers, reorderers, reorderIds);

    const scenarios = selectScenarios(scenarioTable(setup), config.only);
    const urlOf = (s: Scenario) =>
      `${s.target === "ceiling" ? `http://127.0.0.1:${ceilingPort}` : origin}${s.path === "/" ? "/" : s.path}`;
    const load = await measureScenarios(scenarios, workDir, db, measured, urlOf, setup);

    const { js, lighthouse, browserError } = await measureBrowser(origin, measured.sampleName, dashboardUser);
    load.peakSinceReset();
    const memoryAfterAll = memory(measured.appPid);

    // ---- report -------------------------------------------------------------------------
    const cpuModel = readFileSync("/proc/cpuinfo", "utf8").match(/^model name\s*:\s*(.+)$/m)?.[1] ?? "unknown";
    const report: Report = {
      date: new Date().toISOString(),
      durationSeconds: (performance.now() - started) / 1000,
      machine: { nproc: cpus().length, cpuModel, memBytes: totalmem() },
      versions: await versions(wrkVersion, db),
      config: {
        seconds: config.seconds,
        runs: config.runs,
        warmup: config.warmup,
        connections: config.connections,
        threads: config.threads,
        users: config.users,
        perUser: config.perUser,
        writers: config.writers,
        reorderers: config.reorderers,
        reorderSize: config.reorderSize,
        database: db.description,
        databaseSettings: db.settings,
        durable: config.durable,
        lighthouseRuns: config.lighthouseRuns,
        avatarBytes: seeded.avatarBytes / Math.max(seeded.avatarPaths.length, 1),
        pageBytes: measured.sampleBody.byteLength,
      },
      scenarios: scenarios.map((s) => scenarioResult(s, load.results)),
      backgroundLoad: median(load.backgroundLoads),
      memory: {
        atStart: measured.memoryAtStart,
        afterLoad: load.memoryAfterLoad,
        afterAll: memoryAfterAll,
        overallPeak: load.overallPeak(),
      },
      reorderStatements: load.reorderStatements,
      js,
      lighthouse,
      browserError,
    };
    // Keep the section `npm run test:deploy` writes (tests/deploy/run.ts): it is not the bench's.
    const previous = existsSync(config.out) ? readFileSync(config.out, "utf8") : "";
    const deploy = /<!-- test:deploy start -->[\s\S]*<!-- test:deploy end -->/.exec(previous)?.[0];
    writeFileSync(config.out, deploy ? `${renderReport(report).trimEnd()}\n\n${deploy}\n` : renderReport(report));
    writeFileSync(join(workDir, "results.json"), JSON.stringify(report, null, 2));
    log(`wrote ${config.out}`);
  } catch (error) {
    keepWorkDir = true;
    console.error(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    if (running.app) console.error(`[bench] app log (${running.app.logFile}):\n${running.app.tail(40)}`);
    process.exitCode = 1;
  } finally {
    log("stopping the app, the ceiling and Postgres…");
    await running.app?.stop().catch(() => {});
    await running.ceiling?.stop().catch(() => {});
    await running.database?.stop().catch((e) => console.error(`[bench] could not stop Postgres: ${e}`));
    await cleanupAll();
    if (keepWorkDir) console.error(`[bench] logs kept in ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
    log("done");
  }
}

/** One request of each kind, checked, before any load: a broken scenario fails loudly here. */
async function sanityChecks(
  origin: string,
  seeded: { usernames: string[]; avatarPaths: string[] },
  dashboardUser: SessionUser,
  writers: SessionUser[],
  reorderers: SessionUser[],
  reorderIds: number[][],
) {
  const expect = async (what: string, res: Response, status: number, check?: (body: string) => boolean) => {
    const body = await res.text();
    if (res.status !== status || (check && !check(body))) {
      throw new Error(`sanity check failed: ${what} answered ${res.status}: ${body.slice(0, 300)}`);
    }
    return body;
  };
  const name = seeded.usernames[1] ?? "";
  await expect("GET /", await fetch(`${origin}/`), 200);
  await expect(`GET /${name}`, await fetch(`${origin}/${name}`), 200, (b) => b.includes(`@${name}`));
  await expect(
    `GET /api/profile/${name}`,
    await fetch(`${origin}/api/profile/${name}`),
    200,
    (b) => (JSON.parse(b) as { supplements: unknown[] }).supplements.length === config.perUser,
  );
  await expect(
    "GET /api/supplements",
    await fetch(`${origin}/api/supplements`, { headers: { Cookie: dashboardUser.jar.header() } }),
    200,
    (b) => (JSON.parse(b) as unknown[]).length === config.perUser,
  );
  const writer = writers[0];
  if (writer) {
    const headers = { Cookie: writer.jar.header(), Origin: origin, "Content-Type": "application/json" };
    const created = await expect(
      "POST /api/supplements",
      await fetch(`${origin}/api/supplements`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "Bench u1 check", quantityType: "Capsule(s)", frequency: "Daily" }),
      }),
      201,
    );
    const id = (JSON.parse(created) as { id: number }).id;
    await expect(
      "DELETE /api/supplements/:id",
      await fetch(`${origin}/api/supplements/${id}`, {
        method: "DELETE",
        headers: { Cookie: writer.jar.header(), Origin: origin },
      }),
      204,
    );
  }
  const reorderer = reorderers[0];
  const ids = reorderIds[0];
  if (reorderer && ids) {
    await expect(
      "PUT /api/supplements/reorder",
      await fetch(`${origin}/api/supplements/reorder`, {
        method: "PUT",
        headers: { Cookie: reorderer.jar.header(), Origin: origin, "Content-Type": "application/json" },
        body: JSON.stringify({ supplementIds: [...ids].reverse() }),
      }),
      200,
      (b) => (JSON.parse(b) as unknown[]).length === ids.length,
    );
  }
  const avatar = seeded.avatarPaths[1] ?? "";
  const image = await fetch(`${origin}${avatar}`);
  await image.arrayBuffer();
  if (image.status !== 200 || image.headers.get("content-type") !== "image/webp") {
    throw new Error(`sanity check failed: GET ${avatar} answered ${image.status} ${image.headers.get("content-type")}`);
  }
  log("sanity checks passed (every scenario's request answers as expected)");
}

/** Statements the app sends per reorder of a 200-item list and of a 20-item list (pg_stat_statements). */
async function measureReorderStatements(
  origin: string,
  calls: () => Promise<number>,
  bigUser: SessionUser | undefined,
  bigIds: number[] | undefined,
  smallUser: SessionUser,
  available: boolean,
): Promise<{ items: number; statements: number; all: number[] }[]> {
  if (!available || !bigUser || !bigIds) return [];
  const res = await fetch(`${origin}/api/supplements`, { headers: { Cookie: smallUser.jar.header() } });
  const smallIds = ((await res.json()) as { id: number }[]).map((s) => s.id);
  const out: { items: number; statements: number; all: number[] }[] = [];
  for (const [user, ids] of [
    [bigUser, bigIds],
    [smallUser, smallIds],
  ] as const) {
    await refreshSession(origin, user);
    // One request at a time, counted alone; the median ignores a stray background statement.
    const perRequest: number[] = [];
    for (let i = 0; i < 10; i++) {
      const order = i % 2 ? [...ids] : [...ids].reverse();
      const before = await calls();
      const r = await fetch(`${origin}/api/supplements/reorder`, {
        method: "PUT",
        headers: { Cookie: user.jar.header(), Origin: origin, "Content-Type": "application/json" },
        body: JSON.stringify({ supplementIds: order }),
      });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`reorder for the statement count answered ${r.status}`);
      perRequest.push((await calls()) - before);
    }
    out.push({ items: ids.length, statements: median(perRequest), all: perRequest });
  }
  log(`statements per reorder: ${out.map((o) => `${o.items} items → ${o.all.join(",")}`).join("; ")}`);
  return out;
}

await main();
