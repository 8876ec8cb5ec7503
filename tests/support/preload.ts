/**
 * Loaded before every `bun test` file (bunfig.toml). Noise fails tests: a console.error,
 * or an error-level line of the app's structured log, during a test that did not
 * announce it with `expectConsoleError(pattern)` is a failure of that test.
 */
import { afterEach, beforeEach } from "bun:test";
import { format } from "node:util";

interface Noise {
  source: "console.error" | "log";
  text: string;
}

let unexpected: Noise[] = [];
let allowed: RegExp[] = [];

function record(source: Noise["source"], text: string) {
  if (allowed.some((pattern) => pattern.test(text))) return;
  unexpected.push({ source, text });
}

/** Lets the current test print errors that match `pattern` (e.g. one it provokes on purpose). */
export function expectConsoleError(pattern: RegExp): void {
  allowed.push(pattern);
}

const originalError = console.error.bind(console);
console.error = (...args: unknown[]) => {
  record("console.error", format(...args));
  originalError(...args);
};

// The app logs JSON lines to stderr (api/lib/log.ts); its error level counts as noise too.
const originalWrite = process.stderr.write.bind(process.stderr) as (...args: unknown[]) => boolean;
process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
  const text = typeof chunk === "string" ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString() : "";
  for (const line of text.split("\n")) {
    if (line.startsWith("{") && line.includes('"level":"error"')) record("log", line);
  }
  return originalWrite(chunk, ...rest);
}) as typeof process.stderr.write;

beforeEach(() => {
  unexpected = [];
  allowed = [];
});

afterEach(() => {
  const noise = unexpected;
  unexpected = [];
  allowed = [];
  if (noise.length > 0) {
    const list = noise.map((n) => `  [${n.source}] ${n.text.slice(0, 500)}`).join("\n");
    throw new Error(`Unexpected error output during the test (use expectConsoleError if it is intended):\n${list}`);
  }
});
