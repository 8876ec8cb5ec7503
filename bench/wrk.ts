/** Runs wrk once and reads the JSON line bench/lua/report.lua prints. */
import { onCleanup } from "../tests/support/process";

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  bytes: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  /** Non-2xx/3xx responses plus socket errors. */
  errorCount: number;
  latencyMs: { p50: number; p75: number; p90: number; p99: number; max: number; mean: number };
  counters: Record<string, number>;
  /** CPU seconds wrk itself used (user + system). */
  wrkCpuSeconds: number;
}

interface Raw {
  requests: number;
  duration_us: number;
  bytes: number;
  errors: WrkResult["errors"];
  latency_us: { p50: number; p75: number; p90: number; p99: number; max: number; mean: number };
  counters: Record<string, number>;
}

export async function runWrk(options: {
  url: string;
  script: string;
  seconds: number;
  connections: number;
  threads: number;
}): Promise<WrkResult> {
  const cmd = [
    "wrk",
    `-t${options.threads}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    "--timeout",
    "5s",
    "--latency",
    "-s",
    options.script,
    options.url,
  ];
  const proc = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const unregister = onCleanup("stop wrk", () => {
    if (proc.exitCode === null) proc.kill("SIGKILL");
  });
  // wrk stops itself after -d; this only guards against a hang.
  const guard = setTimeout(() => proc.kill("SIGKILL"), (options.seconds + 30) * 1000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(guard);
  unregister();
  const line = stdout.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
  if (code !== 0 || !line) {
    throw new Error(`wrk failed (exit ${code}) for ${options.url}:\n${stdout}\n${stderr}`.slice(0, 4000));
  }
  const raw = JSON.parse(line.slice("BENCH_RESULT ".length)) as Raw;
  const usage = proc.resourceUsage();
  const seconds = raw.duration_us / 1e6;
  const e = raw.errors;
  const ms = (us: number) => us / 1000;
  return {
    requests: raw.requests,
    seconds,
    rps: raw.requests / seconds,
    bytes: raw.bytes,
    errors: e,
    errorCount: e.connect + e.read + e.write + e.status + e.timeout,
    latencyMs: {
      p50: ms(raw.latency_us.p50),
      p75: ms(raw.latency_us.p75),
      p90: ms(raw.latency_us.p90),
      p99: ms(raw.latency_us.p99),
      max: ms(raw.latency_us.max),
      mean: ms(raw.latency_us.mean),
    },
    counters: raw.counters,
    wrkCpuSeconds: usage ? Number(usage.cpuTime.total) / 1e6 : Number.NaN,
  };
}

/** Lua source of a string literal (for the generated data preludes). */
export function luaString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (code < 32 || code > 126) {
      for (const byte of new TextEncoder().encode(ch)) out += `\\${byte}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** Lua source assigning each entry of `data` to a global. */
export function luaPrelude(data: Record<string, string | number | string[] | number[][]>): string {
  const value = (v: string | number | string[] | number[][]): string => {
    if (typeof v === "number") return String(v);
    if (typeof v === "string") return luaString(v);
    return `{\n${(v as (string | number[])[]).map((item) => (Array.isArray(item) ? `{${item.join(",")}}` : luaString(item))).join(",\n")}\n}`;
  };
  return Object.entries(data)
    .map(([k, v]) => `${k} = ${value(v)}\n`)
    .join("");
}
