/**
 * One user's bad row never fails a round for everyone (issue 45). The planners' statements are
 * set-based, one for all users; when one throws, it runs again over halves of the users, down to
 * single users, whose failure is logged with their id and skipped. A clean round costs nothing
 * more; k bad users cost about 2·k·log2(n) extra statements while they stay bad.
 */
import { dateIn } from "../../src/lib/dates";
import { log } from "../lib/log";

/** A log-sized reason: a failed query's cause (its text can be long), else the message. */
export function reasonOf(error: unknown): { error: string; name: string } {
  const e = error instanceof Error ? error : new Error(String(error));
  const cause = e.cause instanceof Error ? e.cause.message : null;
  return { error: (cause ?? e.message).slice(0, 300), name: e.name };
}

/** Runs `run` over `ids`; when it throws, over each half, down to one id, which is logged and skipped. */
export async function perUser<T>(ids: string[], run: (ids: string[]) => Promise<T[]>, what: string): Promise<T[]> {
  if (ids.length === 0) return [];
  try {
    return await run(ids);
  } catch (error) {
    if (ids.length === 1) {
      log.warn(`${what}: one user's rows skipped`, { userId: ids[0], ...reasonOf(error) });
      return [];
    }
    const half = Math.ceil(ids.length / 2);
    const first = await perUser(ids.slice(0, half), run, what);
    return [...first, ...(await perUser(ids.slice(half), run, what))];
  }
}

/**
 * Runs `run` over everyone (`null`); when that throws, user by user through `perUser` over
 * the ids `users()` lists (read only then).
 */
export async function everyoneOrEach<T>(
  run: (ids: string[] | null) => Promise<T[]>,
  users: () => Promise<string[]>,
  what: string,
): Promise<T[]> {
  try {
    return await run(null);
  } catch (error) {
    log.warn(`${what} failed for the batch: again user by user`, reasonOf(error));
    return perUser(await users(), run, what);
  }
}

/**
 * Each zone's date at `at` by Intl's tz data (the database's is never asked: a zone it does
 * not know must not fail a statement for everyone). Zones Intl rejects are left out.
 */
export function todaysIn(zones: string[], at: Date): { zone: string; today: string }[] {
  return zones.flatMap((zone) => {
    try {
      return [{ zone, today: dateIn(zone, at) }];
    } catch {
      return [];
    }
  });
}
