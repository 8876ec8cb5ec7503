/**
 * Where the counted page's extra CPU goes (a diagnostic, for BENCH_PERF: bench/run.ts): reads
 * the profiles that `BENCH_PERF=DIR bun run bench` recorded during issue 14's paired runs
 * (DIR/runs.json), and prints the app's CPU per request (µs) by thread, by part of the main
 * thread (Bun, the kernel, JIT code, libc) and by function, counted page against the
 * crawler's, largest differences first. JIT code is named through /tmp/perf-<pid>.map
 * (bench/perf-map.ts, written by the bench at the end).
 *
 *   bun bench/perf-diff.ts DIR [how many functions: 30]
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** One profiled run, as bench/run.ts lists it in DIR/runs.json. */
export interface ProfiledRun {
  pair: number;
  scenario: string;
  /** The run's requests a second (wrk). */
  rps: number;
  /** perf.data of the run, recorded for `seconds` at `hz` samples a second. */
  file: string;
  seconds: number;
  hz: number;
}

/** Samples per (thread, object, symbol) from `perf report --sort comm,dso,sym -n` output. */
export function parseReport(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    // "  12.34%  567  bun.exe  [kernel.kallsyms]  [k] clear_page_erms" ([JIT] objects read "[JIT] tid 123")
    const match = /^\s*[\d.]+%\s+(\d+)\s+(\S+)\s+(\[JIT\] tid \d+|\S+)\s+\[.\]\s+(.*)$/.exec(line);
    if (!match) continue;
    const [, count, thread, object, symbol] = match as unknown as [string, string, string, string, string];
    // JavaScriptCore names code "tier: name#hash"; an unnamed native address is one bucket.
    const name = symbol
      .trim()
      .replace(/#\w+$/, "")
      .replace(/^0x[0-9a-f]+$/, "(unnamed)");
    const key = [thread, object.startsWith("[JIT]") ? "[JIT]" : object, name].join("\t");
    samples.set(key, (samples.get(key) ?? 0) + Number(count));
  }
  return samples;
}

/** µs of CPU per request for each key, averaged over `runs`. */
export function perRequest(runs: { run: ProfiledRun; samples: Map<string, number> }[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const { run, samples } of runs) {
    const usPerSample = 1e6 / run.hz;
    const requests = run.rps * run.seconds;
    for (const [key, n] of samples) out.set(key, (out.get(key) ?? 0) + (n * usPerSample) / requests / runs.length);
  }
  return out;
}

function report(file: string): string {
  return execFileSync(
    "perf",
    ["report", "-i", file, "--no-children", "-g", "none", "--sort", "comm,dso,sym", "--stdio", "-n"],
    { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"] },
  );
}

function main(dir: string, top: number) {
  const runs = JSON.parse(readFileSync(join(dir, "runs.json"), "utf8")) as ProfiledRun[];
  const profiled = runs.map((run) => ({ run, samples: parseReport(report(run.file)) }));
  const counted = perRequest(profiled.filter((p) => p.run.scenario === "profile-counted"));
  const crawler = perRequest(profiled.filter((p) => p.run.scenario === "profile-crawler"));
  const keys = [...new Set([...counted.keys(), ...crawler.keys()])];
  const sum = (of: Map<string, number>, pick: (key: string) => string | undefined) => {
    const sums = new Map<string, number>();
    for (const [key, us] of of) {
      const group = pick(key);
      if (group !== undefined) sums.set(group, (sums.get(group) ?? 0) + us);
    }
    return sums;
  };
  const table = (title: string, pick: (key: string) => string | undefined) => {
    const a = sum(counted, pick);
    const b = sum(crawler, pick);
    console.log(`\n${title} (µs per request: counted, crawler, difference)`);
    const groups = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => (b.get(y) ?? 0) - (b.get(x) ?? 0));
    for (const group of groups) {
      const [x, y] = [a.get(group) ?? 0, b.get(group) ?? 0];
      console.log(
        `  ${group.padEnd(24)} ${x.toFixed(3).padStart(8)} ${y.toFixed(3).padStart(8)} ${(x - y).toFixed(3).padStart(8)}`,
      );
    }
  };
  const onMainThread = (key: string) => key.split("\t")[0] === "bun.exe";
  console.log(`${profiled.length} profiled runs in ${dir}`);
  table("By thread", (key) => key.split("\t")[0]);
  table("Main thread, by object", (key) => (onMainThread(key) ? key.split("\t")[1] : undefined));
  const diff = (key: string) => (counted.get(key) ?? 0) - (crawler.get(key) ?? 0);
  const ranked = keys.sort((x, y) => diff(y) - diff(x));
  const line = (key: string) =>
    `  ${diff(key) >= 0 ? "+" : ""}${diff(key).toFixed(3)}  (${(counted.get(key) ?? 0).toFixed(3)} vs ${(crawler.get(key) ?? 0).toFixed(3)})  ${key.replaceAll("\t", "  ")}`;
  console.log(`\nLargest increases, counted against crawler (µs per request)`);
  for (const key of ranked.slice(0, top)) console.log(line(key));
  console.log(`\nLargest decreases`);
  for (const key of ranked.slice(-Math.min(10, top)).reverse()) console.log(line(key));
}

if (import.meta.main) {
  const [dir, top] = process.argv.slice(2);
  if (!dir) {
    console.error("usage: bun bench/perf-diff.ts DIR [how many functions: 30]");
    process.exit(2);
  }
  main(dir, Number(top ?? 30));
}
