/**
 * Start-up time (issue 17): from spawning `bun server.ts` on the built tree to the first 200
 * on `/api/health` (which pings the database), polled every 10 ms. Each sample is a new
 * process, stopped with SIGINT (stop at once, no drain) and awaited before the next, so a
 * PGlite data directory is never opened by two at a time.
 */
import { closeSync, openSync } from "node:fs";
import { onCleanup } from "../tests/support/process";
import { tailOf } from "./proc";

export interface StartupResult {
  id: string;
  label: string;
  /** Milliseconds to the first 200, per sample, in the order taken. */
  samplesMs: number[];
  medianMs: number;
}

/** Milliseconds from spawning `cmd` to the first 200 on `url`; the process is stopped after. */
export async function timeToHealthy(
  cmd: string[],
  options: { cwd: string; env: Record<string, string>; logFile: string; url: string; timeoutMs?: number },
): Promise<number> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const fd = openSync(options.logFile, "a");
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
        if (res.status === 200) return performance.now() - started;
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
