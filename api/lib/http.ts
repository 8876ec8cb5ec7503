/** HTTP helpers shared by every resource module: errors as JSON, body parsing with zod. */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";

export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly errors?: Record<string, string[]>,
    readonly headers?: Record<string, string>,
    /** More fields of the answer's JSON (a 409's `fits`). */
    readonly details?: Record<string, string | number>,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export const badRequest = (message: string, errors?: Record<string, string[]>) => new HttpError(400, message, errors);
export const unauthorized = () => new HttpError(401, "Unauthorized");
export const notFound = (message = "Not found") => new HttpError(404, message);

/** The ETag of a body: one rule for the API's answers and the host's kept pages. */
export const etagOf = (bytes: string | ArrayBuffer | Uint8Array): string => `"${Bun.hash(bytes).toString(36)}"`;

/**
 * A signed-in read as JSON: never stored by a browser or proxy (`no-store`), with an ETag of
 * its bytes so that the host (server/cache.ts `conditional`) answers a repeat with a 304.
 */
export function jsonWithEtag(c: Context, value: unknown): Response {
  const text = JSON.stringify(value);
  return c.body(text, 200, {
    "Content-Type": "application/json",
    "Cache-Control": "no-store",
    ETag: etagOf(text),
  });
}

/** zod issues as `{ field: [messages] }`, the shape every 400 carries. */
export function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join(".") : "_";
    const list = out[key] ?? [];
    list.push(issue.message);
    out[key] = list;
  }
  return out;
}

/**
 * Text Postgres cannot store as sent: U+0000, and lone UTF-16 surrogates (a `\ud800`
 * escape in JSON). A lone surrogate is no character at all: drivers replace it with U+FFFD
 * or, PGlite's when it follows another non-ASCII character, miscount its bytes and send a
 * cut parameter that Postgres refuses ("invalid byte sequence for encoding UTF8", a 500).
 */
const unstorable = (text: string): string | null =>
  text.includes("\u0000") ? NUL_MESSAGE : text.isWellFormed() ? null : SURROGATE_MESSAGE;

/** Where in a parsed JSON value a string (or key) holds unstorable text, and why. */
export function unstorablePath(root: unknown): { path: string[]; message: string } | null {
  // Iterative: a body may be nested thousands deep.
  const stack: [unknown, string[]][] = [[root, []]];
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, string[]];
    if (typeof value === "string") {
      const message = unstorable(value);
      if (message) return { path, message };
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    for (const [key, item] of Object.entries(value)) {
      const message = unstorable(key);
      if (message) return { path: [...path, key.replaceAll("\u0000", "").toWellFormed()], message };
      stack.push([item, path.length < 8 ? [...path, key] : path]);
    }
  }
  return null;
}

export const NUL_MESSAGE = "Text must not contain the NUL character";
export const SURROGATE_MESSAGE = "Text must be valid Unicode (a lone surrogate is not a character)";

/** A 400 when a JSON body carries text Postgres cannot store (it would otherwise fail there as a 500). */
export function refuseUnstorableText(value: unknown): void {
  const found = unstorablePath(value);
  if (found) throw badRequest(found.message, { [found.path.join(".") || "_"]: [found.message] });
}

export const INVALID_JSON_MESSAGE = "Request body must be valid JSON";

/**
 * Reads a JSON body and validates it; malformed JSON and invalid input are 400s. An empty
 * (or white-space only) body is malformed JSON too, not `{}`. Only routes that read a
 * body call this: routes that take none never look at it.
 */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let body: unknown;
  try {
    const text = await c.req.text();
    if (text.trim().length === 0) throw new SyntaxError("empty body");
    body = JSON.parse(text);
  } catch {
    throw badRequest(INVALID_JSON_MESSAGE);
  }
  refuseUnstorableText(body);
  const result = schema.safeParse(body);
  if (!result.success) {
    const errors = fieldErrors(result.error);
    const first = result.error.issues[0];
    throw badRequest(first?.message ?? "Invalid input", errors);
  }
  return result.data;
}

const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "08000",
  "08001",
  "08003",
  "08006",
]);

/** True when an error means the database is unreachable rather than a bug. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (
      typeof message === "string" &&
      /did not answer within|connect ECONNREFUSED|terminating connection/.test(message)
    )
      return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The Postgres error code of an error or of any of its causes. */
export function pgErrorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export const isUniqueViolation = (error: unknown) => pgErrorCode(error) === "23505";

export const STATEMENT_TIMEOUT_MESSAGE = "The request took too long. Please try again.";

/**
 * True when Postgres cancelled a statement at its statement_timeout (57014, query_canceled):
 * that request's own work was too long, the database is fine (no Retry-After, no fail-fast).
 */
export const isStatementTimeout = (error: unknown) => pgErrorCode(error) === "57014";
