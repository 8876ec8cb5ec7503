/**
 * The current user, shared by every island. Seeded from the server's render (no
 * loading flash), refetched after a profile change; never polled, never retried.
 */
import { atom } from "nanostores";
import { ApiError, api } from "../lib/api";
import type { CurrentUser } from "../lib/types";

export const $user = atom<CurrentUser | null>(null);

/**
 * Called by each island with the user the server rendered it for. Only in the
 * browser: on the server a store is shared by every request, so server renders
 * read their props, never a store.
 */
export function seedUser(user: CurrentUser | null) {
  if (typeof window === "undefined") return;
  if ($user.get() === null && user) $user.set(user);
}

export async function refreshUser(): Promise<CurrentUser | null> {
  try {
    const user = await api.get<CurrentUser>("/api/auth/user");
    $user.set(user);
    return user;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      $user.set(null);
      return null;
    }
    throw error;
  }
}
