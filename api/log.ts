/** Structured logs: one JSON object per line on stdout (stderr for errors). */
type Level = "debug" | "info" | "warn" | "error";
const order: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

let threshold = order[(process.env.LOG_LEVEL as Level) ?? "info"] ?? order.info;

export function setLogLevel(level: Level | "silent") {
  threshold = order[level];
}

function write(level: Level, msg: string, fields?: Record<string, unknown>) {
  if (order[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
  if (level === "error" || level === "warn") process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
  enabled: (level: Level) => order[level] >= threshold,
};

export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    return { error: error.message, name: error.name, stack: error.stack };
  }
  return { error: String(error) };
}
