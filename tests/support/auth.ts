/** A real signed-in session through better-auth's own sign-up endpoint. */
import { expect } from "bun:test";
import type { TestApi } from "./server";

export interface TestUser {
  email: string;
  password: string;
  /** The Cookie header value that carries the session. */
  cookie: string;
}

let counter = 0;

/** The session cookies of a response, as a Cookie header value. */
export function cookieHeader(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0] ?? "")
    .filter((c) => c && !c.endsWith("="))
    .join("; ");
}

export async function signUp(api: TestApi, name = "Test User"): Promise<TestUser> {
  counter += 1;
  const email = `user${counter}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const password = "correct horse battery";
  const res = await api.fetch("/api/auth/sign-up/email", { method: "POST", body: { email, password, name } });
  expect(res.status).toBe(200);
  const cookie = cookieHeader(res);
  expect(cookie).toContain("session_token");
  return { email, password, cookie };
}
