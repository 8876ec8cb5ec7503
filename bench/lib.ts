/**
 * The bench's tools: processes it starts (stopped at the end, on failure and on Ctrl-C), wrk,
 * CPU and memory from /proc, and SQL statements per request from pg_stat_statements.
 */
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";
import type postgres from "postgres";
import { cleanupAll, onCleanup, ROOT } from "../tests/support/process";

export const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** On SIGINT/SIGTERM/SIGHUP: stop everything the bench started, then exit. */
export function installSignalHandlers(): void {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => void cleanupAll().finally(() => process.exit(130)));
  }
}

export type Service = ReturnType<typeof startService>;

/** A long-running process whose output goes straight to `logFile`; stopped (SIGTERM) at clean-up. */
export function startService(cmd: string[], options: { env: Record<string, string>; logFile: string }) {
  const fd = openSync(options.logFile, "a");
  const proc = Bun.spawn(cmd, { cwd: ROOT, env: options.env, stdin: "ignore", stdout: fd, stderr: fd });
  closeSync(fd);
  const stop = async () => {
    unregister();
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill("SIGTERM");
    const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    await proc.exited;
    clearTimeout(timer);
  };
  const unregister = onCleanup(`stop ${cmd.join(" ")}`, stop);
  return {
    pid: proc.pid,
    exited: () => proc.exitCode !== null,
    tail: (lines = 30) => readFileSync(options.logFile, "utf8").trimEnd().split("\n").slice(-lines).join("\n"),
    stop,
  };
}

/** Polls `url` until it answers below 500. */
export async function waitForHttp(url: string, service: Service, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.exited()) throw new Error(`${url}: the process exited while starting:\n${service.tail()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${service.tail()}`);
}

export type WrkResult = Record<"requests" | "rps" | "bytes" | "errors" | "p50" | "p99", number>;

/** One wrk run of `script` (which ends with bench/lua/report.lua's one JSON line). */
export async function runWrk(url: string, script: string, seconds: number, connections: number): Promise<WrkResult> {
  const cmd = ["wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "5s", "-s", script, url];
  const proc = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const unregister = onCleanup("stop wrk", () => proc.kill("SIGKILL"));
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  unregister();
  const line = stdout.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}) for ${url}:\n${stdout}\n${stderr}`);
  const raw = JSON.parse(line.slice("BENCH_RESULT ".length));
  const e = raw.errors;
  return {
    requests: raw.requests,
    rps: raw.requests / (raw.duration_us / 1e6),
    bytes: raw.bytes / Math.max(raw.requests, 1),
    errors: e.connect + e.read + e.write + e.status + e.timeout,
    p50: raw.p50_us / 1000,
    p99: raw.p99_us / 1000,
  };
}

/** Lua source assigning each entry of `data` to a global (strings, numbers, lists of strings). */
export function luaPrelude(data: Record<string, string | number | string[]>): string {
  const str = (s: string) => JSON.stringify(s); // the bench's strings are ASCII: JSON escapes are Lua escapes
  const value = (v: string | number | string[]) =>
    typeof v === "number" ? String(v) : typeof v === "string" ? str(v) : `{\n${v.map(str).join(",\n")}\n}`;
  return Object.entries(data)
    .map(([k, v]) => `${k} = ${value(v)}\n`)
    .join("");
}

/** utime + stime of `pid` (and its parent's pid) in seconds, from /proc. */
function procCpu(pid: number): { cpu: number; ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { cpu: (Number(rest[11]) + Number(rest[12])) / 100, ppid: Number(rest[1]) };
  } catch {
    return undefined;
  }
}

/** CPU seconds so far of the app, the ceiling, Postgres (the postmaster and its children) and the whole machine. */
export function cpuSnapshot(pids: { app: number; ceiling?: number; postmaster: number }) {
  const postgresCpu = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procCpu(Number(name));
    if (stat && (Number(name) === pids.postmaster || stat.ppid === pids.postmaster)) postgresCpu.set(+name, stat.cpu);
  }
  const f = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
  const busy = (f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0);
  return {
    at: performance.now(),
    app: procCpu(pids.app)?.cpu ?? 0,
    ceiling: pids.ceiling ? (procCpu(pids.ceiling)?.cpu ?? 0) : 0,
    postgres: postgresCpu,
    machine: busy / 100,
  };
}
export type CpuSnapshot = ReturnType<typeof cpuSnapshot>;

/** Cores busy between two snapshots (1.0 = one core); Postgres per backend (one that ended meanwhile is missed). */
export function coresBetween(a: CpuSnapshot, b: CpuSnapshot) {
  const wall = (b.at - a.at) / 1000;
  const share = (k: "app" | "ceiling" | "machine") => (b[k] - a[k]) / wall;
  let postgres = 0;
  for (const [pid, cpu] of b.postgres) postgres += cpu - (a.postgres.get(pid) ?? 0);
  return { app: share("app"), ceiling: share("ceiling"), postgres: postgres / wall, machine: share("machine") };
}

/** VmRSS and VmHWM (peak) of `pid`, in bytes. */
export function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

/** Tables only the app's timers touch (flushes, the day's salt, reminder rounds), never a probed request. */
const BACKGROUND =
  /rate_limits|profile_daily_counts|supplement_daily_clicks|visitor_batches|visit_salts|reminder_outbox|reminder_settings/i;

/** The text of each statement seen by `statementCalls`, by its id (the log says what a probe counted). */
const queryTexts = new Map<string, string>();

/** Calls per statement of the app's role so far (pg_stat_statements, top level); `all`: the timers' too. */
export async function statementCalls(stats: postgres.Sql, role: string, all = false): Promise<Map<string, number>> {
  const rows = await stats<{ id: string; calls: string; query: string }[]>`
    select queryid::text as id, calls, query from pg_stat_statements
    where userid = (select oid from pg_roles where rolname = ${role})`;
  for (const r of rows) queryTexts.set(r.id, r.query);
  return new Map(rows.filter((r) => all || !BACKGROUND.test(r.query)).map((r) => [r.id, Number(r.calls)]));
}

export const callsBetween = (a: Map<string, number>, b: Map<string, number>) =>
  [...b].reduce((sum, [id, calls]) => sum + calls - (a.get(id) ?? 0), 0);

/** The statements counted between two `statementCalls`, as "calls× text" (cut to 100 characters). */
const statementsBetween = (a: Map<string, number>, b: Map<string, number>): string =>
  [...b]
    .filter(([id, calls]) => calls > (a.get(id) ?? 0))
    .map(
      ([id, calls]) => `${calls - (a.get(id) ?? 0)}× ${(queryTexts.get(id) ?? "?").replace(/\s+/g, " ").slice(0, 100)}`,
    )
    .join(" | ");

/** Waits (at most 5 s) until the app's role has run and finished no statement (timers' included) for 200 ms. */
async function quiet(stats: postgres.Sql, role: string) {
  const until = performance.now() + 5000;
  let last = await statementCalls(stats, role, true);
  while (performance.now() < until) {
    await Bun.sleep(200);
    const [busy] = await stats<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where usename = ${role} and state <> 'idle'`;
    const now = await statementCalls(stats, role, true);
    if (busy?.n === 0 && callsBetween(last, now) === 0) return;
    last = now;
  }
}

/** CPU time of every thread of `pid` in seconds, to the nanosecond (/proc/<pid>/task/<tid>/schedstat). */
function threadsCpu(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the thread ended
    }
  }
  return ns / 1e9;
}

/** `n` requests one at a time, each once the app is quiet: statements of each (and their text), app CPU ms. */
export async function probe(
  stats: postgres.Sql,
  role: string,
  appPid: number,
  n: number,
  send: (i: number) => Promise<unknown>,
): Promise<{ perRequest: number[]; median: number; appCpuMs: number; seen: string[] }> {
  const perRequest: number[] = [];
  const seen: string[] = [];
  let cpu = 0;
  for (let i = 0; i < n; i++) {
    await quiet(stats, role);
    const before = await statementCalls(stats, role);
    const cpuBefore = threadsCpu(appPid);
    await send(i);
    cpu += threadsCpu(appPid) - cpuBefore;
    const after = await statementCalls(stats, role);
    perRequest.push(callsBetween(before, after));
    seen.push(statementsBetween(before, after));
  }
  return { perRequest, median: median(perRequest), appCpuMs: (cpu / n) * 1000, seen };
}
