/**
 * The fault test of issue 45: two built servers on one Postgres, sharing a moved clock
 * (TEST_CLOCK_FILE), plan and send a day of reminders while some push endpoints misbehave
 * (answer 201 with Content-Length 1000 and two bytes then close; trickle; never answer; answer
 * 150 MB) and one user's zone is one Postgres does not know (written straight to the database,
 * with an as-needed stock whose run-out reads that zone). Every other user's reminders arrive
 * on time (while the shared clock stands at their due instant) and exactly once, and both
 * instances' loops keep finishing rounds (/api/health says ok, never degraded).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, inArray, sql } from "drizzle-orm";
import { dueInstant } from "../../api/reminders/due";
import { type Database, openDatabase } from "../../db/client";
import { intakes, supplements, users } from "../../db/schema";
import { DEFAULT_REMINDER_TIMES, type ReminderSlot } from "../../src/lib/reminders";
import { type Fault, type PushService, startPushService } from "../fakes/push-service";
import { type Instance, startInstance } from "../support/instances";
import { postgresDatabase, skipWithoutPostgres } from "../support/pg-cluster";
import { skipWithoutBuild } from "../support/process";
import { type SeededUser, seedReminderUsers } from "../support/reminder-users";

const ZONES = ["Europe/Berlin", "America/New_York", "UTC"];
const START = Date.parse("2026-06-01T00:00:00Z");
const END = START + 24 * 3_600_000;
const FAULTS: Fault[] = ["cut", "trickle", "stall", "huge"];
const SLOTS: ReminderSlot[] = ["morning", "evening"]; // the seeded users' supplements

const skip = skipWithoutBuild("reminders-faults.test.ts") || skipWithoutPostgres("the fault test");

const rowsOf = <T>(result: unknown): T[] =>
  (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];

describe.skipIf(skip)("two instances, faulty push endpoints, a zone Postgres does not know", () => {
  let pg: Awaited<ReturnType<typeof postgresDatabase>>;
  let push: PushService;
  let direct: Database;
  let instances: Instance[] = [];
  let good: SeededUser[] = [];
  const clockFile = join(tmpdir(), `reminder-faults-clock-${crypto.randomUUID()}`);
  let clock = 0;
  const setClock = (ms: number) => {
    clock = ms;
    writeFileSync(clockFile, String(ms));
  };

  beforeAll(async () => {
    pg = await postgresDatabase();
    push = await startPushService();
    setClock(START - 3_600_000);
    direct = await openDatabase({ url: pg.url, dataDir: ":memory:", poolSize: 4 });
    const seed = (count: number, subscription: () => ReturnType<PushService["subscription"]>) =>
      seedReminderUsers(direct.db, {
        count,
        zones: ZONES,
        since: new Date(START),
        validFrom: "2026-05-30",
        subscription,
        email: () => false,
        followUpMinutes: () => 0,
      });
    good = await seed(24, () => push.subscription());
    let f = 0;
    await seed(FAULTS.length * 2, () => push.faulty(FAULTS[f++ % FAULTS.length] as Fault));
    const [odd] = await seed(1, () => push.subscription());
    if (!odd) throw new Error("no user seeded");
    // The odd user: a zone Postgres does not know, and an as-needed stock (its run-out reads the zone).
    await direct.db.update(users).set({ timeZone: "US/Pacific-New" }).where(eq(users.id, odd.id));
    const [magnesium] = await direct.db
      .update(supplements)
      .set({
        schedule: null,
        stockCount: 10,
        stockCountedAt: new Date(START - 86_400_000),
        stockCountedOn: "2026-05-31",
      })
      .where(and(eq(supplements.userId, odd.id), eq(supplements.name, "Magnesium")))
      .returning({ id: supplements.id });
    if (!magnesium) throw new Error("no Magnesium");
    await direct.db.insert(intakes).values({
      userId: odd.id,
      date: "2026-05-31",
      supplementId: magnesium.id,
      time: "as-needed",
      status: "taken",
      name: "Magnesium",
      at: new Date(START - 3_600_000),
    });
    const env = {
      DATABASE_URL: pg.url,
      PUBLIC_ORIGIN: "http://stacktrack.test",
      BETTER_AUTH_SECRET: "one-secret-shared-by-every-instance-0123456789",
      TEST_CLOCK_FILE: clockFile,
      REMINDER_TICK_MS: "100",
      OUTBOUND_TIMEOUT_MS: "1000",
      ...push.caEnv,
    };
    instances = await Promise.all([1, 2].map(() => startInstance(env, { timeoutMs: 60_000 })));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await push?.close();
    await direct?.close();
    await pg?.release();
    rmSync(clockFile, { force: true });
  });

  /** Waits until no good user's row is due and unsent, for a few rounds in a row. */
  async function settle(atMs: number) {
    const ids = good.map((u) => u.id);
    let stable = 0;
    for (let i = 0; i < 600; i++) {
      await Bun.sleep(100);
      const [row] = rowsOf<{ due: number }>(
        await direct.db.execute(sql`select count(*)::int as due from reminder_outbox
          where status = 'pending' and next_at <= ${new Date(atMs).toISOString()}::timestamptz
            and user_id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`),
      );
      if (row?.due === 0) {
        if (++stable >= 5) return;
      } else stable = 0;
    }
    throw new Error(`reminders did not settle at ${new Date(atMs).toISOString()}`);
  }

  test("every other user's reminders arrive on time, exactly once; both loops keep going", async () => {
    // When each good user's slot is due, and the pushes expected (one per slot and day).
    const dueAt = new Map<string, number>(); // `${endpoint id} ${topic}` -> due instant
    for (const u of good) {
      for (const date of ["2026-05-31", "2026-06-01", "2026-06-02"]) {
        for (const slot of SLOTS) {
          const due = dueInstant(date, DEFAULT_REMINDER_TIMES[slot], u.zone).getTime();
          if (due < START || due > END) continue;
          dueAt.set(`${u.subscription.endpoint.split("/").pop()} ${slot}-${date.replaceAll("-", "")}`, due);
        }
      }
    }
    const instants = [...new Set([...dueAt.values(), END])].sort((a, b) => a - b);
    const arrivedAt = new Map<string, number[]>();
    let seen = 0;
    for (const at of instants) {
      setClock(at);
      await settle(at);
      for (const p of push.received.slice(seen)) {
        const key = `${p.subscription} ${p.topic}`;
        arrivedAt.set(key, [...(arrivedAt.get(key) ?? []), clock]);
      }
      seen = push.received.length;
    }
    const goodIds = new Set(good.map((u) => u.subscription.endpoint.split("/").pop()));
    const mine = new Map([...arrivedAt].filter(([key]) => goodIds.has(key.split(" ")[0])));
    // Exactly once each, at the clock instant it was due.
    expect([...mine.keys()].sort()).toEqual([...dueAt.keys()].sort());
    for (const [key, times] of mine) expect([key, times]).toEqual([key, [dueAt.get(key) as number]]);
    expect(push.refused).toEqual([]);
    expect(push.faults.requests).toBeGreaterThanOrEqual(FAULTS.length * 2);

    // No row is left leased; both instances' loops finish rounds (not degraded) after all of it.
    const leased = rowsOf<{ n: number }>(
      await direct.db.execute(
        sql`select count(*)::int as n from reminder_outbox where lease_until > ${new Date(clock).toISOString()}::timestamptz`,
      ),
    );
    expect(leased[0]?.n).toBe(0);
    for (const instance of instances) {
      let answer: [number, string] = [0, ""];
      for (let i = 0; i < 50 && answer[1] !== "ok"; i++) {
        if (i > 0) await Bun.sleep(100); // a round that began before the last move of the clock ends
        const res = await fetch(`${instance.url}/api/health`);
        answer = [res.status, ((await res.json()) as { status: string }).status];
      }
      expect(answer).toEqual([200, "ok"]);
    }
    const faulty = rowsOf<{ status: string; n: number }>(
      await direct.db.execute(sql`select status, count(*)::int as n from reminder_outbox
        where not (user_id in (select jsonb_array_elements_text(${JSON.stringify(good.map((u) => u.id))}::jsonb)))
        group by status order by status`),
    );
    console.log(
      `good pushes ${mine.size}; faulty requests ${push.faults.requests}; other rows ${JSON.stringify(faulty)}`,
    );
    expect(
      await direct.db
        .select()
        .from(users)
        .where(inArray(users.timeZone, ["US/Pacific-New"])),
    ).toHaveLength(1);
  }, 600_000);
});
