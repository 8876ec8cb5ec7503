/**
 * The browser's one way to the server. Every call sends cookies; a body goes as
 * JSON (FormData as multipart). A non-OK answer throws an ApiError whose message is
 * the server's `message` (the text the toasts show), never retried.
 */
import { COMMON_MESSAGES } from "./messages";
import type { PublicProfile } from "./types";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Record<string, string[]>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/**
 * The service worker marks an answer it gave from its kept copy, without the server
 * (src/service-worker/sw.js): such an answer says nothing about the network being back.
 */
export const KEPT_COPY_HEADER = "X-Offline-Copy";

const answered = new Set<() => void>();

/** Calls `listener` after every successful answer from the server (not a kept copy); returns the unsubscribe. */
export function onServerAnswer(listener: () => void): () => void {
  answered.add(listener);
  return () => answered.delete(listener);
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Sees the answer's headers (an OK answer only), before its body is returned. */
  headers?: (headers: Headers) => void;
  /** The request outlives the page (a setting saved as the visitor leaves). */
  keepalive?: boolean;
}

export async function apiRequest<T>(
  method: string,
  path: string,
  body?: unknown,
  { signal, headers, keepalive }: RequestOptions = {},
): Promise<T> {
  const init: RequestInit = {
    method,
    credentials: "include",
    headers: { Accept: "application/json" },
    signal,
    keepalive,
  };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, "Content-Type": "application/json" };
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, COMMON_MESSAGES.networkError);
  }
  const text = await response.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!response.ok) {
    const payload = (data ?? {}) as { message?: unknown; errors?: Record<string, string[]> };
    const message =
      typeof payload.message === "string" && payload.message ? payload.message : text || response.statusText;
    throw new ApiError(response.status, message, payload.errors);
  }
  headers?.(response.headers);
  if (!response.headers.has(KEPT_COPY_HEADER)) for (const listener of answered) listener();
  return data as T;
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => apiRequest<T>("GET", path, undefined, options),
  post: <T>(path: string, body?: unknown) => apiRequest<T>("POST", path, body ?? {}),
  /** `keepalive`: the request outlives the page (a setting saved as the visitor leaves). */
  put: <T>(path: string, body?: unknown, options?: Pick<RequestOptions, "keepalive">) =>
    apiRequest<T>("PUT", path, body ?? {}, options),
  delete: <T>(path: string) => apiRequest<T>("DELETE", path),
};

/**
 * The live username check: whether a public profile answers under `name` (taken). Any
 * refusal (404, 400, 429, 5xx) counts as not found; the server has the last word on submit.
 * Throws when the server could not be reached or `signal` aborted the request.
 */
export async function profileExists(name: string, signal?: AbortSignal): Promise<boolean> {
  try {
    await api.get<PublicProfile>(`/api/profile/${encodeURIComponent(name)}`, { signal });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status > 0) return false;
    throw error;
  }
}

/** The request never reached the server (no network, or the server unreachable): status 0. */
export const isOffline = (error: unknown) => error instanceof ApiError && error.status === 0;

/** The server's message when it sent one, otherwise the screen's fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.message) return error.message;
  return fallback;
}
