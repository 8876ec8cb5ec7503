/**
 * A barrier on the change channel (api/lib/cache.ts CHANGES_CHANNEL), for tests of caches that
 * other instances empty through the database's notifications.
 *
 *   const notificationsApplied = await notificationBarrier(api.ctx.database);
 *   await notificationsApplied(); // the app has applied every notification sent before
 *
 * Notifications arrive in commit order, and a listener registered after the app's own is
 * called after it for each one: a notification of the test's own, seen here, comes after
 * the app applied every earlier one. The app ignores its `probe` key.
 */
import { sql } from "drizzle-orm";
import { CHANGES_CHANNEL } from "../../api/lib/cache";
import type { Database } from "../../db/client";

export async function notificationBarrier(database: Database): Promise<() => Promise<void>> {
  const probes = new Map<string, () => void>();
  await database.listen(CHANGES_CHANNEL, (payload) => {
    const probe = (JSON.parse(payload) as { probe?: string }).probe;
    if (probe) probes.get(probe)?.();
  });
  return async () => {
    const probe = crypto.randomUUID();
    const seen = new Promise<void>((resolve) => probes.set(probe, resolve));
    await database.db.execute(sql`select pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify({ probe })})`);
    await seen;
    probes.delete(probe);
  };
}
