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

export async function apiRequest<T>(
  method: string,
  path: string,
  body?: unknown,
  { signal, keepalive }: { signal?: AbortSignal; keepalive?: boolean } = {},
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
  return data as T;
}

export const api = {
  get: <T>(path: string, options?: { signal?: AbortSignal }) => apiRequest<T>("GET", path, undefined, options),
  post: <T>(path: string, body?: unknown) => apiRequest<T>("POST", path, body ?? {}),
  /** `keepalive`: the request outlives the page (a setting saved as the visitor leaves). */
  put: <T>(path: string, body?: unknown, options?: { keepalive?: boolean }) =>
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

/** The server's message when it sent one, otherwise the screen's fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.message) return error.message;
  return fallback;
}
