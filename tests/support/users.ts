/**
 * Users for the API tests: signed up over HTTP through better-auth (a real session),
 * then shaped through the API (username) or, for what no API sets yet, the database
 * (premium: billing is another issue).
 *
 *   const alice = await createUser(api, { username: "alice" });
 *   await makePremium(api, alice);
 *   await api.fetch("/api/supplements", { headers: { cookie: alice.cookie } });
 */
import { expect } from "bun:test";
import { eq } from "drizzle-orm";
import sharp, { type Color } from "sharp";
import { type Supplement, supplements, type User, users } from "../../db/schema";
import { cookieHeader } from "./auth";
import type { TestApi } from "./server";

export interface ApiUser {
  id: string;
  email: string;
  password: string;
  /** The Cookie header value that carries the session. */
  cookie: string;
  username: string | null;
}

let counter = 0;

/** A name no other test in this process uses: letters, digits and underscores. */
export function uniqueName(prefix = "user"): string {
  counter += 1;
  return `${prefix}_${counter}_${crypto.randomUUID().slice(0, 6)}`;
}

export interface CreateUserOptions {
  /** The sign-up name (better-auth's `name`); first and last name come from it. */
  name?: string;
  /** Set through PUT /api/profile after sign-up. */
  username?: string;
  premium?: boolean;
}

/** Signs up through POST /api/auth/sign-up/email and returns the session cookie. */
export async function createUser(api: TestApi, options: CreateUserOptions = {}): Promise<ApiUser> {
  counter += 1;
  const email = `qa${counter}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const password = "correct horse battery";
  const res = await api.fetch("/api/auth/sign-up/email", {
    method: "POST",
    body: { email, password, name: options.name ?? "Test User" },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { user?: { id?: string } };
  const cookie = cookieHeader(res);
  expect(cookie).toContain("session_token");
  const id = body.user?.id;
  if (!id) throw new Error("sign-up answered without a user id");
  const user: ApiUser = { id, email, password, cookie, username: null };
  if (options.username) await setUsername(api, user, options.username);
  if (options.premium) await makePremium(api, user);
  return user;
}

/** PUT /api/profile {username}; fails the test unless it answers 200. */
export async function setUsername(api: TestApi, user: ApiUser, username: string): Promise<void> {
  const res = await api.fetch("/api/profile", { method: "PUT", headers: { cookie: user.cookie }, body: { username } });
  expect(res.status).toBe(200);
  user.username = username;
}

/** Makes the user premium (or free again) directly in the database. */
export async function makePremium(api: TestApi, user: Pick<ApiUser, "id">, premium = true): Promise<void> {
  await api.ctx.database.db.update(users).set({ isPremium: premium }).where(eq(users.id, user.id));
}

/**
 * Marks the user's address confirmed (issue 45: reminder e-mails go only to a confirmed one),
 * as opening the confirmation link does (tests/api/email-confirm.test.ts covers the link).
 */
export async function confirmEmail(api: TestApi, user: Pick<ApiUser, "id">): Promise<void> {
  await api.ctx.database.db.update(users).set({ emailVerified: true }).where(eq(users.id, user.id));
}

/** The user's row as stored. */
export async function userRow(api: TestApi, user: Pick<ApiUser, "id">): Promise<User> {
  const [row] = await api.ctx.database.db.select().from(users).where(eq(users.id, user.id));
  if (!row) throw new Error(`no user ${user.id}`);
  return row;
}

/** The user's supplements as stored, by sortOrder then id. */
export async function supplementRows(api: TestApi, user: Pick<ApiUser, "id">): Promise<Supplement[]> {
  const rows = await api.ctx.database.db.select().from(supplements).where(eq(supplements.userId, user.id));
  return rows.sort((a, b) => a.sortOrder - b.sortOrder || a.id - b.id);
}

/** Inserts `count` supplements for the user straight into the database (fast set-up). */
export async function insertSupplements(
  api: TestApi,
  user: Pick<ApiUser, "id">,
  count: number,
  firstSortOrder = 0,
): Promise<Supplement[]> {
  if (count === 0) return [];
  const values = Array.from({ length: count }, (_, i) => ({
    userId: user.id,
    name: `Seeded ${i + 1}`,
    quantityType: "Capsule(s)",
    frequency: "daily",
    sortOrder: firstSortOrder + i,
  }));
  return api.ctx.database.db.insert(supplements).values(values).returning();
}

/** Uploads a `size`×`size` PNG of one colour as `user` and answers its URL (not yet saved as the avatar). */
export async function uploadAvatar(to: TestApi, user: ApiUser, background: Color, size = 40): Promise<string> {
  const png = await sharp({ create: { width: size, height: size, channels: 3, background } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append("profileImage", new File([new Uint8Array(png)], "a.png", { type: "image/png" }));
  const res = await to.fetch("/api/upload/profile-image", {
    method: "POST",
    headers: { cookie: user.cookie },
    body: form,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { imageUrl: string }).imageUrl;
}

/** Saves `url` (an upload's, or "" to clear it) as `user`'s avatar through PUT /api/profile. */
export async function setAvatar(to: TestApi, user: ApiUser, url: string): Promise<void> {
  const res = await to.fetch("/api/profile", {
    method: "PUT",
    headers: { cookie: user.cookie },
    body: { profileImageUrl: url },
  });
  expect(res.status).toBe(200);
}
