/**
 * Structured logs: one JSON object per line on stdout (stderr for warnings and errors).
 *
 * Request lines (`log.request`, one per answered request) are the only frequent ones: they
 * are built by hand (the same JSON as the others) and encoded at once into one byte buffer
 * (no array of strings to join and encode again at the flush), then written together
 * every FLUSH_MS, once BUFFER_BYTES are waiting, before any other line (so the order on a
 * terminal or in the journal is the order of events), and when the process exits: on its
 * way out through process.exit() and at the end of the shutdown (server/shutdown.ts),
 * nothing is lost. Every other line is written at once, through process.stdout / process.stderr.
 */
import { writeSync } from "node:fs";

type Level = "debug" | "info" | "warn" | "error";
const order: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

let threshold = order[(process.env.LOG_LEVEL as Level) ?? "info"] ?? order.info;

export function setLogLevel(level: Level | "silent") {
  threshold = order[level];
}

/** How long a request line may wait in memory, and how many bytes of them before they are written. */
export const FLUSH_MS = 100;
export const BUFFER_BYTES = 64 * 1024;

/** The request lines waiting, as UTF-8: `used` bytes of `pending`, each line ending in '\n'. */
const pending = Buffer.allocUnsafe(BUFFER_BYTES);
let used = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

/**
 * Writes `data` to the file descriptor whole, now. A non-blocking pipe that is full (EAGAIN)
 * hands a copy of the rest to the stream, which writes it as the reader catches up.
 */
function writeNow(fd: 1 | 2, data: Uint8Array) {
  let rest = data;
  try {
    while (rest.byteLength > 0) {
      const written = writeSync(fd, rest);
      rest = rest.subarray(written);
    }
  } catch {
    (fd === 1 ? process.stdout : process.stderr).write(Buffer.from(rest));
  }
}

/** Writes the request lines waiting in memory (a no-op when there are none). */
export function flushLogs() {
  if (timer) {
    clearTimeout(timer);
    timer = undefined;
  }
  if (used === 0) return;
  const data = pending.subarray(0, used);
  used = 0;
  writeNow(1, data);
}

/** The most bytes a line of `length` UTF-16 units can take in UTF-8, with its '\n'. */
const maxBytes = (length: number) => length * 3 + 1;

function buffer(line: string) {
  if (used + maxBytes(line.length) > pending.length) {
    flushLogs();
    if (maxBytes(line.length) > pending.length) {
      writeNow(1, Buffer.from(`${line}\n`)); // a line longer than the buffer (a very long path)
      return;
    }
  }
  used += pending.write(line, used, "utf8");
  pending[used++] = 0x0a;
  if (!timer) {
    timer = setTimeout(flushLogs, FLUSH_MS);
    timer.unref?.();
  }
}

// A process that ends (process.exit anywhere, or the end of the event loop) writes what waits.
process.on("exit", flushLogs);

/** Something in a path or query that may be a secret: a long run of token characters, or a query. */
const MAYBE_SECRET = /[A-Za-z0-9_%-]{24}|\?/;
/** A path segment (its extension apart) that is a credential's shape: 24+ token characters (our shortest token, better-auth's reset token, has 24) with a digit or a capital. */
const SECRET_SEGMENT = /^(?=[^.]*[0-9A-Z])[A-Za-z0-9_%-]{24,}(?=\.[A-Za-z0-9]{1,8}$|$)/;
export const REDACTED = "[redacted]";

/**
 * The one redaction rule for URLs in log lines (issue 45): every path segment shaped like a
 * credential (24 or more of A-Z a-z 0-9 _ - %, with a digit or a capital: a password-reset
 * token, a feed token like /api/calendar/<token>.ics, a UUID) becomes `[redacted]` (an
 * extension kept), and every query value does too (names kept: `?token=[redacted]`); a
 * fragment is dropped. A full URL keeps its origin. Words of routes (`request-password-reset`) are lower case: kept.
 */
export function redactUrl(url: string): string {
  if (!MAYBE_SECRET.test(url)) return url;
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url)?.[0] ?? "";
  const rest = url.slice(origin.length);
  const cut = rest.search(/[?#]/);
  const path = cut < 0 ? rest : rest.slice(0, cut);
  const tail = cut < 0 ? "" : rest.slice(cut);
  const segments = path.split("/").map((segment) => segment.replace(SECRET_SEGMENT, REDACTED));
  const query = tail.startsWith("?")
    ? `?${tail
        .slice(1)
        .split("#")[0]
        ?.split("&")
        .map((pair) => (pair.includes("=") ? `${pair.slice(0, pair.indexOf("="))}=${REDACTED}` : pair))
        .join("&")}`
    : "";
  return `${origin}${segments.join("/")}${query}`;
}

/** A log field that may hold a URL or a path: redacted by redactUrl. */
const urlLike = (value: unknown): value is string =>
  typeof value === "string" && (value.startsWith("/") || /^https?:\/\//i.test(value));

function redactFields(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!fields) return fields;
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(fields)) {
    if (!urlLike(value)) continue;
    const redacted = redactUrl(value);
    if (redacted === value) continue;
    copy ??= { ...fields };
    copy[key] = redacted;
  }
  return copy ?? fields;
}

function write(level: Level, msg: string, fields?: Record<string, unknown>) {
  if (order[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...redactFields(fields) });
  flushLogs();
  // Through the process's streams, as console output goes: what tests and tools that watch
  // the streams (the suites' unexpected-error guard, log assertions) see. Request lines are
  // written to the descriptor directly (flushLogs), which nothing can intercept.
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${line}\n`);
}

let lastMs = 0;
let lastIso = "";
/** `new Date().toISOString()`, made once per millisecond. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

export interface RequestFields {
  method: string;
  path: string;
  status: number;
  /** Milliseconds, one decimal. */
  ms: number;
  ip: string | undefined;
}

/** What JSON.stringify escapes in a string: '"', '\\', control characters and lone surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
/** JSON.stringify(text), without its work for the usual text that needs no escape. */
const jsonString = (text: string): string => (NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`);

/**
 * The line `log.info("request", fields)` writes (its path through redactUrl), byte for byte, made without an object spread
 * and a generic JSON.stringify (an absent `ip` is left out, as JSON.stringify leaves out undefined).
 */
export function requestLine({ method, path, status, ms, ip }: RequestFields): string {
  const address = ip === undefined ? "" : `,"ip":${jsonString(ip)}`;
  return `{"time":"${isoNow()}","level":"info","msg":"request","method":${jsonString(method)},"path":${jsonString(redactUrl(path))},"status":${status},"ms":${ms}${address}}`;
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
  /** One answered request, at level info: buffered (see the top of this file). */
  request: (fields: RequestFields) => {
    if (order.info >= threshold) buffer(requestLine(fields));
  },
  enabled: (level: Level) => order[level] >= threshold,
};

export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    return { error: error.message, name: error.name, stack: error.stack };
  }
  return { error: String(error) };
}
