/**
 * Issue 39's scale run: 10,000 users due at the same 08:00 (UTC, push to the local push
 * service, which checks and decrypts every one), delivered by one and then two built
 * instances on one Postgres. Prints the seconds from 08:00 until the push service has all
 * of them, and any duplicate. The instances' clock is moved through TEST_CLOCK_FILE (08:00
 * then real time on).
 *
 *   bun --bun astro build && TEST_DATABASE_URL=postgres://… bun bench/reminders.ts [users]
 */
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { openDatabase } from "../db/client";
import { users } from "../db/schema";
import { startPushService } from "../tests/fakes/push-service";
import { startInstance } from "../tests/support/instances";
import { postgresDatabase } from "../tests/support/pg-cluster";
import { seedReminderUsers } from "../tests/support/reminder-users";
import { runWrk, type WrkResult } from "./lib";

const USERS = Number(process.argv[2] ?? 10_000);
const EIGHT = Date.parse("2026-06-01T08:00:00Z");

const PAGE = "benchreminders";
const wrkPage = (url: string) => runWrk(`${url}/${PAGE}`, "bench/lua/report.lua", 8, 50);
const figures = (r: WrkResult) =>
  `${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.errors} errors`;

async function run(
  instanceCount: number,
  withPage: boolean,
): Promise<{ seconds: number; duplicates: number; summary: string; page?: string }> {
  const pg = await postgresDatabase();
  const push = await startPushService();
  const clockFile = join(tmpdir(), `reminder-bench-clock-${crypto.randomUUID()}`);
  writeFileSync(clockFile, String(EIGHT - 60_000));
  const direct = await openDatabase({ url: pg.url, dataDir: ":memory:", poolSize: 4 });
  try {
    const seeded = await seedReminderUsers(direct.db, {
      count: USERS,
      zones: ["UTC"],
      since: new Date(EIGHT - 3_600_000),
      validFrom: "2026-05-01",
      subscription: () => push.subscription(),
      email: () => false,
      followUpMinutes: () => 0,
    });
    const env = {
      DATABASE_URL: pg.url,
      BETTER_AUTH_SECRET: "one-secret-shared-by-every-instance-0123456789",
      TEST_CLOCK_FILE: clockFile,
      REMINDER_TICK_MS: "1000",
      ...push.caEnv,
    };
    // One of them has a public page: its figures idle and while the reminders go out.
    await direct.db
      .update(users)
      .set({ username: PAGE })
      .where(eq(users.id, seeded[0]?.id ?? ""));
    const instances = await Promise.all(Array.from({ length: instanceCount }, () => startInstance(env)));
    try {
      const idle = withPage ? await wrkPage(instances[0]?.url ?? "") : undefined;
      const started = Date.now();
      const clock = setInterval(() => writeFileSync(clockFile, String(EIGHT + (Date.now() - started))), 50);
      writeFileSync(clockFile, String(EIGHT));
      const during = withPage ? wrkPage(instances[0]?.url ?? "") : undefined;
      while (push.received.length < seeded.length && Date.now() - started < 300_000) await Bun.sleep(50);
      const seconds = (Date.now() - started) / 1000;
      await Bun.sleep(3000); // a duplicate would arrive now
      clearInterval(clock);
      const seen = new Set(push.received.map((p) => p.subscription));
      const page =
        idle && during ? `public page idle: ${figures(idle)}; during delivery: ${figures(await during)}` : undefined;
      return {
        seconds,
        duplicates: push.received.length - seen.size,
        page,
        summary: `${push.received.length} pushes, ${seen.size} distinct, ${push.refused.length} refused`,
      };
    } finally {
      await Promise.all(instances.map((i) => i.stop()));
    }
  } finally {
    await direct.close();
    await push.close();
    await pg.release();
    rmSync(clockFile, { force: true });
  }
}

for (const n of [1, 2]) {
  const result = await run(n, n === 1);
  console.log(
    `${USERS} users due at 08:00, ${n} instance${n === 1 ? "" : "s"}: all delivered in ${result.seconds.toFixed(1)} s (${result.summary}; duplicates ${result.duplicates})`,
  );
  if (result.page) console.log(`  ${result.page}`);
}
