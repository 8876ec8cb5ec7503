/**
 * `npm run bench`: measures the app as `npm start` ships it (built, `bun server.ts`, default
 * settings, on a throw-away Postgres 15 with seeded data) against a ceiling (a bare Bun.serve
 * answering a profile page's bytes) in the same run, with wrk per scenario, and writes
 * BENCHMARKS.md (bench/report.ts). Needs wrk (`apt-get install -y wrk`) and the Postgres
 * server programs. About 5 minutes. docs/benchmarks.md says what is measured and how, and
 * lists the settings (BENCH_* environment variables).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import pLimit from "p-limit";
import postgres from "postgres";
import { addDays } from "../src/lib/dates";
import { keptSections } from "../tests/support/benchmarks-file";
import { cleanupAll, findFreePort, ROOT, run, shippedEnv } from "../tests/support/process";
import {
  callsBetween,
  coresBetween,
  cpuSnapshot,
  installSignalHandlers,
  luaPrelude,
  median,
  memory,
  probe,
  runWrk,
  type Service,
  startService,
  statementCalls,
  type WrkResult,
  waitForHttp,
} from "./lib";
import { type BenchDatabase, startCluster } from "./postgres";
import { type InstallSize, type Report, renderReport, type ScenarioResult } from "./report";
import {
  BROWSER_USER_AGENT,
  CRAWLER_USER_AGENT,
  makeAvatars,
  ownAddress,
  productLinkIds,
  SCALE_PREFIX,
  type SessionUser,
  seedScaleProfiles,
  seedStock,
  seedSupplementsFor,
  seedTracking,
  seedUsers,
  setUsername,
  signUp,
} from "./seed";

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const config = {
  seconds: num("BENCH_DURATION", 5),
  runs: num("BENCH_RUNS", 3),
  warmup: num("BENCH_WARMUP", 2),
  connections: 50,
  users: num("BENCH_USERS", 1000),
  perUser: 20,
  cards: 50,
  addresses: 100_000,
  trackedDays: 366,
  scaleProfiles: num("BENCH_SCALE_PROFILES", 100_000),
  scaleSeconds: num("BENCH_SCALE_DURATION", 30),
  zipfS: 1.1,
  only: (env.BENCH_ONLY ?? "").split(",").filter(Boolean),
  install: env.BENCH_INSTALL !== "0",
  build: env.BENCH_SKIP_BUILD !== "1",
  out: env.BENCH_OUT ?? join(ROOT, "BENCHMARKS.md"),
};
/** Bun's flags for the app (none is how `npm start` ships). */
const APP_FLAGS = (env.BENCH_APP_FLAGS ?? "").split(" ").filter(Boolean);
const selected = (id: string) => id === "ceiling" || config.only.length === 0 || config.only.includes(id);
/** Spreads Zipf ranks over the scale profiles (coprime to their number), as bench/lua/zipf.lua. */
const ZIPF_SPREAD = config.scaleProfiles % 7919 === 0 ? 1 : 7919;
const scaleName = (rank: number) => `${SCALE_PREFIX}${(((rank - 1) * ZIPF_SPREAD) % config.scaleProfiles) + 1}`;

const started = performance.now();
const log = (message: string) =>
  console.log(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)}s] ${message}`);

/** Runs a command to completion (in ROOT unless `cwd`); its stdout and stderr. */
const sh = async (cmd: string[], cwd = ROOT, check = true) => {
  const r = await run(cmd, { cwd, check, timeoutMs: 20 * 60_000 });
  return `${r.stdout}${r.stderr}`;
};

/** A newcomer's `npm install` on a fresh clone of HEAD, with an empty npm cache (so downloads count). */
async function measureInstall(workDir: string): Promise<InstallSize> {
  const clone = join(workDir, "clone");
  await sh(["git", "clone", "--quiet", "--depth", "1", `file://${ROOT}`, clone]);
  const t0 = performance.now();
  const output = await sh(["npm", "install", "--loglevel=notice", "--cache", join(workDir, "npm-cache")], clone);
  const seconds = (performance.now() - t0) / 1000;
  const kb = Number((await sh(["du", "-sk", "node_modules"], clone)).split(/\s/)[0]);
  const packages = Number(/added (\d+) packages/.exec(output)?.[1] ?? Number.NaN);
  const engineWarnings = (output.match(/EBADENGINE Unsupported engine/g) ?? []).length;
  rmSync(clone, { recursive: true, force: true });
  rmSync(join(workDir, "npm-cache"), { recursive: true, force: true });
  return { packages, mb: kb / 1024, seconds, engineWarnings };
}

/** The app's environment: what `npm start` with deploy/env.example sets; TRUST_PROXY=true as behind Caddy. */
const appEnv = (db: BenchDatabase, port: number, secret: string): Record<string, string> => ({
  ...shippedEnv(),
  PATH: env.PATH ?? "",
  HOME: env.HOME ?? "/tmp",
  NODE_ENV: "production",
  HOST: "127.0.0.1",
  PORT: String(port),
  PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
  DATABASE_URL: db.appUrl,
  BETTER_AUTH_SECRET: secret,
  TRUST_PROXY: "true",
});

interface Scenario {
  id: string;
  label: string;
  /** bench/lua script after visitors.lua, and the globals it reads; none: GET / of the ceiling. */
  lua?: string;
  data?: Record<string, string | number | string[]>;
  ceiling?: boolean;
}

type Users = Awaited<ReturnType<typeof signUpUsers>>;
type Setup = Users & Awaited<ReturnType<typeof seed>> & { origin: string; cardPaths: string[] };

const historyPath = () => {
  const today = new Date().toISOString().slice(0, 10);
  return `/api/history?from=${addDays(today, -(config.trackedDays - 1))}&to=${today}`;
};

/** Every scenario, as data: one loop runs them all. */
function scenarioTable(s: Setup): Scenario[] {
  const pages = s.usernames.map((n) => `/${n}`);
  /** GET a random one of `paths` (bench/lua/random-path.lua), with `user_agent` if given. */
  const random = (id: string, label: string, paths: string[], user_agent?: string): Scenario => ({
    id,
    label,
    lua: "random-path.lua",
    data: user_agent ? { paths, user_agent } : { paths },
  });
  /** GET `path` signed in as the dashboard user (bench/lua/session-get.lua). */
  const signedIn = (id: string, label: string, path: string): Scenario => ({
    id,
    label,
    lua: "session-get.lua",
    data: { cookie: s.dashboard.cookie, address: s.dashboard.address, path },
  });
  const table: Scenario[] = [
    { id: "ceiling", label: "Ceiling: Bun.serve answering a profile page's bytes", ceiling: true },
    random(
      "profile-counted",
      `Public profile page, random of ${pages.length}, browser User-Agent (every request a counted view)`,
      pages,
      BROWSER_USER_AGENT,
    ),
    random(
      "profile-crawler",
      "The same pages, a crawler's User-Agent of the same length (not counted)",
      pages,
      CRAWLER_USER_AGENT,
    ),
    random(
      "api-profile",
      "`GET /api/profile/{name}`, random users",
      s.usernames.map((n) => `/api/profile/${n}`),
    ),
    random("avatar", `Avatar \`/images/{id}.webp\`, random of ${s.avatarPaths.length}`, s.avatarPaths),
    random(
      "card",
      `Social card \`/og/{name}/{version}.png\`, random of ${s.cardPaths.length}, each rendered once before`,
      s.cardPaths,
    ),
    random(
      "go",
      `\`/go/{id}\` (302), random of ${s.goIds.length} premium links, browser User-Agent (clicks counted)`,
      s.goIds.map((id) => `/go/${id}`),
      BROWSER_USER_AGENT,
    ),
    signedIn("today", `\`GET /api/today\` signed in (${config.perUser} supplements scheduled)`, "/api/today"),
    signedIn(
      "totals",
      `\`GET /api/stack/totals\` signed in (${config.perUser} supplements, 2 ingredient lines each)`,
      "/api/stack/totals",
    ),
    signedIn("history", `\`GET /api/history\` of ${config.trackedDays} days, a year of doses logged`, historyPath()),
  ];
  return table.filter((x) => selected(x.id));
}

async function writeScript(workDir: string, s: Scenario): Promise<string> {
  const lua = (name: string) => Bun.file(join(import.meta.dir, "lua", name)).text();
  const parts = s.ceiling
    ? [await lua("report.lua")]
    : [
        luaPrelude({ address_pool: config.addresses, ...s.data }),
        await lua("visitors.lua"),
        await lua(s.lua ?? ""),
        await lua("report.lua"),
      ];
  const file = join(workDir, `${s.id}.lua`);
  writeFileSync(file, parts.join("\n"));
  return file;
}

/** Signs the bench's few users up over HTTP (the app migrates the database first), then stops the app. */
async function signUpUsers(startApp: (log: string) => Promise<Service>, origin: string) {
  const app = await startApp("app-setup.log");
  const [dashboard, tracker, writer, reorderer] = await pLimit(1).map(
    ["dashboard", "tracker", "writer", "reorder"],
    (n, i) => signUp(origin, `${n}@bench.example.com`, n, ownAddress(1 + i)),
  );
  if (!dashboard || !tracker || !writer || !reorderer) throw new Error("sign-up failed");
  await setUsername(origin, dashboard, "dana_dashboard");
  await app.stop();
  return { dashboard, tracker, writer, reorderer };
}

/** Bulk rows with SQL while the app is stopped (no cache of it can be stale). */
async function seed(db: BenchDatabase, avatars: ReturnType<typeof makeAvatars>, users: Users) {
  const sql = postgres(db.appUrl, { max: 4, onnotice: () => {} });
  try {
    const seeded = await seedUsers(sql, await avatars, config.perUser);
    const dashboardIds = await seedSupplementsFor(sql, users.dashboard.id, config.perUser, 1);
    const trackerIds = await seedSupplementsFor(sql, users.tracker.id, config.perUser, 2);
    const reorderIds = await seedSupplementsFor(sql, users.reorderer.id, 200, 3);
    await seedTracking(sql, users.dashboard.id, dashboardIds, config.trackedDays);
    await seedStock(sql, users.dashboard.id);
    await seedTracking(sql, users.tracker.id, trackerIds, config.trackedDays);
    if (selected("scale")) {
      const t0 = performance.now();
      await seedScaleProfiles(sql, config.scaleProfiles, 3);
      log(`${config.scaleProfiles} scale profiles seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
    await sql`vacuum analyze`;
    // seedTracking makes the first supplement's dose 'anytime' every day: the probe ticks it.
    return { ...seeded, reorderIds, trackerDoseId: trackerIds[0] ?? 0, goIds: await productLinkIds(sql) };
  } finally {
    await sql.end();
  }
}

/** Renders `config.cards` social cards once (their URLs from the pages' og:image); the card scenario asks for these. */
async function warmCards(origin: string, names: string[]) {
  const firstMs: number[] = [];
  const paths = await pLimit(1).map(names.slice(0, config.cards), async (name) => {
    const html = await (await fetch(`${origin}/${name}`, { headers: { "X-Forwarded-For": ownAddress(7) } })).text();
    const content = /<meta[^>]*property="og:image"[^>]*content="([^"]+)"/.exec(html)?.[1] ?? "";
    const path = new URL(content.replaceAll("&amp;", "&"), origin).pathname;
    const t0 = performance.now();
    const card = await fetch(`${origin}${path}`, { headers: { "X-Forwarded-For": ownAddress(7) } });
    await card.arrayBuffer();
    firstMs.push(performance.now() - t0);
    if (card.status !== 200) throw new Error(`GET ${path} answered ${card.status}`);
    return path;
  });
  return { paths, firstRenderMs: median(firstMs) };
}

/** Statements per request (and app CPU) of each kind of request, one at a time, after one unmeasured. */
async function statementProbes(s: Setup, stats: postgres.Sql, db: BenchDatabase, appPid: number) {
  const signed = (u: SessionUser) => ({ Cookie: u.cookie, "X-Forwarded-For": u.address });
  const write = (u: SessionUser) => ({ ...signed(u), Origin: s.origin, "Content-Type": "application/json" });
  const call = async (path: string, status: number, init: RequestInit = {}) => {
    const headers = { "X-Forwarded-For": ownAddress(5), ...(init.headers as Record<string, string>) };
    const res = await fetch(`${s.origin}${path}`, { ...init, headers, redirect: "manual" });
    const body = await res.text();
    if (res.status !== status) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status}, not ${status}`);
    return body;
  };
  const browser = { headers: { "User-Agent": BROWSER_USER_AGENT } };
  const today = new Date().toISOString().slice(0, 10);
  const created: number[] = [];
  const ids20 = (
    JSON.parse(await call("/api/supplements", 200, { headers: signed(s.dashboard) })) as { id: number }[]
  ).map((x) => x.id);
  const reorder = (u: SessionUser, ids: number[]) => (i: number) =>
    call("/api/supplements/reorder", 200, {
      method: "PUT",
      headers: write(u),
      body: JSON.stringify({ supplementIds: i % 2 ? ids : [...ids].reverse() }),
    });
  const probes: [string, (i: number) => Promise<unknown>][] = [
    ["Public profile page, a counted view (warm)", () => call(`/${s.usernames[2]}`, 200, browser)],
    ["`GET /api/profile/{name}` (warm)", () => call(`/api/profile/${s.usernames[2]}`, 200)],
    ["Avatar (warm)", () => call(s.avatarPaths[2] ?? "", 200)],
    ["Social card (warm)", () => call(s.cardPaths[0] ?? "", 200)],
    ["`/go/{id}`, a counted click (warm)", () => call(`/go/${s.goIds[0]}`, 302, browser)],
    ["`GET /api/today` (warm)", () => call("/api/today", 200, { headers: signed(s.dashboard) })],
    ["`GET /api/stack/totals` (warm)", () => call("/api/stack/totals", 200, { headers: signed(s.dashboard) })],
    [
      "`GET /api/supplements` (warm, stock on every supplement)",
      () => call("/api/supplements", 200, { headers: signed(s.dashboard) }),
    ],
    [
      `\`GET /api/history\`, ${config.trackedDays} days`,
      () => call(historyPath(), 200, { headers: signed(s.dashboard) }),
    ],
    [
      "`PUT /api/intakes/…` (tick a dose, taken and skipped alternately)",
      (i) =>
        call(`/api/intakes/${today}/${s.trackerDoseId}/anytime`, 200, {
          method: "PUT",
          headers: write(s.tracker),
          body: JSON.stringify({ status: i % 2 ? "skipped" : "taken" }),
        }),
    ],
    [
      "`POST /api/supplements` (add)",
      async () => {
        const body = JSON.stringify({ name: "Bench probe", quantityType: "Capsule(s)", frequency: "Daily" });
        const answer = await call("/api/supplements", 201, { method: "POST", headers: write(s.writer), body });
        created.push((JSON.parse(answer) as { id: number }).id);
      },
    ],
    [
      "`DELETE /api/supplements/{id}`",
      () => call(`/api/supplements/${created.pop()}`, 204, { method: "DELETE", headers: write(s.writer) }),
    ],
    ["`PUT /api/supplements/reorder`, 20 items", reorder(s.dashboard, ids20)],
    ["`PUT /api/supplements/reorder`, 200 items", reorder(s.reorderer, s.reorderIds)],
  ];
  const out: Report["statements"] = [];
  for (const [label, send] of probes) {
    if (!label.startsWith("`DELETE")) await send(-1); // warms whatever the app keeps in memory
    const r = await probe(stats, db.appRole, appPid, 10, send);
    out.push({ label, perRequest: r.perRequest, median: r.median });
    log(`statements, ${label}: ${r.perRequest.join(",")}`);
    for (const [i, n] of r.perRequest.entries()) if (n !== r.median) log(`  request ${i + 1}: ${r.seen[i]}`);
  }
  return out;
}

/** 100,000 profiles, Zipf visits: misses = the run's statements / a cold page's (50 probed); a miss's app CPU from those. */
async function scaleRun(s: Setup, stats: postgres.Sql, db: BenchDatabase, appPid: number, workDir: string) {
  const n = 50;
  const names = Array.from({ length: n }, (_, i) => scaleName(config.scaleProfiles - i));
  const get = async (i: number) => {
    const res = await fetch(`${s.origin}/${names[i]}`, { headers: { "X-Forwarded-For": ownAddress(6) } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET /${names[i]}: ${res.status}`);
  };
  const cold = await probe(stats, db.appRole, appPid, n, get);
  const warm = await probe(stats, db.appRole, appPid, n, get);
  const scenario: Scenario = {
    id: "scale",
    label: "",
    lua: "zipf.lua",
    data: {
      profiles: config.scaleProfiles,
      zipf_s: config.zipfS,
      perm_a: ZIPF_SPREAD,
      name_prefix: SCALE_PREFIX,
      user_agent: BROWSER_USER_AGENT,
    },
  };
  const before = await statementCalls(stats, db.appRole);
  const cpu0 = cpuSnapshot({ app: appPid, postmaster: db.postmasterPid });
  const r = await runWrk(`${s.origin}/`, await writeScript(workDir, scenario), config.scaleSeconds, config.connections);
  const cores = coresBetween(cpu0, cpuSnapshot({ app: appPid, postmaster: db.postmasterPid }));
  const statements = callsBetween(before, await statementCalls(stats, db.appRole));
  const misses = cold.median > 0 ? statements / cold.median : Number.NaN;
  log(`scale: ${r.rps.toFixed(0)} req/s, ${statements} statements, ~${misses.toFixed(0)} misses of ${r.requests}`);
  return {
    profiles: config.scaleProfiles,
    zipfS: config.zipfS,
    seconds: config.scaleSeconds,
    ...r,
    hitRate: 1 - misses / r.requests,
    statementsPerMiss: cold.median,
    missAppCpuMs: cold.appCpuMs,
    hitAppCpuMs: warm.appCpuMs,
    cores,
  };
}

async function main() {
  const workDir = mkdtempSync("/tmp/stacktrack-bench-");
  installSignalHandlers();
  let app: Service | undefined;
  let db: BenchDatabase | undefined;
  try {
    const wrk = (await sh(["wrk", "-v"], ROOT, false).catch(() => "")).split("\n")[0] ?? "";
    if (!wrk.startsWith("wrk")) throw new Error("wrk is not installed: apt-get install -y wrk");
    const install = config.install ? await measureInstall(workDir) : undefined;
    if (install)
      log(
        `fresh clone's npm install: ${install.packages} packages, ${install.mb.toFixed(0)} MB, ${install.seconds.toFixed(0)} s`,
      );
    const avatars = makeAvatars(config.users);
    avatars.catch(() => {});
    if (config.build) {
      log("building (npm run build)…");
      await sh(["npm", "run", "build"]);
    }
    const appPort = await findFreePort(4401, 4450);
    const ceilingPort = await findFreePort(4451, 4499, [appPort]);
    db = await startCluster(await findFreePort(54400, 54450));
    const origin = `http://127.0.0.1:${appPort}`;
    const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(36))).toString("base64url");
    const startApp = async (name: string) => {
      const service = startService([process.execPath, ...APP_FLAGS, "server.ts"], {
        env: appEnv(db as BenchDatabase, appPort, secret),
        logFile: join(workDir, name),
      });
      await waitForHttp(`${origin}/api/health`, service);
      return service;
    };
    const users = await signUpUsers(startApp, origin);
    log("seeding…");
    const seeded = await seed(db, avatars, users);

    app = await startApp("app.log");
    const appPid = app.pid;
    const rssPhases: [string, number][] = [];
    const rss = (phase: string) => {
      const m = memory(appPid);
      rssPhases.push([phase, m.rss]);
      log(`app memory ${phase}: RSS ${(m.rss / 1048576).toFixed(0)} MB, peak ${(m.peak / 1048576).toFixed(0)} MB`);
      return m;
    };
    rss("after start-up");
    const sample = await fetch(`${origin}/${seeded.usernames[0]}`, { headers: { "X-Forwarded-For": ownAddress(3) } });
    writeFileSync(join(workDir, "profile.html"), new Uint8Array(await sample.arrayBuffer()));
    const ceilingCmd = [process.execPath, join(import.meta.dir, "ceiling.ts"), String(ceilingPort)];
    const ceiling = startService([...ceilingCmd, join(workDir, "profile.html"), "text/html; charset=utf-8"], {
      env: { PATH: env.PATH ?? "" },
      logFile: join(workDir, "ceiling.log"),
    });
    await waitForHttp(`http://127.0.0.1:${ceilingPort}/`, ceiling);
    const cards = selected("card")
      ? await warmCards(origin, seeded.usernames)
      : { paths: [], firstRenderMs: Number.NaN };
    const setup: Setup = { origin, ...seeded, cardPaths: cards.paths, ...users };

    const scenarios = scenarioTable(setup);
    type Rounds = { wrk: WrkResult[]; cores: ReturnType<typeof coresBetween>[] };
    const runs = new Map(scenarios.map((s): [string, Rounds] => [s.id, { wrk: [], cores: [] }]));
    const pids = { app: appPid, ceiling: ceiling.pid, postmaster: db.postmasterPid };
    const machineBefore: number[] = [];
    for (let round = 0; round <= config.runs; round++) {
      const idle = cpuSnapshot(pids);
      await Bun.sleep(1000);
      machineBefore.push(coresBetween(idle, cpuSnapshot(pids)).machine);
      log(round === 0 ? `warm-up, ${config.warmup} s each` : `round ${round} of ${config.runs}`);
      for (const s of scenarios) {
        const url = s.ceiling ? `http://127.0.0.1:${ceilingPort}/` : `${origin}/`;
        const script = await writeScript(workDir, s);
        const cpu0 = cpuSnapshot(pids);
        const r = await runWrk(url, script, round === 0 ? config.warmup : config.seconds, config.connections);
        const cores = coresBetween(cpu0, cpuSnapshot(pids));
        if (round === 0) continue;
        runs.get(s.id)?.wrk.push(r);
        runs.get(s.id)?.cores.push(cores);
        log(
          `  ${s.id.padEnd(16)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}`,
        );
      }
    }
    const ceilingRuns = runs.get("ceiling")?.wrk ?? [];
    const results: ScenarioResult[] = scenarios.map((s) => {
      const r = runs.get(s.id) ?? { wrk: [], cores: [] };
      const med = (f: (w: WrkResult) => number) => median(r.wrk.map(f));
      return {
        id: s.id,
        label: s.label,
        rps: med((w) => w.rps),
        runs: r.wrk.map((w) => w.rps),
        shares: r.wrk.map((w, i) => (w.rps / (ceilingRuns[i]?.rps ?? Number.NaN)) * 100),
        p50: med((w) => w.p50),
        p99: med((w) => w.p99),
        errors: r.wrk.reduce((sum, w) => sum + w.errors, 0),
        bytes: med((w) => w.bytes),
        appCores: median(r.cores.map((c) => (s.ceiling ? c.ceiling : c.app))),
        postgresCores: median(r.cores.map((c) => c.postgres)),
        machineCores: median(r.cores.map((c) => c.machine)),
      };
    });

    rss("after the wrk scenarios");
    const stats = postgres(db.adminUrl, { max: 1, onnotice: () => {} });
    const statements = await statementProbes(setup, stats, db, appPid);
    rss("after the statement probes");
    const scale = selected("scale") ? await scaleRun(setup, stats, db, appPid, workDir) : undefined;
    await stats.end();
    rss(`right after the last request (${scale ? "the scale run" : "the statement probes"})`);
    await Bun.sleep(10_000); // the app at rest, as a server between bursts: its collector has run
    const mem = rss("at rest, 10 s later (the end of the run)");

    const report: Report = {
      date: new Date().toISOString(),
      minutes: (performance.now() - started) / 60_000,
      commit: (await sh(["git", "rev-parse", "--short", "HEAD"])).trim(),
      machine: `${cpus().length} cores (${cpus()[0]?.model ?? "?"})`,
      versions: `Bun ${Bun.version}; Postgres ${db.serverVersion}; ${wrk}`,
      idleBefore: machineBefore,
      config,
      scenarios: results,
      statements,
      scale,
      cardFirstRenderMs: cards.firstRenderMs,
      rssEnd: mem.rss,
      rssPeak: mem.peak,
      rssPhases,
      install,
    };
    // Keep the sections test:deploy and bench/reminders.ts write: they are not this run's.
    const previous = existsSync(config.out) ? readFileSync(config.out, "utf8") : "";
    const kept = keptSections(previous).map((section) => `\n${section}\n`);
    writeFileSync(config.out, `${renderReport(report)}${kept.join("")}`);
    writeFileSync(join(workDir, "results.json"), JSON.stringify(report, null, 2));
    log(`wrote ${config.out}`);
  } catch (error) {
    console.error(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    if (app) console.error(`[bench] app log:\n${app.tail(40)}`);
    process.exitCode = 1;
  } finally {
    await app?.stop().catch(() => {});
    await db?.stop().catch(() => {});
    await cleanupAll();
    if (process.exitCode) console.error(`[bench] logs kept in ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
