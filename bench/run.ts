/**
 * `bun run bench`: builds the app, starts it on a fresh Postgres with seeded data, as
 * `npm start` configures it (request logging at info, rate limits on, view counting on;
 * TRUST_PROXY=true as behind Caddy, deploy/env.example), measures every scenario of issues
 * 7, 14, 16, 17 and 19 with wrk against a ceiling started in the same run, the start-up time
 * (PGlite and Postgres), a 100,000-profile scale run with Zipf visits, shipped JavaScript
 * (Playwright) and Lighthouse scores (Chromium), and writes BENCHMARKS.md with every target,
 * met or missed and by how much. Everything it starts is stopped at the end, also on failure
 * and on Ctrl-C. See BENCHMARKS.md ("Method") for what is measured and how.
 *
 * Every request to the app carries X-Forwarded-For: public scenarios draw it from a pool of
 * simulated visitors (BENCH_ADDRESSES, 100,000 addresses in 198.18.0.0/15), signed-in ones
 * use one address per user, so the per-address limits hold and a 429 is an error.
 *
 * Scenarios (BENCH_ONLY ids): ceiling (always), landing, profile, profile-counted,
 * profile-crawler, api-profile, supplements-get, supplements-write, reorder, avatar, avatar-304, go, card,
 * today, intake-put, history, reorder-1, scale; plus "startup" (the start-up samples).
 *
 * Settings (environment): BENCH_DURATION (s per run, 10), BENCH_RUNS (5), BENCH_WARMUP
 * (s, 5), BENCH_CONNECTIONS (50), BENCH_THREADS (wrk threads, 1), BENCH_USERS (1000),
 * BENCH_ADDRESSES (simulated visitors, 100000), BENCH_CARDS (social cards warmed and
 * asked for, 100), BENCH_SCALE_PROFILES (100000), BENCH_SCALE_DURATION (s, 60),
 * BENCH_ZIPF_S (1.1), BENCH_STARTUP_SAMPLES (3 per kind), BENCH_PAIRS (20),
 * BENCH_PAIR_DURATION (8 s: issue 14's paired runs), BENCH_PORT (4401),
 * BENCH_CEILING_PORT (4402), BENCH_PG_PORT (54400), BENCH_DATABASE_URL (use that server
 * instead of an own cluster), BENCH_PG_DURABLE (on; "off" = fsync/synchronous_commit off as
 * in CI), BENCH_SKIP_BUILD=1, BENCH_SKIP_BROWSER=1, BENCH_LIGHTHOUSE_RUNS (3), BENCH_OUT
 * (BENCHMARKS.md), BENCH_QUIET_WAIT (s to wait for other processes to calm down before the
 * warm-up and each round, 30), BENCH_ONLY (comma-separated ids; the ceiling always runs),
 * BENCH_APP_FLAGS (extra Bun flags for the app, e.g. "--cpu-prof-md --cpu-prof-dir=/tmp/prof"),
 * BENCH_APP_ENV (extra environment for the app, space-separated KEY=VALUE, e.g.
 * "BUN_JSC_reportFTLCompileTimes=1 BUN_JSC_logGC=1": JavaScriptCore's reports, in the app's log),
 * BENCH_KEEP_WORKDIR=1 (keep the work folder: the app's request log, the Lua scripts, results.json),
 * BENCH_PERF (a folder: Linux perf profiles the app during issue 14's paired runs, with its
 * JIT code named; then `bun bench/perf-diff.ts FOLDER` shows where the counted page's extra
 * CPU goes. perf's own work disturbs the runs, so such a run needs its own BENCH_OUT).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { parseConfig } from "../api/config";
import { CARD_STORE_BYTES } from "../api/sharing/card";
import { addDays } from "../src/lib/dates";
import { cleanupAll, findFreePort, run } from "../tests/support/process";
import { CpuMeter, type CpuUse, memory, resetPeak } from "./cpu";
import { CHROMIUM_PATH, measureJs, type PageJs } from "./js-size";
import { type LighthouseResult, runLighthouse } from "./lighthouse";
import type { MemoryProbe } from "./memory-probe";
import type { ProfiledRun } from "./perf-diff";
import { writePerfMap } from "./perf-map";
import { type BenchDatabase, createExternalDatabase, startCluster } from "./postgres";
import { installSignalHandlers, type Service, startService, waitForHttp } from "./proc";
import {
  type CardRender,
  type CountingPair,
  type Report,
  renderReport,
  type ScaleResult,
  type ScenarioResult,
  usPerRequest,
} from "./report";
import {
  type Avatar,
  BROWSER_USER_AGENT,
  CRAWLER_USER_AGENT,
  MAX_ADDRESS_POOL,
  makeAvatars,
  ownAddress,
  pool,
  productLinkIds,
  refreshSession,
  SCALE_PREFIX,
  type SessionUser,
  seedScaleProfiles,
  seedSupplementsFor,
  seedTracking,
  seedUsers,
  setUsername,
  signIn,
  signUp,
} from "./seed";
import { type StartupResult, type StartupSample, timeToHealthy } from "./startup";
import {
  between,
  isBackground,
  probeStatements,
  requestCalls,
  type StatementCounter,
  type StatementProbe,
  shortQuery,
  statementCounter,
  sumCalls,
} from "./statements";
import { median } from "./stats";
import { luaPrelude, runWrk, type WrkResult } from "./wrk";

const ROOT = join(import.meta.dir, "..");
const MEMORY_PROBE = join(import.meta.dir, "memory-probe.ts");

/**
 * Asks the app (started with bench/memory-probe.ts) for its memory: as it is, and after a full
 * garbage collection. Undefined when it does not answer within 10 s.
 */
async function probeMemory(pid: number, file: string): Promise<MemoryProbe | undefined> {
  rmSync(file, { force: true });
  try {
    process.kill(pid, "SIGUSR2");
  } catch {
    return undefined;
  }
  for (let waited = 0; waited < 10_000; waited += 100) {
    await Bun.sleep(100);
    if (existsSync(file)) {
      try {
        return JSON.parse(readFileSync(file, "utf8")) as MemoryProbe;
      } catch {
        // still being written
      }
    }
  }
  return undefined;
}
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
  /**
   * Rounds of every scenario. Five, not three: on a shared 2-core machine a scenario's req/s
   * moves by a quarter from one round to the next (the ceiling 41,228-53,054 in one run), and
   * two runs of the same commit an hour apart put the counted page at 48.7% and 39.3%.
   */
  runs: num("BENCH_RUNS", 5),
  warmup: num("BENCH_WARMUP", 5),
  connections: num("BENCH_CONNECTIONS", 50),
  threads: num("BENCH_THREADS", 1),
  users: num("BENCH_USERS", 1000),
  perUser: 20,
  writers: num("BENCH_WRITERS", 50),
  reorderers: num("BENCH_REORDER_USERS", 50),
  reorderSize: 200,
  /** Simulated visitors: X-Forwarded-For addresses the public scenarios draw from. */
  addresses: num("BENCH_ADDRESSES", 100_000),
  /** Social cards warmed before the measurements and asked for at random. */
  cards: num("BENCH_CARDS", 100),
  /** Days of tracking seeded for the Today, History and intake users (issue 19: 366-day history). */
  trackedDays: 366,
  scaleProfiles: num("BENCH_SCALE_PROFILES", 100_000),
  scaleSupplements: 3,
  scaleSeconds: num("BENCH_SCALE_DURATION", 60),
  zipfS: num("BENCH_ZIPF_S", 1.1),
  startupSamples: num("BENCH_STARTUP_SAMPLES", 3),
  /** Issue 14: pairs of short runs, the counted page and the crawler's back to back (0: none). */
  pairs: num("BENCH_PAIRS", 20),
  /**
   * Long against the counter's flushes (every 5 s, or each 131,072 views: 3-4 s here): the
   * views a counted run leaves unflushed are hashed and stored while the next run goes on
   * (every other pair, the crawler's): with 3 s runs and flushes 3-4 s apart, up to a whole
   * flush of a counted run's views could fall into the run after it.
   */
  pairSeconds: num("BENCH_PAIR_DURATION", 8),
  appPort: num("BENCH_PORT", 4401),
  ceilingPort: num("BENCH_CEILING_PORT", 4402),
  pgPort: num("BENCH_PG_PORT", 54400),
  durable: env.BENCH_PG_DURABLE !== "off",
  build: env.BENCH_SKIP_BUILD !== "1",
  browser: env.BENCH_SKIP_BROWSER !== "1",
  /** Keep the work folder (the app's request log, the Lua scripts, results.json) after a run that succeeded. */
  keepWorkDir: env.BENCH_KEEP_WORKDIR === "1",
  lighthouseRuns: num("BENCH_LIGHTHOUSE_RUNS", 3),
  out: env.BENCH_OUT ?? join(ROOT, "BENCHMARKS.md"),
  /** Only these ids (comma-separated; the ceiling always runs): scenario ids and "startup". */
  only: (env.BENCH_ONLY ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
  /** Extra Bun flags for the app process, e.g. "--cpu-prof-md --cpu-prof-dir=/tmp/prof". */
  appFlags: (env.BENCH_APP_FLAGS ?? "").split(/\s+/).filter(Boolean),
  /** Extra environment for the app (diagnostics only: it cannot override appEnv's own settings). */
  appEnv: Object.fromEntries(
    (env.BENCH_APP_ENV ?? "")
      .split(/\s+/)
      .filter((pair) => pair.includes("="))
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  ) as Record<string, string>,
  /** Seconds to wait, before the warm-up and before each round, for other processes to calm down. */
  quietWait: num("BENCH_QUIET_WAIT", 30),
  /** A folder for perf profiles of the paired runs (a diagnostic: perf disturbs what it measures). */
  perfDir: env.BENCH_PERF || undefined,
};
if (config.perfDir && resolve(config.out) === join(ROOT, "BENCHMARKS.md")) {
  throw new Error("BENCH_PERF disturbs the runs it profiles: set BENCH_OUT to a file other than BENCHMARKS.md");
}
/** Profiling rate (Hz) and JavaScriptCore's JIT dump, with BENCH_PERF (bench/perf-map.ts). */
const PERF_HZ = 999;
const jitDumpDir = config.perfDir ? join(config.perfDir, "jit") : undefined;
if (jitDumpDir) mkdirSync(jitDumpDir, { recursive: true });
if (config.addresses < 1 || config.addresses > MAX_ADDRESS_POOL) {
  throw new Error(`BENCH_ADDRESSES must be from 1 to ${MAX_ADDRESS_POOL}`);
}
/** Phases that are not wrk scenarios but may be selected with BENCH_ONLY. */
const PHASES = ["startup"];
/** Whether BENCH_ONLY selects `id` (everything is selected when it is empty). */
const selected = (id: string) => config.only.length === 0 || id === "ceiling" || config.only.includes(id);
/** The multiplier that spreads Zipf ranks over the scale profiles (coprime to their number). */
const ZIPF_SPREAD = config.scaleProfiles % 7919 === 0 ? 1 : 7919;
/** Scale profile number of Zipf rank `k` (1 = the most visited), as bench/lua/zipf.lua maps it. */
const scaleName = (k: number) => `${SCALE_PREFIX}${(((k - 1) * ZIPF_SPREAD) % config.scaleProfiles) + 1}`;

const started = performance.now();
const log = (message: string) => {
  const s = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  console.log(`[bench ${s}s] ${message}`);
};

async function text(cmd: string[]): Promise<string> {
  try {
    const r = await run(cmd, { check: false, cwd: ROOT });
    return `${r.stdout}${r.stderr}`.trim();
  } catch {
    return "";
  }
}

/**
 * With BENCH_PERF: `perf record` of the app from 1 s into a paired run for all but its last
 * second (call graphs; no build-id pass, whose work would spill into the next run). Resolves
 * when perf has written the file.
 */
async function profileRun(appPid: number, name: string): Promise<Omit<ProfiledRun, "pair" | "scenario" | "rps">> {
  const seconds = Math.max(1, config.pairSeconds - 2);
  const file = join(config.perfDir as string, `${name}.data`);
  await Bun.sleep(1000);
  const args = `record -B -q -F ${PERF_HZ} -g -p ${appPid} -o`.split(" ");
  const perf = Bun.spawn(["perf", ...args, file, "--", "sleep", String(seconds)], {
    stdout: "ignore",
    stderr: "inherit",
  });
  const code = await perf.exited;
  if (code !== 0) throw new Error(`perf record exited with ${code} (is perf installed, and may it profile?)`);
  return { file, seconds, hz: PERF_HZ };
}

/** With BENCH_PERF: the runs' list for bench/perf-diff.ts, and the app's JIT code named for perf (bench/perf-map.ts). */
function finishProfiles(appPid: number, profiled: ProfiledRun[]) {
  const dir = config.perfDir as string;
  writeFileSync(join(dir, "runs.json"), `${JSON.stringify(profiled, null, 2)}\n`);
  const dump = readdirSync(jitDumpDir as string).find((name) => name.endsWith(`-${appPid}.dump`));
  // Right after the paired runs: every code load so far, the newest at each address.
  const map = dump ? writePerfMap(join(jitDumpDir as string, dump)) : "(no JIT dump found)";
  log(
    `perf profiles of ${profiled.length} paired runs in ${dir}; JIT names in ${map}; see: bun bench/perf-diff.ts ${dir}`,
  );
}

/**
 * The environment of the app: what `npm start` with deploy/env.example sets, nothing
 * inherited that could change its behaviour. Request logging (LOG_LEVEL info), rate limits
 * and view counting are at their defaults (on); TRUST_PROXY=true as behind Caddy: the client
 * is the X-Forwarded-For address the bench sends. `database` undefined: PGlite in `dataDir`.
 */
function appEnv(
  database: BenchDatabase | undefined,
  port: number,
  secret: string,
  dataDir?: string,
): Record<string, string> {
  const base: Record<string, string> = {};
  for (const key of ["PATH", "HOME", "LANG", "TMPDIR", "TZ"]) {
    const value = env[key];
    if (value) base[key] = value;
  }
  return {
    ...base,
    // First, so that a diagnostic cannot change what the measured app is configured as.
    ...config.appEnv,
    ...(jitDumpDir ? { BUN_JSC_useJITDump: "1", BUN_JSC_jitDumpDirectory: jitDumpDir } : {}),
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: String(port),
    PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
    ...(database ? { DATABASE_URL: database.appUrl } : { DATA_DIR: dataDir ?? "./data" }),
    BETTER_AUTH_SECRET: secret,
    TRUST_PROXY: "true",
  };
}

type LuaData = Parameters<typeof luaPrelude>[0];

/** One wrk measurement: what to ask for, of which server, with which Lua script and data. */
interface Scenario {
  id: string;
  label: string;
  path: string;
  /** Lua scenario file in bench/lua (visitors.lua is prepended for the app, report.lua appended). */
  lua?: string;
  /** Data the Lua script reads, fresh before every run (session cookies are refreshed). */
  data?: () => Promise<LuaData>;
  connections?: number;
  target: "ceiling" | "app";
  /** Run once, for this many seconds, after the rounds and without a warm-up (the scale run). */
  once?: number;
}

/** The users and rows the scenarios use, made before any measurement. */
interface Setup {
  origin: string;
  seeded: Awaited<ReturnType<typeof seedUsers>>;
  dashboardUser: SessionUser;
  writers: SessionUser[];
  reorderers: SessionUser[];
  reorderIds: number[][];
  /** The user whose dose the intake scenario ticks (a year of tracking seeded, as the dashboard user's). */
  tracker: SessionUser;
  trackerDose: { supplementId: number; time: string };
  /** Supplements whose 'View Product' link shows (premium owners). */
  goIds: number[];
  /** `/og/{username}/{version}.png` of the first BENCH_CARDS profiles, from their pages' og:image. */
  cardPaths: string[];
  /** The avatars' ETags (for If-None-Match), read once when the 304 scenario first needs them. */
  avatarEtags?: string[];
  /** Scale profiles seeded (0: the scale run is not selected). */
  scaleProfiles: number;
}

/** Today's date in UTC: the tracked users set no time zone. */
const utcToday = () => new Date().toISOString().slice(0, 10);

/**
 * Every scenario, as data: its id and label, the path wrk asks for (or the Lua script and
 * the data it reads, fresh before each run), the connections when not the default, and
 * which server answers. One loop (`measureScenarios`) runs them all.
 */
function scenarioTable(setup: Setup): Scenario[] {
  const { origin, seeded, dashboardUser, writers, reorderers, reorderIds, tracker, trackerDose } = setup;
  const refresh = (users: SessionUser[]) => pool(users, 8, (u) => refreshSession(origin, u));
  const session = (user: SessionUser, path: string) => async () => {
    await refresh([user]);
    return { cookie: user.jar.header(), address: user.address, path };
  };
  const scenarios: Scenario[] = [
    { id: "ceiling", label: "Ceiling: Bun.serve, same bytes as a profile page", path: "/", target: "ceiling" },
    {
      id: "landing",
      label: "Landing page `/`",
      path: "/",
      lua: "random-path.lua",
      data: async () => ({ paths: ["/"] }),
      target: "app",
    },
    {
      id: "profile",
      label: `Public profile page \`/{username}\`, random of ${seeded.usernames.length}, no User-Agent (not counted as a view)`,
      path: "/",
      lua: "random-path.lua",
      data: async () => ({ paths: seeded.usernames.map((n) => `/${n}`) }),
      target: "app",
    },
    {
      id: "profile-counted",
      label: `Public profile page \`/{username}\`, random of ${seeded.usernames.length}, Chrome's User-Agent: each request counts a view`,
      path: "/",
      lua: "random-path.lua",
      data: async () => ({ paths: seeded.usernames.map((n) => `/${n}`), user_agent: BROWSER_USER_AGENT }),
      target: "app",
    },
    {
      id: "profile-crawler",
      label: `Public profile page \`/{username}\`, random of ${seeded.usernames.length}, a crawler's User-Agent as long as Chrome's (not counted as a view)`,
      path: "/",
      lua: "random-path.lua",
      data: async () => ({ paths: seeded.usernames.map((n) => `/${n}`), user_agent: CRAWLER_USER_AGENT }),
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
      data: session(dashboardUser, "/api/supplements"),
      target: "app",
    },
    {
      id: "supplements-write",
      label: `\`POST /api/supplements\` alternating with \`DELETE\` of the created row, ${config.writers} users`,
      path: "/",
      lua: "supplements-write.lua",
      data: async () => {
        await refresh(writers);
        return { origin, cookies: writers.map((u) => u.jar.header()), addresses: writers.map((u) => u.address) };
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
        return {
          origin,
          cookies: reorderers.map((u) => u.jar.header()),
          addresses: reorderers.map((u) => u.address),
          ids: reorderIds,
        };
      },
      target: "app",
    },
    {
      id: "avatar",
      label: `Avatar \`/images/{id}.webp\`, random of ${seeded.avatarPaths.length}, full bodies (no If-None-Match)`,
      path: "/",
      lua: "random-path.lua",
      data: async () => ({ paths: seeded.avatarPaths }),
      target: "app",
    },
    {
      id: "avatar-304",
      label: `Avatar \`/images/{id}.webp\` with its If-None-Match (304), random of ${seeded.avatarPaths.length}`,
      path: "/",
      lua: "random-path.lua",
      data: async () => {
        setup.avatarEtags ??= await pool(seeded.avatarPaths, 8, async (path) => {
          const res = await fetch(`${origin}${path}`, { headers: { "X-Forwarded-For": ownAddress(0) } });
          await res.arrayBuffer();
          const etag = res.headers.get("etag");
          if (res.status !== 200 || !etag) throw new Error(`GET ${path} answered ${res.status} without an ETag`);
          return etag;
        });
        return { paths: seeded.avatarPaths, etags: setup.avatarEtags };
      },
      target: "app",
    },
    {
      id: "go",
      label: `\`/go/{id}\` (302 to the affiliate link), random of ${setup.goIds.length} premium supplements, Chrome's User-Agent (clicks counted)`,
      path: "/",
      lua: "random-path.lua",
      data: async () => ({ paths: setup.goIds.map((id) => `/go/${id}`), user_agent: BROWSER_USER_AGENT }),
      target: "app",
    },
    {
      id: "card",
      label: `Social card \`/og/{username}/{version}.png\`, random of ${setup.cardPaths.length}, each rendered once before`,
      path: "/",
      lua: "random-path.lua",
      data: async () => ({ paths: setup.cardPaths }),
      target: "app",
    },
    {
      id: "today",
      label: `\`GET /api/today\` with a session (${config.perUser} supplements scheduled)`,
      path: "/api/today",
      lua: "session-get.lua",
      data: session(dashboardUser, "/api/today"),
      target: "app",
    },
    {
      id: "intake-put",
      label: "`PUT /api/intakes/{today}/{id}/{time}`, taken and skipped alternately, one user, 1 connection",
      path: "/",
      lua: "intake.lua",
      connections: 1,
      data: async () => {
        await refresh([tracker]);
        return {
          origin,
          cookie: tracker.jar.header(),
          address: tracker.address,
          path: `/api/intakes/${utcToday()}/${trackerDose.supplementId}/${trackerDose.time}`,
        };
      },
      target: "app",
    },
    {
      id: "history",
      label: `\`GET /api/history\` of ${config.trackedDays} days with a session (a year of doses logged)`,
      path: "/",
      lua: "session-get.lua",
      data: async () => session(dashboardUser, historyPath())(),
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
        return { origin, cookies: [first.jar.header()], addresses: [first.address], ids: [firstIds] };
      },
      target: "app",
    });
  }
  scenarios.push({
    id: "scale",
    label: `Scale: \`/{username}\` of ${config.scaleProfiles.toLocaleString("en-US")} profiles, Zipf visits (s = ${config.zipfS}), Chrome's User-Agent, one ${config.scaleSeconds} s run`,
    path: "/",
    lua: "zipf.lua",
    once: config.scaleSeconds,
    data: async () => ({
      profiles: config.scaleProfiles,
      zipf_s: config.zipfS,
      perm_a: ZIPF_SPREAD,
      name_prefix: SCALE_PREFIX,
      user_agent: BROWSER_USER_AGENT,
    }),
    target: "app",
  });
  return scenarios;
}

/** The 366-day history of today (UTC: the tracked users set no zone). */
const historyPath = () => {
  const today = utcToday();
  return `/api/history?from=${addDays(today, -(config.trackedDays - 1))}&to=${today}`;
};

/** Every id BENCH_ONLY may name: the scenarios of `scenarioTable`, in its order, and the phases. */
const SCENARIO_IDS = [
  "ceiling",
  "landing",
  "profile",
  "profile-counted",
  "profile-crawler",
  "api-profile",
  "supplements-get",
  "supplements-write",
  "reorder",
  "avatar",
  "avatar-304",
  "go",
  "card",
  "today",
  "intake-put",
  "history",
  "reorder-1",
  "scale",
];

/** BENCH_ONLY's scenarios (the ceiling always runs); every scenario when it is empty. */
function selectScenarios(scenarios: Scenario[]): Scenario[] {
  const ids = scenarios.map((s) => s.id);
  if (ids.join() !== SCENARIO_IDS.filter((id) => ids.includes(id)).join()) {
    throw new Error(`SCENARIO_IDS is out of step with the scenario table: ${ids.join(", ")}`);
  }
  return scenarios.filter((s) => selected(s.id));
}

/** Stops at once on an id BENCH_ONLY does not know (before the build and the seeding). */
function checkOnly() {
  const unknown = config.only.filter((id) => !SCENARIO_IDS.includes(id) && !PHASES.includes(id));
  if (unknown.length) {
    throw new Error(`BENCH_ONLY: unknown id ${unknown.join(", ")} (known: ${[...SCENARIO_IDS, ...PHASES].join(", ")})`);
  }
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

/**
 * Real sign-ups over HTTP (the app migrates the database at start), each from its own
 * address (sign-up is limited to 5 a minute per address); the app is stopped after.
 */
async function signUpUsers(running: Running, startApp: (logName: string) => Promise<Service>, origin: string) {
  log("starting the app to migrate the database and sign users up over HTTP…");
  const app = await startApp("app-setup.log");
  running.app = app;
  const signUpStarted = performance.now();
  const dashboardUser = await signUp(origin, origin, "dashboard@bench.example.com", "Dana Dashboard", ownAddress(1));
  await setUsername(origin, origin, dashboardUser, "dana_dashboard");
  const tracker = await signUp(origin, origin, "tracker@bench.example.com", "Theo Tracker", ownAddress(2));
  const emails = [
    ...Array.from({ length: config.writers }, (_, i) => `writer${i + 1}@bench.example.com`),
    ...Array.from({ length: config.reorderers }, (_, i) => `reorder${i + 1}@bench.example.com`),
  ];
  const signedUp = await pool(emails, 4, (email, i) =>
    signUp(origin, origin, email, email.split("@")[0] ?? "Bench", ownAddress(10 + i)),
  );
  const writers = signedUp.slice(0, config.writers);
  const reorderers = signedUp.slice(config.writers);
  log(
    `${signedUp.length + 2} users signed up over HTTP in ${((performance.now() - signUpStarted) / 1000).toFixed(1)} s`,
  );
  await app.stop();
  running.app = undefined;
  return { dashboardUser, tracker, writers, reorderers };
}

/** The bulk seed with SQL, the app stopped (so no cache of it can be stale). */
async function seedDatabase(
  db: BenchDatabase,
  avatars: Promise<Avatar[]>,
  dashboardUser: SessionUser,
  tracker: SessionUser,
  reorderers: SessionUser[],
) {
  log(`seeding ${config.users} users × ${config.perUser} supplements with WebP avatars…`);
  const sql = postgres(db.appUrl, { max: 4, onnotice: () => {} });
  const reorderIds: number[][] = [];
  try {
    const seeded = await seedUsers(sql, await avatars, config.perUser);
    const dashboardIds = await seedSupplementsFor(sql, dashboardUser.id, config.perUser, 1);
    const trackerIds = await seedSupplementsFor(sql, tracker.id, config.perUser, 2);
    for (const [i, user] of reorderers.entries()) {
      reorderIds.push(await seedSupplementsFor(sql, user.id, config.reorderSize, 100 + i));
    }
    const dashboardTracking = await seedTracking(sql, dashboardUser.id, dashboardIds, config.trackedDays);
    const trackerTracking = await seedTracking(sql, tracker.id, trackerIds, config.trackedDays);
    log(
      `tracking: ${config.trackedDays} days from ${dashboardTracking.from}, ${dashboardTracking.logged} and ${trackerTracking.logged} doses logged for the dashboard and intake users`,
    );
    const goIds = await productLinkIds(sql);
    const scaleProfiles = selected("scale") ? config.scaleProfiles : 0;
    if (scaleProfiles) {
      const scaleStarted = performance.now();
      await seedScaleProfiles(sql, scaleProfiles, config.scaleSupplements);
      log(
        `scale: ${scaleProfiles} more profiles × ${config.scaleSupplements} supplements seeded in ${((performance.now() - scaleStarted) / 1000).toFixed(1)} s (generate_series)`,
      );
    }
    await sql`vacuum analyze`;
    // The seed's writes go to disk now, not during the start-up samples that come next.
    const admin = postgres(db.adminUrl, { max: 1, onnotice: () => {} });
    try {
      await admin`checkpoint`;
    } catch {
      // a role that may not (BENCH_DATABASE_URL): the checkpointer writes them in its own time
    } finally {
      await admin.end({ timeout: 5 });
    }
    const [counts] = await sql<
      { users: number; supplements: number; images: number; sessions: number; intakes: number }[]
    >`
      select (select count(*)::int from users) as users, (select count(*)::int from supplements) as supplements,
             (select count(*)::int from images) as images, (select count(*)::int from sessions) as sessions,
             (select count(*)::int from intakes) as intakes`;
    log(`database: ${JSON.stringify(counts)}; ${goIds.length} supplements with a 'View Product' link`);
    return { seeded, reorderIds, goIds, trackerDose: trackerTracking.dose, scaleProfiles };
  } finally {
    await sql.end();
  }
}

/**
 * Start-up time (issue 17): `bun server.ts` on the built tree to the first 200 on
 * /api/health, BENCH_STARTUP_SAMPLES times each: PGlite in an empty data directory (a new one
 * per sample: it starts from the build's template, dist/pglite-template, or without one runs
 * initdb and every migration), PGlite in a directory already migrated (the first sample's), and
 * Postgres (the bench database, migrated and seeded). Nothing else of the bench runs meanwhile.
 */
async function measureStartup(workDir: string, db: BenchDatabase, secret: string): Promise<StartupResult[]> {
  if (!selected("startup") || config.startupSamples < 1) return [];
  const port = await findFreePort(config.appPort + 60, config.appPort + 110);
  const url = `http://127.0.0.1:${port}/api/health`;
  const cmd = [process.execPath, ...config.appFlags, "server.ts"];
  const sample = (env: Record<string, string>, name: string) =>
    timeToHealthy(cmd, { cwd: ROOT, env, logFile: join(workDir, `startup-${name}.log`), url });
  const migratedDir = join(workDir, "pglite-0");
  const kinds: { id: string; label: string; env: (i: number) => Record<string, string> }[] = [
    {
      id: "pglite-empty",
      label:
        "PGlite, empty data directory (unpacks the build's migrated template, then the migrations find nothing to do)",
      env: (i) => appEnv(undefined, port, secret, join(workDir, `pglite-${i}`)),
    },
    {
      id: "pglite-migrated",
      label: "PGlite, data directory already migrated",
      env: () => appEnv(undefined, port, secret, migratedDir),
    },
    {
      id: "postgres",
      label: `Postgres ${db.serverVersion.split(" ")[0]}, the bench database (migrated and seeded)`,
      env: () => appEnv(db, port, secret),
    },
  ];
  const out: StartupResult[] = [];
  for (const kind of kinds) {
    const samples: StartupSample[] = [];
    for (let i = 0; i < config.startupSamples; i++) samples.push(await sample(kind.env(i), kind.id));
    const samplesMs = samples.map((x) => x.ms);
    out.push({
      id: kind.id,
      label: kind.label,
      samplesMs,
      medianMs: median(samplesMs),
      databaseReadyMs: samples.map((x) => x.databaseReadyMs),
      listeningMs: samples.map((x) => x.listeningMs),
      databaseReadyMedianMs: median(samples.map((x) => x.databaseReadyMs)),
      listeningMedianMs: median(samples.map((x) => x.listeningMs)),
    });
    log(`start-up, ${kind.label}: ${samplesMs.map((ms) => ms.toFixed(0)).join(", ")} ms`);
  }
  for (let i = 0; i < config.startupSamples; i++)
    rmSync(join(workDir, `pglite-${i}`), { recursive: true, force: true });
  return out;
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
  const sample = await fetch(`${origin}/${sampleName}`, { headers: { "X-Forwarded-For": ownAddress(3) } });
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

/**
 * A round's scenarios: in the order listed, except that the counted profile page and its
 * baseline (the crawler's) swap places in every even round, so that neither always runs right
 * after the other: issue 14's 2-point comparison of the two is not tilted by whatever the
 * scenario before leaves behind (garbage, Postgres' background work, the processor's caches).
 */
function inRoundOrder(scenarios: Scenario[], round: number): Scenario[] {
  const order = [...scenarios];
  const a = order.findIndex((s) => s.id === "profile-counted");
  const b = order.findIndex((s) => s.id === "profile-crawler");
  if (round % 2 === 0 && a >= 0 && b >= 0) [order[a], order[b]] = [order[b] as Scenario, order[a] as Scenario];
  return order;
}

type Results = Map<string, { runs: WrkResult[]; cpu: CpuUse[]; statements: number[]; peakRss: number }>;

/**
 * The one loop: a warm-up of every scenario, then BENCH_RUNS rounds of every scenario, each
 * round after waiting for a quiet machine. Per run: requests (wrk), CPU of every process,
 * statements per request (pg_stat_statements) and the app's peak memory. Then, on the same
 * statistics connection: the statements of each kind of request one at a time, the scale run
 * (once, with its cache hit rate) and the statements per reorder.
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
  const visitorsLua = readFileSync(join(import.meta.dir, "lua/visitors.lua"), "utf8");
  const writeScript = async (scenario: Scenario) => {
    const parts = [`-- generated by bench/run.ts for scenario "${scenario.id}"\n`];
    const data = scenario.data ? await scenario.data() : {};
    if (scenario.target === "app") parts.push(luaPrelude({ address_pool: config.addresses, ...data }), visitorsLua);
    else if (scenario.data) parts.push(luaPrelude(data));
    if (scenario.lua) parts.push(readFileSync(join(import.meta.dir, "lua", scenario.lua), "utf8"));
    parts.push(reportLua);
    const file = join(workDir, `${scenario.id}.lua`);
    writeFileSync(file, parts.join("\n"));
    return file;
  };

  const meter = new CpuMeter({ app: () => appPid, ceiling: () => ceilingPid, postmaster: db.postmasterPid });
  const stats = db.statements ? postgres(db.adminUrl, { max: 1, onnotice: () => {} }) : undefined;
  const counter = stats ? statementCounter(stats, new URL(db.appUrl).username) : undefined;
  const statementCalls = async (): Promise<number> => (counter ? counter.total() : Number.NaN);

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
  const line = (s: Scenario, r: WrkResult) => {
    const counters = Object.keys(r.counters).length ? ` ${JSON.stringify(r.counters)}` : "";
    return `  ${s.id.padEnd(17)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.latencyMs.p50.toFixed(2)} ms  p99 ${r.latencyMs.p99.toFixed(2)} ms  errors ${r.errorCount}${counters}`;
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

  const rounds = scenarios.filter((s) => !s.once);
  await waitQuiet("before the warm-up");
  if (config.warmup > 0) {
    log(`warm-up: ${config.warmup} s per scenario`);
    for (const s of rounds) {
      const r = await once(s, config.warmup, false);
      log(`  warm-up ${s.id}: ${r.rps.toFixed(0)} req/s, ${r.errorCount} errors`);
    }
  }
  for (let round = 1; round <= config.runs; round++) {
    await waitQuiet(`before round ${round}`);
    log(`round ${round}/${config.runs}: ${rounds.length} scenarios × ${config.seconds} s`);
    for (const s of inRoundOrder(rounds, round)) {
      await Bun.sleep(500);
      log(line(s, await once(s, config.seconds, true)));
    }
  }

  // ---- issue 14: the counted page against the crawler's, in pairs of short runs ----------
  // Back to back, so that both runs of a pair see the same machine: the ceiling moves by
  // ±20% between rounds here, more than the 2 points to be told apart. The order alternates.
  const pairs: CountingPair[] = [];
  const profiled: ProfiledRun[] = [];
  const countedPage = rounds.find((s) => s.id === "profile-counted");
  const crawlerPage = rounds.find((s) => s.id === "profile-crawler");
  if (countedPage && crawlerPage && config.pairs > 0) {
    await waitQuiet("before the paired runs");
    log(
      `paired runs: ${config.pairs} × (counted page, crawler's page) × ${config.pairSeconds} s, the order alternating`,
    );
    for (let p = 1; p <= config.pairs; p++) {
      const runs = new Map<string, { rps: number; cpu: CpuUse }>();
      for (const s of p % 2 ? [countedPage, crawlerPage] : [crawlerPage, countedPage]) {
        await Bun.sleep(300);
        const before = meter.snapshot();
        const profile = config.perfDir ? profileRun(appPid, `pair-${p}-${s.id}`) : undefined;
        const result = await once(s, config.pairSeconds, false);
        runs.set(s.id, { rps: result.rps, cpu: meter.between(before, meter.snapshot(), result.wrkCpuSeconds) });
        if (profile) profiled.push({ pair: p, scenario: s.id, rps: result.rps, ...(await profile) });
      }
      const counted = runs.get(countedPage.id);
      const crawler = runs.get(crawlerPage.id);
      const pair: CountingPair = {
        counted: counted?.rps ?? Number.NaN,
        crawler: crawler?.rps ?? Number.NaN,
        countedCpu: counted?.cpu,
        crawlerCpu: crawler?.cpu,
      };
      pairs.push(pair);
      // The app's and Postgres' CPU per request (µs), and other processes' cores, of each run.
      const use = (run: typeof counted) =>
        run
          ? `app ${usPerRequest(run.cpu.app, run.rps).toFixed(1)} µs, postgres ${usPerRequest(run.cpu.postgres, run.rps).toFixed(2)} µs, other ${run.cpu.other.toFixed(2)} cores`
          : "";
      log(
        `  pair ${p}: counted ${pair.counted.toFixed(0)} req/s (${use(counted)}), crawler ${pair.crawler.toFixed(0)} req/s (${use(crawler)}): ${(pair.counted / pair.crawler).toFixed(3)}`,
      );
    }
  }

  if (config.perfDir && profiled.length > 0) finishProfiles(appPid, profiled);

  // ---- statements of each kind of request, one request at a time ---------------------
  const probes = counter ? await measureProbes(setup, counter) : [];

  // ---- the scale run: once, after everything else has had the cache -----------------
  let scale: ScaleResult | undefined;
  for (const s of scenarios.filter((x) => x.once)) {
    if (!setup.scaleProfiles) continue;
    await waitQuiet(`before ${s.id}`);
    const misses = counter ? await scaleMissProbe(setup.origin, counter) : undefined;
    const before = counter ? await counter.snapshot() : undefined;
    const rssBefore = memory(appPid)?.rss ?? Number.NaN;
    log(`${s.id}: one run of ${s.once} s over ${config.scaleProfiles} profiles…`);
    const r = await once(s, s.once ?? config.seconds, true);
    log(line(s, r));
    const during = counter && before ? between(before, await counter.snapshot()) : undefined;
    scale = scaleResult(r, misses, during, rssBefore);
    log(
      `  scale: ${scale.misses.toFixed(0)} misses of ${r.requests} requests (hit rate ${(scale.hitRate * 100).toFixed(1)}%), ${scale.statementsPerMiss} statements per miss`,
    );
  }
  peakSinceReset();
  const memoryAfterLoad = memory(appPid);

  // ---- statements per reorder: 200 items against 20 --------------------------------
  const reorderStatements = selected("reorder")
    ? await measureReorderStatements(
        setup.origin,
        counter,
        setup.reorderers[0],
        setup.reorderIds[0],
        setup.dashboardUser,
        stats !== undefined,
      )
    : [];
  await stats?.end();
  return {
    results,
    backgroundLoads,
    memoryAfterLoad,
    reorderStatements,
    probes,
    pairs,
    scale,
    peakSinceReset,
    overallPeak: () => overallPeak,
  };
}

/**
 * Statements per request of each new kind of request (and the cached pages, for
 * comparison), one request at a time: 10 requests after one unmeasured (the cache warm).
 * Only for the scenarios selected.
 */
async function measureProbes(setup: Setup, counter: StatementCounter): Promise<StatementProbe[]> {
  const { origin, dashboardUser, tracker, trackerDose, seeded } = setup;
  await refreshSession(origin, dashboardUser);
  await refreshSession(origin, tracker);
  const visitor = ownAddress(5);
  const answer = async (what: string, res: Response, status: number) => {
    await res.arrayBuffer();
    if (res.status !== status) throw new Error(`statement probe: ${what} answered ${res.status}, not ${status}`);
  };
  const get =
    (path: string, status: number, headers: Record<string, string> = {}) =>
    async () =>
      answer(
        `GET ${path}`,
        await fetch(`${origin}${path}`, { headers: { "X-Forwarded-For": visitor, ...headers }, redirect: "manual" }),
        status,
      );
  const signedIn = (user: SessionUser) => ({ Cookie: user.jar.header(), "X-Forwarded-For": user.address });
  const name = seeded.usernames[2] ?? "";
  const intakePath = () => `/api/intakes/${utcToday()}/${trackerDose.supplementId}/${trackerDose.time}`;
  const probes: { id: string; label: string; send: (i: number) => Promise<void> }[] = [
    { id: "profile", label: `\`GET /${name}\` (cached page), no User-Agent`, send: get(`/${name}`, 200) },
    {
      id: "profile-counted",
      label: `\`GET /${name}\` (cached page), Chrome's User-Agent: a counted view`,
      send: get(`/${name}`, 200, { "User-Agent": BROWSER_USER_AGENT }),
    },
    {
      id: "avatar",
      label: "Avatar `/images/{id}.webp`, after its first request",
      send: get(seeded.avatarPaths[2] ?? "", 200),
    },
    {
      id: "go",
      label: "`/go/{id}` of a premium supplement, Chrome's User-Agent: a counted click",
      send: get(`/go/${setup.goIds[0]}`, 302, { "User-Agent": BROWSER_USER_AGENT }),
    },
    { id: "card", label: "Social card, after its first render", send: get(setup.cardPaths[0] ?? "", 200) },
    {
      id: "today",
      label: "`GET /api/today`, after the first read",
      send: get("/api/today", 200, signedIn(dashboardUser)),
    },
    {
      id: "intake-put",
      label: "`PUT /api/intakes/{today}/{id}/{time}`, taken and skipped alternately",
      send: async (i) =>
        answer(
          "PUT /api/intakes",
          await fetch(`${origin}${intakePath()}`, {
            method: "PUT",
            headers: { ...signedIn(tracker), Origin: origin, "Content-Type": "application/json" },
            body: JSON.stringify({ status: i % 2 ? "skipped" : "taken" }),
          }),
          200,
        ),
    },
    {
      id: "history",
      label: `\`GET /api/history\`, ${config.trackedDays} days, the session known to the instance`,
      send: async () => get(historyPath(), 200, signedIn(dashboardUser))(),
    },
  ];
  const out: StatementProbe[] = [];
  for (const p of probes) {
    if (!selected(p.id)) continue;
    await p.send(-1); // fills whatever the app keeps in memory, as the wrk runs did
    const probe = await probeStatements(counter, p.id, p.label, 10, p.send);
    out.push(probe);
    log(`statements per request, one at a time, ${p.id}: ${probe.perRequest.join(",")}`);
  }
  if (selected("history")) {
    // What the session check adds: the first request of a session this instance has not seen.
    const fresh = await signIn(origin, origin, dashboardUser);
    const probe = await probeStatements(
      counter,
      "history-new-session",
      "`GET /api/history`, the first request of a new session (after a sign-in)",
      1,
      get(historyPath(), 200, signedIn(fresh)),
    );
    out.push(probe);
    log(`statements per request, history with a new session: ${probe.perRequest.join(",")}`);
  }
  return out;
}

interface MissProbe {
  cold: StatementProbe;
  warm: StatementProbe;
  pageBytes: number;
}

/**
 * What a miss of the profile cache costs in statements, learnt before the scale run: 20
 * scale profiles nobody has asked for yet (the least visited ranks), one at a time, with no
 * User-Agent (no view counted, so no flush follows), then the same 20 again (now cached).
 */
async function scaleMissProbe(origin: string, counter: StatementCounter): Promise<MissProbe> {
  const n = 20;
  const names = Array.from({ length: n }, (_, i) => scaleName(config.scaleProfiles - i));
  let pageBytes = 0;
  const get = async (i: number) => {
    const res = await fetch(`${origin}/${names[i]}`, { headers: { "X-Forwarded-For": ownAddress(6) } });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET /${names[i]} answered ${res.status}`);
    pageBytes = body.byteLength;
  };
  const cold = await probeStatements(counter, "scale-miss", "a profile page not in the cache", n, get);
  const warm = await probeStatements(counter, "scale-hit", "the same page again (cached)", n, get);
  return { cold, warm, pageBytes };
}

/**
 * The scale run's cache hit rate, derived from statements: the statements a miss costs
 * (those that ran for nearly every cold page in `scaleMissProbe`) counted over the run,
 * divided by how many one miss takes, are the misses; every other request was a hit.
 */
function scaleResult(
  r: WrkResult,
  probe: MissProbe | undefined,
  during: ReturnType<typeof between> | undefined,
  rssBefore: number,
): ScaleResult {
  const n = probe?.cold.perRequest.length ?? 0;
  const missStatements = (probe?.cold.statements ?? []).filter((x) => x.calls >= 0.9 * n);
  const perMiss = n ? missStatements.reduce((sum, x) => sum + x.calls, 0) / n : Number.NaN;
  const missIds = new Set(missStatements.map((x) => x.id));
  let missCalls = 0;
  const other: { query: string; calls: number }[] = [];
  for (const [id, x] of during ?? new Map()) {
    if (missIds.has(id)) missCalls += x.calls;
    else other.push({ query: x.query, calls: x.calls });
  }
  const misses = during && perMiss > 0 ? missCalls / perMiss : Number.NaN;
  const cacheMb = parseConfig({}).PROFILE_CACHE_MB;
  const pageBytes = probe?.pageBytes ?? Number.NaN;
  const capacity = Math.min(config.scaleProfiles, Math.floor((cacheMb * 2 ** 20) / pageBytes));
  const weight = (k: number) => k ** -config.zipfS;
  let top = 0;
  let all = 0;
  for (let k = 1; k <= config.scaleProfiles; k++) {
    all += weight(k);
    if (k <= capacity) top += weight(k);
  }
  return {
    profiles: config.scaleProfiles,
    supplementsEach: config.scaleSupplements,
    zipfS: config.zipfS,
    seconds: r.seconds,
    requests: r.requests,
    statementsPerMiss: perMiss,
    missStatements: missStatements.map((x) => x.query),
    missProbe: probe?.cold.perRequest ?? [],
    hitProbe: probe?.warm.perRequest ?? [],
    misses,
    hitRate: 1 - misses / r.requests,
    otherStatements: other.sort((a, b) => b.calls - a.calls),
    statementsTotal: during ? sumCalls(during) : Number.NaN,
    pageBytes,
    cacheMb,
    cacheCapacity: capacity,
    topShare: top / all,
    rssBefore,
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

/** What each of the app's caches may keep at the defaults, in MB (the memory explanation). */
function cacheCapsMb(): [string, number][] {
  const c = parseConfig({});
  return [
    ["PROFILE_CACHE_MB", c.PROFILE_CACHE_MB],
    ["IMAGE_CACHE_MB", c.IMAGE_CACHE_MB],
    ["USER_CACHE_MB", c.USER_CACHE_MB],
    ["the social cards'", CARD_STORE_BYTES / 2 ** 20],
  ];
}

/** The app's settings that the report names, at the defaults `npm start` runs with. */
function appDefaults(): string {
  const c = parseConfig({});
  return `LOG_LEVEL=${c.LOG_LEVEL}, RATE_LIMIT=${c.RATE_LIMIT}, PROFILE_CACHE_MB=${c.PROFILE_CACHE_MB}, SESSION_COOKIE_CACHE_SECONDS=${c.SESSION_COOKIE_CACHE_SECONDS}, INSIGHTS_FLUSH_MS=${c.INSIGHTS_FLUSH_MS}, DATABASE_POOL_SIZE=${c.DATABASE_POOL_SIZE}`;
}

/**
 * The social card of each of `names` (issue 16): its URL from the profile page's og:image
 * (the version the page points to), then one request, which renders it; the scenario asks
 * for these URLs only, each rendered before.
 */
async function warmCards(origin: string, names: string[]): Promise<{ paths: string[]; firstRender: CardRender }> {
  const started = performance.now();
  let bytes = 0;
  const samplesMs: number[] = [];
  // One at a time: each card request's time is its own render, not a queue behind another.
  const paths = await pool(names, 1, async (name) => {
    const page = await fetch(`${origin}/${name}`, { headers: { "X-Forwarded-For": ownAddress(7) } });
    const html = await page.text();
    const content = /<meta[^>]*property="og:image"[^>]*content="([^"]+)"/.exec(html)?.[1];
    if (page.status !== 200 || !content)
      throw new Error(`GET /${name}: ${page.status}, og:image ${content ?? "missing"}`);
    const path = new URL(content.replaceAll("&amp;", "&"), origin).pathname;
    const asked = performance.now();
    const card = await fetch(`${origin}${path}`, { headers: { "X-Forwarded-For": ownAddress(7) } });
    const png = await card.arrayBuffer();
    samplesMs.push(performance.now() - asked);
    if (card.status !== 200 || card.headers.get("content-type") !== "image/png") {
      throw new Error(`GET ${path} answered ${card.status} ${card.headers.get("content-type")}`);
    }
    bytes += png.byteLength;
    return path;
  });
  log(
    `${paths.length} social cards rendered in ${((performance.now() - started) / 1000).toFixed(1)} s (${(bytes / 1e6).toFixed(1)} MB of PNG, ${(bytes / Math.max(paths.length, 1) / 1000).toFixed(1)} KB each; first request of each: median ${median(samplesMs).toFixed(1)} ms)`,
  );
  return {
    paths,
    firstRender: { samplesMs, medianMs: median(samplesMs), bytesEach: bytes / Math.max(paths.length, 1) },
  };
}

async function main() {
  checkOnly();
  const workDir = mkdtempSync("/tmp/stacktrack-bench-");
  installSignalHandlers(() => console.error(`[bench] interrupted; logs kept in ${workDir}`));
  let keepWorkDir = config.keepWorkDir;
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
    // The memory probe (bench/memory-probe.ts) only listens for SIGUSR2, sent once at the end.
    const memoryProbeFile = join(workDir, "memory-probe.json");
    const startApp = async (logName: string) => {
      const cmd = [process.execPath, ...config.appFlags, "--preload", MEMORY_PROBE, "server.ts"];
      const service = startService("app", cmd, {
        cwd: ROOT,
        env: { ...appEnv(db, appPort, secret), BENCH_MEMORY_PROBE: memoryProbeFile },
        logFile: join(workDir, logName),
      });
      await waitForHttp(`${origin}/api/health`, service);
      return service;
    };

    const { dashboardUser, tracker, writers, reorderers } = await signUpUsers(running, startApp, origin);
    const { seeded, reorderIds, goIds, trackerDose, scaleProfiles } = await seedDatabase(
      db,
      avatarsReady,
      dashboardUser,
      tracker,
      reorderers,
    );
    const startup = await measureStartup(workDir, db, secret);
    const setup: Setup = {
      origin,
      seeded,
      dashboardUser,
      writers,
      reorderers,
      reorderIds,
      tracker,
      trackerDose,
      goIds,
      cardPaths: [],
      scaleProfiles,
    };

    const measured = await startMeasured(running, startApp, workDir, origin, ceilingPort, seeded);
    let cardFirstRender: CardRender | undefined;
    if (selected("card")) {
      const warmed = await warmCards(origin, seeded.usernames.slice(0, config.cards));
      setup.cardPaths = warmed.paths;
      cardFirstRender = warmed.firstRender;
    }
    await sanityChecks(setup, db);

    const scenarios = selectScenarios(scenarioTable(setup));
    const urlOf = (s: Scenario) =>
      `${s.target === "ceiling" ? `http://127.0.0.1:${ceilingPort}` : origin}${s.path === "/" ? "/" : s.path}`;
    const load = await measureScenarios(scenarios, workDir, db, measured, urlOf, setup);

    const { js, lighthouse, browserError } = await measureBrowser(origin, measured.sampleName, dashboardUser);
    load.peakSinceReset();
    const memoryAfterAll = memory(measured.appPid);
    const heapAfterAll = await probeMemory(measured.appPid, memoryProbeFile);

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
        addresses: config.addresses,
        cards: setup.cardPaths.length,
        goLinks: goIds.length,
        trackedDays: config.trackedDays,
        scaleProfiles: config.scaleProfiles,
        scaleSupplements: config.scaleSupplements,
        scaleSeconds: config.scaleSeconds,
        zipfS: config.zipfS,
        startupSamples: config.startupSamples,
        pairs: config.pairs,
        pairSeconds: config.pairSeconds,
        appDefaults: appDefaults(),
        cacheCapsMb: cacheCapsMb(),
        only: config.only,
      },
      scenarios: scenarios.map((s) => scenarioResult(s, load.results)),
      backgroundLoad: median(load.backgroundLoads),
      memory: {
        atStart: measured.memoryAtStart,
        afterLoad: load.memoryAfterLoad,
        afterAll: memoryAfterAll,
        heapAfterAll,
        overallPeak: load.overallPeak(),
      },
      reorderStatements: load.reorderStatements,
      statementProbes: load.probes,
      countingPairs: load.pairs,
      scale: load.scale,
      cardFirstRender,
      startup,
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

/**
 * One request of each kind, checked, before any load: a broken scenario fails loudly here.
 * Every request carries an X-Forwarded-For, as the scenarios' do.
 */
async function sanityChecks(setup: Setup, db: BenchDatabase) {
  const { origin, seeded, dashboardUser, writers, reorderers, reorderIds, tracker, trackerDose } = setup;
  const visitor = { "X-Forwarded-For": ownAddress(8) };
  const browser = { ...visitor, "User-Agent": BROWSER_USER_AGENT };
  const signedIn = (user: SessionUser) => ({ Cookie: user.jar.header(), "X-Forwarded-For": user.address });
  const get = (path: string, headers: Record<string, string> = visitor) =>
    fetch(`${origin}${path}`, { headers, redirect: "manual" });
  const expect = async (what: string, res: Response, status: number, check?: (body: string) => boolean) => {
    const body = await res.text();
    if (res.status !== status || (check && !check(body))) {
      throw new Error(`sanity check failed: ${what} answered ${res.status}: ${body.slice(0, 300)}`);
    }
    return body;
  };
  const check = async (what: string, ok: boolean, detail: string) => {
    if (!ok) throw new Error(`sanity check failed: ${what}: ${detail}`);
  };
  const name = seeded.usernames[1] ?? "";
  await expect("GET /", await get("/"), 200);
  await expect(`GET /${name}`, await get(`/${name}`), 200, (b) => b.includes(`@${name}`));
  await expect(
    `GET /api/profile/${name}`,
    await get(`/api/profile/${name}`),
    200,
    (b) => (JSON.parse(b) as { supplements: unknown[] }).supplements.length === config.perUser,
  );

  // profile-counted: a view with Chrome's User-Agent counts, one without does not. Counts
  // reach Postgres with the next flush (at most INSIGHTS_FLUSH_MS): wait for that one.
  const sql = postgres(db.appUrl, { max: 1, onnotice: () => {} });
  try {
    const ids = await sql<{ id: string; username: string }[]>`
      select id, username from users where username in ${sql([seeded.usernames[3] ?? "", seeded.usernames[4] ?? ""])}`;
    const counted = ids.find((u) => u.username === seeded.usernames[3]);
    const uncounted = ids.find((u) => u.username === seeded.usernames[4]);
    await expect(`GET /${uncounted?.username} (no User-Agent)`, await get(`/${uncounted?.username}`), 200);
    await expect(`GET /${counted?.username} (Chrome)`, await get(`/${counted?.username}`, browser), 200);
    const views = async (id: string | undefined) =>
      (
        await sql<
          { views: number }[]
        >`select coalesce(sum(views), 0)::int as views from profile_daily_counts where user_id = ${id ?? ""}`
      )[0]?.views ?? 0;
    const deadline = Date.now() + 15_000;
    while ((await views(counted?.id)) < 1 && Date.now() < deadline) await Bun.sleep(200);
    await check(
      "a profile view with a browser's User-Agent",
      (await views(counted?.id)) >= 1,
      "no view counted within 15 s",
    );
    await check("a profile view without a User-Agent", (await views(uncounted?.id)) === 0, "it was counted as a view");
  } finally {
    await sql.end();
  }

  await expect(
    "GET /api/supplements",
    await get("/api/supplements", signedIn(dashboardUser)),
    200,
    (b) => (JSON.parse(b) as unknown[]).length === config.perUser,
  );
  const writer = writers[0];
  if (writer) {
    const headers = { ...signedIn(writer), Origin: origin, "Content-Type": "application/json" };
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
        headers: { ...signedIn(writer), Origin: origin },
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
        headers: { ...signedIn(reorderer), Origin: origin, "Content-Type": "application/json" },
        body: JSON.stringify({ supplementIds: [...ids].reverse() }),
      }),
      200,
      (b) => (JSON.parse(b) as unknown[]).length === ids.length,
    );
  }

  const avatar = seeded.avatarPaths[1] ?? "";
  const image = await get(avatar);
  await image.arrayBuffer();
  const etag = image.headers.get("etag");
  await check(
    `GET ${avatar}`,
    image.status === 200 && image.headers.get("content-type") === "image/webp" && !!etag,
    `${image.status} ${image.headers.get("content-type")}, ETag ${etag}`,
  );
  await expect(`GET ${avatar} with If-None-Match`, await get(avatar, { ...visitor, "If-None-Match": etag ?? "" }), 304);

  const goId = setup.goIds[0];
  await check("premium supplements with a 'View Product' link", goId !== undefined, "none seeded");
  const go = await get(`/go/${goId}`, browser);
  await go.arrayBuffer();
  await check(
    `GET /go/${goId}`,
    go.status === 302 && (go.headers.get("location") ?? "").startsWith("https://shop.example.com/"),
    `${go.status} to ${go.headers.get("location")}`,
  );

  if (selected("card")) {
    const card = setup.cardPaths[0] ?? "";
    const png = await get(card);
    const bytes = new Uint8Array(await png.arrayBuffer());
    await check(
      `GET ${card}`,
      png.status === 200 && png.headers.get("content-type") === "image/png" && bytes[1] === 0x50 && bytes[2] === 0x4e,
      `${png.status} ${png.headers.get("content-type")}`,
    );
  }

  const today = utcToday();
  await expect("GET /api/today", await get("/api/today", signedIn(dashboardUser)), 200, (b) => {
    const day = JSON.parse(b) as { date: string; doses: unknown[] };
    return day.date === today && day.doses.length > 0;
  });
  const intake = `/api/intakes/${today}/${trackerDose.supplementId}/${trackerDose.time}`;
  for (const status of ["taken", "skipped"]) {
    await expect(
      `PUT ${intake} ${status}`,
      await fetch(`${origin}${intake}`, {
        method: "PUT",
        headers: { ...signedIn(tracker), Origin: origin, "Content-Type": "application/json" },
        body: JSON.stringify({ status }),
      }),
      200,
      (b) => (JSON.parse(b) as { status: string }).status === status,
    );
  }
  await expect(`GET ${historyPath()}`, await get(historyPath(), signedIn(dashboardUser)), 200, (b) => {
    const h = JSON.parse(b) as { days: { taken: number }[] };
    return h.days.length === config.trackedDays && h.days.filter((d) => d.taken > 0).length > config.trackedDays / 2;
  });

  if (setup.scaleProfiles) {
    const first = scaleName(1);
    await expect(`GET /${first}`, await get(`/${first}`, browser), 200, (b) => b.includes(`@${first}`));
  }
  log("sanity checks passed (every scenario's request answers as expected)");
}

/** Statements the app sends per reorder of a 200-item list and of a 20-item list (pg_stat_statements). */
async function measureReorderStatements(
  origin: string,
  counter: StatementCounter | undefined,
  bigUser: SessionUser | undefined,
  bigIds: number[] | undefined,
  smallUser: SessionUser,
  available: boolean,
): Promise<{ items: number; statements: number; all: number[] }[]> {
  if (!available || !counter || !bigUser || !bigIds) return [];
  const res = await fetch(`${origin}/api/supplements`, {
    headers: { Cookie: smallUser.jar.header(), "X-Forwarded-For": smallUser.address },
  });
  const smallIds = ((await res.json()) as { id: number }[]).map((s) => s.id);
  const out: { items: number; statements: number; all: number[] }[] = [];
  const background: string[] = [];
  for (const [user, ids] of [
    [bigUser, bigIds],
    [smallUser, smallIds],
  ] as const) {
    await refreshSession(origin, user);
    // One request at a time, counted alone, less the app's timers' statements (isBackground);
    // the median ignores anything else stray.
    const perRequest: number[] = [];
    for (let i = 0; i < 10; i++) {
      const order = i % 2 ? [...ids] : [...ids].reverse();
      const before = await counter.snapshot();
      const r = await fetch(`${origin}/api/supplements/reorder`, {
        method: "PUT",
        headers: {
          Cookie: user.jar.header(),
          Origin: origin,
          "Content-Type": "application/json",
          "X-Forwarded-For": user.address,
        },
        body: JSON.stringify({ supplementIds: order }),
      });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`reorder for the statement count answered ${r.status}`);
      const delta = between(before, await counter.snapshot());
      for (const s of delta.values()) if (isBackground(s.query)) background.push(shortQuery(s.query, 60));
      perRequest.push(requestCalls(delta));
    }
    out.push({ items: ids.length, statements: median(perRequest), all: perRequest });
  }
  log(`statements per reorder: ${out.map((o) => `${o.items} items → ${o.all.join(",")}`).join("; ")}`);
  if (background.length > 0)
    log(`  left out, the app's timers: ${[...new Set(background)].join(" | ")} (${background.length})`);
  return out;
}

await main();
