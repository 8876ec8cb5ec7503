/**
 * Start-up time (issue 17): from spawning `bun server.ts` on the built tree to the first 200
 * on `/api/health` (which pings the database), polled every 10 ms. Each sample is a new
 * process, stopped with SIGINT (stop at once, no drain) and awaited before the next, so a
 * PGlite data directory is never opened by two at a time.
 */
import { closeSync, openSync, readFileSync, statSync } from "node:fs";
import { onCleanup } from "../tests/support/process";
import { tailOf } from "./proc";

export interface StartupResult {
  id: string;
  label: string;
  /** Milliseconds to the first 200, per sample, in the order taken. */
  samplesMs: number[];
  medianMs: number;
  /**
   * Milliseconds from the spawn to the app's own log lines, per sample: "database ready" (the
   * server's modules loaded, the database opened and checked) and "… is listening".
   */
  databaseReadyMs: number[];
  listeningMs: number[];
  /** Their medians. */
  databaseReadyMedianMs: number;
  listeningMedianMs: number;
}

/** One start-up sample: to the first 200, and to the app's log lines on the way (NaN if missing). */
export interface StartupSample {
  ms: number;
  databaseReadyMs: number;
  listeningMs: number;
}

/**
 * When the app's JSON log lines after byte `from` of `logFile` say the database is ready and
 * that it listens, in milliseconds after `spawnedAt` (the lines' times are the app's clock, to
 * the millisecond).
 */
function phasesOf(logFile: string, from: number, spawnedAt: number): Omit<StartupSample, "ms"> {
  const phases = { databaseReadyMs: Number.NaN, listeningMs: Number.NaN };
  for (const text of readFileSync(logFile).subarray(from).toString("utf8").split("\n")) {
    let line: { time?: string; msg?: string };
    try {
      line = JSON.parse(text);
    } catch {
      continue;
    }
    const at = Date.parse(line.time ?? "") - spawnedAt;
    if (line.msg === "database ready" && Number.isNaN(phases.databaseReadyMs)) phases.databaseReadyMs = at;
    if (line.msg?.endsWith(" is listening") && Number.isNaN(phases.listeningMs)) phases.listeningMs = at;
  }
  return phases;
}

/** Milliseconds from spawning `cmd` to the first 200 on `url`, and to its log lines; the process is stopped after. */
export async function timeToHealthy(
  cmd: string[],
  options: { cwd: string; env: Record<string, string>; logFile: string; url: string; timeoutMs?: number },
): Promise<StartupSample> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const fd = openSync(options.logFile, "a");
  const logFrom = statSync(options.logFile).size;
  const spawnedAt = Date.now();
  const started = performance.now();
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn(cmd, { cwd: options.cwd, env: options.env, stdin: "ignore", stdout: fd, stderr: fd });
  } finally {
    closeSync(fd);
  }
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill("SIGINT");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      await proc.exited;
      clearTimeout(timer);
    }
  };
  const unregister = onCleanup("stop a start-up sample", stop);
  try {
    for (;;) {
      if (proc.exitCode !== null) {
        throw new Error(`the app exited with ${proc.exitCode} while starting:\n${tailOf(options.logFile)}`);
      }
      try {
        const res = await fetch(options.url, { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        if (res.status === 200) {
          const ms = performance.now() - started;
          return { ms, ...phasesOf(options.logFile, logFrom, spawnedAt) };
        }
      } catch {
        // not listening yet
      }
      if (performance.now() - started > timeoutMs) {
        throw new Error(`no 200 on ${options.url} within ${timeoutMs} ms:\n${tailOf(options.logFile)}`);
      }
      await Bun.sleep(10);
    }
  } finally {
    unregister();
    await stop();
  }
}
