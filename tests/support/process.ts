/**
 * The real `bun server.ts` as a child process: for what only the whole server shows
 * (security headers, start-up refusals, the data-folder lock, shutdown).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";

export const ROOT = join(import.meta.dir, "../..");

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

/** A port that was free a moment ago (the OS picks it). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/** The environment for a child server: ours without database settings, plus `env`. */
export function serverEnv(env: Record<string, string>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && k !== "DATABASE_URL" && k !== "DATA_DIR" && k !== "PORT") base[k] = v;
  }
  return { ...base, NODE_ENV: "test", LOG_LEVEL: "warn", RATE_LIMIT: "off", HOST: "127.0.0.1", ...env };
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
