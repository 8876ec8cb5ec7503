/**
 * Signed-in browsers for the Playwright journeys that are not about signing in: a real
 * better-auth session made through the API with the page's own request context, so the
 * cookies land in the browser (accounts.spec.ts signs up through the real form instead).
 */
import { type APIRequestContext, expect, type Page } from "@playwright/test";

export interface E2eUser {
  name: string;
  email: string;
  password: string;
  username: string | null;
}

let counter = 0;

/** A username no other test uses (letters, digits, underscores; 3 to 50 characters). */
export function uniqueUsername(prefix = "u"): string {
  counter += 1;
  return `${prefix}_${process.pid % 10_000}_${counter}_${crypto.randomUUID().slice(0, 4)}`;
}

export function newCredentials(name = "Test User"): { name: string; email: string; password: string } {
  counter += 1;
  return {
    name,
    email: `e2e-${counter}-${crypto.randomUUID().slice(0, 8)}@example.com`,
    password: "correct horse battery",
  };
}

/** The origin of a request context's base URL (state-changing calls must carry it). */
const originOf = (baseURL: string) => new URL(baseURL).origin;

/**
 * Signs up through POST /api/auth/sign-up/email with `request` (pass `page.request` to
 * sign the page's browser in) and, when asked, sets the username through PUT /api/profile.
 */
export async function signUpWithApi(
  request: APIRequestContext,
  baseURL: string,
  options: { username?: string | null; name?: string } = {},
): Promise<E2eUser> {
  const credentials = newCredentials(options.name);
  const headers = { Origin: originOf(baseURL) };
  const res = await request.post(`${baseURL}/api/auth/sign-up/email`, { data: credentials, headers });
  expect(res.status(), await res.text()).toBe(200);
  const user: E2eUser = { ...credentials, username: null };
  const username = options.username === undefined ? uniqueUsername() : options.username;
  if (username) {
    const put = await request.put(`${baseURL}/api/profile`, { data: { username }, headers });
    expect(put.status(), await put.text()).toBe(200);
    user.username = username;
  }
  return user;
}

/** A JSON call with the page's session (and the Origin header the server requires). */
export async function apiCall<T = unknown>(
  page: Page,
  baseURL: string,
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  data?: unknown,
): Promise<T> {
  const res = await page.request.fetch(`${baseURL}${path}`, {
    method,
    data: data as Record<string, unknown> | undefined,
    headers: { Origin: originOf(baseURL) },
  });
  expect(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`).toBe(true);
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export interface SupplementSeed {
  name: string;
  quantityType?: string;
  frequency?: string;
  affiliateLink?: string;
  notes?: string;
}

/** Adds supplements through the API, in order; returns their ids. */
export async function addSupplements(page: Page, baseURL: string, list: SupplementSeed[]): Promise<number[]> {
  const ids: number[] = [];
  for (const s of list) {
    const created = await apiCall<{ id: number }>(page, baseURL, "POST", "/api/supplements", {
      quantityType: "Capsule(s)",
      frequency: "daily",
      ...s,
    });
    ids.push(created.id);
  }
  return ids;
}
