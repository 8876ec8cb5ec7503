/**
 * The real `bun server.ts` as a child process: for what only the whole server shows
 * (security headers, start-up refusals, the data-folder lock, shutdown).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";

export const ROOT = join(import.meta.dir, "../..");

/** package.json's scripts. */
export const packageScripts = (): Record<string, string> =>
  JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts;

/**
 * The environment `npm start` and `npm run serve` give the server: the `NAME=value` words of
 * package.json's `serve` script before `bun server.ts` (JavaScriptCore's memory budget).
 */
export function shippedEnv(): Record<string, string> {
  const words = (packageScripts().serve ?? "").split(/\s+/);
  return Object.fromEntries(words.slice(0, words.indexOf("bun")).map((word) => word.split("=", 2) as [string, string]));
}

/** True when `bun --bun astro build` has produced dist/ (the test script builds first). */
export const hasBuild = (): boolean => existsSync(join(ROOT, "dist/server/entry.mjs"));

/**
 * For `describe.skipIf(...)`: tests that need the built server are skipped without a
 * build, saying so loudly (naming `what` and the command that builds), except in CI,
 * where a missing build is a failure rather than a skip.
 */
export const skipWithoutBuild = (what: string): boolean => {
  if (hasBuild()) return false;
  if (process.env.CI) throw new Error(`${what} needs the built app and dist/ is missing: run \`bun --bun run build\``);
  const line = "=".repeat(78);
  console.warn(`${line}\nSKIPPED: ${what}: dist/ is missing. Run \`bun --bun run build\` first.\n${line}`);
  return true;
};

/** Registers a clean-up step (run by `cleanupAll`, last-registered first). Returns an unregister function. */
type Cleanup = () => Promise<void> | void;
const cleanups: { name: string; fn: Cleanup }[] = [];
export function onCleanup(name: string, fn: Cleanup): () => void {
  const entry = { name, fn };
  cleanups.push(entry);
  return () => {
    const i = cleanups.indexOf(entry);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

let cleaning: Promise<void> | undefined;

/** Runs every registered clean-up step once (later calls wait for the first). */
export function cleanupAll(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const entry = cleanups.pop();
      if (!entry) break;
      try {
        await entry.fn();
      } catch (error) {
        console.error(`clean-up "${entry.name}" failed:`, error instanceof Error ? error.message : error);
      }
    }
  })();
  return cleaning;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to completion and collects its output; throws (with its output) on a
 * non-zero exit unless `check: false`. Killed at clean-up and after `timeoutMs`.
 */
export async function run(
  cmd: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; check?: boolean; timeoutMs?: number } = {},
): Promise<RunResult> {
  const proc = Bun.spawn(cmd, {
    cwd: options.cwd,
    env: options.env as Record<string, string> | undefined,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const unregister = onCleanup(`kill ${cmd[0]}`, () => {
    if (proc.exitCode === null) proc.kill("SIGKILL");
  });
  const timer = options.timeoutMs ? setTimeout(() => proc.kill("SIGKILL"), options.timeoutMs) : undefined;
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (timer) clearTimeout(timer);
  unregister();
  if (options.check !== false && code !== 0) {
    throw new Error(`\`${cmd.join(" ")}\` exited with ${code}\n${stderr.trim() || stdout.trim()}`.slice(0, 4000));
  }
  return { code, stdout, stderr };
}

/** True when 127.0.0.1:port can be bound now. */
export function portFree(port: number): boolean {
  try {
    const probe = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
    probe.stop(true);
    return true;
  } catch {
    return false;
  }
}

/** The first free port from `start` upwards (below `end`), skipping `taken`. */
export async function findFreePort(start: number, end: number, taken: number[] = []): Promise<number> {
  for (let port = start; port < end; port++) {
    if (!taken.includes(port) && portFree(port)) return port;
  }
  throw new Error(`no free port between ${start} and ${end}`);
}

/** A port that was free a moment ago (the OS picks it). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/** The environment for a child server: ours without database settings, plus `env` (test defaults in between). */
export function serverEnv(env: Record<string, string>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && k !== "DATABASE_URL" && k !== "DATA_DIR" && k !== "PORT") base[k] = v;
  }
  // No drain (SHUTDOWN_DRAIN_SECONDS=0): a test's SIGTERM stops at once; the drain has its own suite.
  return {
    ...base,
    NODE_ENV: "test",
    LOG_LEVEL: "warn",
    RATE_LIMIT: "off",
    HOST: "127.0.0.1",
    SHUTDOWN_DRAIN_SECONDS: "0",
    ...env,
  };
}

export interface ServerProcess {
  url: string;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number>;
}

/** Spawns `bun server.ts` with `env` and collects its output. */
export function spawnServer(env: Record<string, string>): ServerProcess {
  const proc = Bun.spawn([process.execPath, "server.ts"], {
    cwd: ROOT,
    env: serverEnv(env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  };
  const drained = Promise.all([collect(proc.stdout), collect(proc.stderr)]);
  const exited = proc.exited.then(async (code) => {
    await drained;
    return code;
  });
  return {
    url: `http://127.0.0.1:${env.PORT ?? ""}`,
    proc,
    output: () => text,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      return exited;
    },
  };
}

/** Polls /api/health until it answers 200; fails with the server's output if it exits or times out. */
export async function waitUntilHealthy(server: ServerProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | undefined;
  server.exited.then((code) => {
    exitCode = code;
  });
  while (Date.now() < deadline) {
    if (exitCode !== undefined) {
      throw new Error(`server exited with code ${exitCode} before it was healthy:\n${server.output()}`);
    }
    try {
      const res = await fetch(`${server.url}/api/health`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  throw new Error(`server not healthy within ${timeoutMs} ms:\n${server.output()}`);
}

/** Starts the built server on a free port and waits until it is healthy. */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = spawnServer({ PORT: String(port), PUBLIC_ORIGIN: origin, ...env });
  try {
    await waitUntilHealthy(server);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
