/**
 * What the server-rendered pages read, as query functions over the process's context: pages
 * import these, never a route module of api/.
 */
import { hasPassword } from "../../api/account/credentials";
import { isUsernameHeld } from "../../api/account/holds";
import type { Config } from "../../api/lib/config";
import { getContext } from "../../api/lib/context";
import { type FoundProfile, findPublicProfile } from "../../api/profile/queries";
import { remindersOn } from "../../api/reminders/settings";
import { listSupplements } from "../../api/supplements/queries";
import { readDay } from "../../api/tracking/queries";
import { userToday } from "../../api/tracking/versions";
import { isReservedUsername } from "../lib/reserved-usernames";
import type { TodayJson } from "../lib/schedule";
import type { CurrentUser, Supplement } from "../lib/types";
import { isValidUsername } from "../lib/validation";

/** The server's configuration (origin, which sign-in providers and payments are on). */
export async function pageConfig(): Promise<Config> {
  return (await getContext()).config;
}

/** The user's supplements in their order, as GET /api/supplements answers them (the dashboard's first paint). */
export async function supplementsOf(user: Pick<CurrentUser, "id" | "isPremium" | "timeZone">): Promise<Supplement[]> {
  return listSupplements((await getContext()).database.db, user);
}

/** The public profile /{name} shows; null for unknown, reserved or ill-formed names. */
export async function publicProfile(name: string): Promise<FoundProfile | null> {
  const { database, config } = await getContext();
  return findPublicProfile(database.db, name, config.origin);
}

/**
 * Whether a visitor could take `name` (issue 51: the unknown profile's 'Make it yours', for a
 * page that found no profile): the username rule, not reserved, not held after a deletion.
 */
export async function nameIsClaimable(name: string): Promise<boolean> {
  if (!isValidUsername(name) || isReservedUsername(name)) return false;
  return !(await isUsernameHeld((await getContext()).database.db, name));
}

/** Whether the user can sign in with a password (/settings: 'Set a password' when not). */
export async function userHasPassword(userId: string): Promise<boolean> {
  return hasPassword((await getContext()).database.db, userId);
}

/** Whether the user gets reminders (issue 39: the dashboard's Today links to them when not). */
export async function userHasReminders(userId: string): Promise<boolean> {
  return remindersOn((await getContext()).database.db, userId);
}

/**
 * The user's Today as GET /api/today answers it (issue 51: the dashboard renders its rows, so a
 * phone can tick at once): their day in their zone by the one clock (api/lib/clock.ts). Null before
 * the browser told the zone (the card then reads the day in the browser's zone).
 */
export async function todayOf(user: Pick<CurrentUser, "id" | "timeZone">): Promise<TodayJson | null> {
  if (!user.timeZone) return null;
  return readDay((await getContext()).database.db, user.id, userToday(user), user.timeZone);
}
