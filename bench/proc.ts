/**
 * Child processes and clean-up for the benchmark: everything the bench starts is
 * registered here and stopped at the end, on failure, and on SIGINT/SIGTERM/SIGHUP.
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { Subprocess } from "bun";
import { cleanupAll, onCleanup } from "../tests/support/process";

/** On a signal: stop everything we started, run `last`, then exit. */
export function installSignalHandlers(last?: () => void): void {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      console.error(`\n[bench] ${signal}: stopping everything the bench started…`);
      void cleanupAll().finally(() => {
        last?.();
        process.exit(130);
      });
    });
  }
}

export interface Service {
  name: string;
  proc: Subprocess;
  pid: number;
  logFile: string;
  /** The last `lines` lines of the log. */
  tail(lines?: number): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** The last `lines` lines of a file, read from its last 64 KB (an app's request log can be large). */
export function tailOf(file: string, lines = 30): string {
  try {
    const fd = openSync(file, "r");
    try {
      const size = Bun.file(file).size;
      const length = Math.min(size, 64 * 1024);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      return buffer.toString("utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } finally {
      closeSync(fd);
    }
  } catch {
    return "";
  }
}

/**
 * Starts a long-running process whose stdout and stderr go straight to `logFile` (the
 * kernel writes them, as systemd hands an instance's output to the journal: nothing in the
 * bench reads or copies the app's request log while it is measured); it is stopped at clean-up.
 */
export function startService(
  name: string,
  cmd: string[],
  options: { cwd?: string; env?: Record<string, string>; logFile: string },
): Service {
  const fd = openSync(options.logFile, "a");
  let proc: Subprocess;
  try {
    proc = Bun.spawn(cmd, { cwd: options.cwd, env: options.env, stdin: "ignore", stdout: fd, stderr: fd });
  } finally {
    closeSync(fd); // the child has its own copy
  }
  let unregister = () => {};
  const service: Service = {
    name,
    proc,
    pid: proc.pid,
    logFile: options.logFile,
    tail: (lines = 30) => tailOf(options.logFile, lines),
    async stop(graceMs = 10_000) {
      unregister();
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill("SIGTERM");
        const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
        await proc.exited;
        clearTimeout(timer);
      }
    },
  };
  unregister = onCleanup(`stop ${name}`, () => service.stop());
  return service;
}

/** Polls `url` until it answers (any status below 500) or `timeoutMs` passes. */
export async function waitForHttp(url: string, service: Service, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.proc.exitCode !== null) {
      throw new Error(`${service.name} exited with ${service.proc.exitCode} while starting:\n${service.tail()}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  throw new Error(`${service.name} did not answer ${url} within ${timeoutMs} ms:\n${service.tail()}`);
}
