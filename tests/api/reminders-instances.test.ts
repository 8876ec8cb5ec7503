/**
 * Reminders exactly once across instances (issue 39): four built servers on one Postgres,
 * sharing a moved clock (TEST_CLOCK_FILE, tests only), plan and send two days of reminders for
 * 200 users in six zones. Counted at the doubles: every push the local push service decrypted,
 * every e-mail the instances logged (no SMTP). Each expected reminder and follow-up (0-3 of
 * them, 30 min to 2 h apart: issue 48) arrives exactly once; ticked slots and slots with nothing due send nothing; the work is shared.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { dueInstant } from "../../api/reminders/due";
import { FOLLOW_UP_WAIT_MS } from "../../api/reminders/follow-ups";
import { type Database, openDatabase } from "../../db/client";
import { intakes, supplements } from "../../db/schema";
import { DEFAULT_REMINDER_TIMES, REMINDER_SLOTS, type ReminderPayload } from "../../src/lib/reminders";
import { type PushService, startPushService } from "../fakes/push-service";
import { type Instance, startInstance } from "../support/instances";
import { postgresDatabase, skipWithoutPostgres } from "../support/pg-cluster";
import { skipWithoutBuild } from "../support/process";
import { type SeededUser, seedReminderUsers } from "../support/reminder-users";

const USERS = 200;
const ZONES = ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC"];
const START = Date.parse("2026-06-01T00:00:00Z");
const END = START + 48 * 3_600_000;
const TICKED_DATE = "2026-06-01";
const MIN = 60_000;

const skip = skipWithoutBuild("reminders-instances.test.ts") || skipWithoutPostgres("the reminders across instances");

const rowsOf = <T>(result: unknown): T[] =>
  (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];

describe.skipIf(skip)("four instances, 200 users, two days", () => {
  let pg: Awaited<ReturnType<typeof postgresDatabase>>;
  let push: PushService;
  let direct: Database;
  let instances: Instance[] = [];
  let seeded: SeededUser[] = [];
  const clockFile = join(tmpdir(), `reminder-clock-${crypto.randomUUID()}`);
  const setClock = (ms: number) => writeFileSync(clockFile, String(ms));

  beforeAll(async () => {
    pg = await postgresDatabase();
    push = await startPushService();
    setClock(START - 3_600_000);
    direct = await openDatabase({ url: pg.url, dataDir: ":memory:", poolSize: 4 });
    seeded = await seedReminderUsers(direct.db, {
      count: USERS,
      zones: ZONES,
      since: new Date(START),
      validFrom: "2026-05-30",
      subscription: () => push.subscription(),
      email: (i) => i % 2 === 0,
      followUpMinutes: (i) => [0, 30, 60, 120][i % 4] as number,
      followUps: (i) => [1, 3, 0, 2][Math.floor(i / 4) % 4] as number,
    });
    // Every third user ticked Vitamin D3 on 1 June: that morning (reminder and follow-up) is not sent.
    const d3 = await direct.db
      .select({ id: supplements.id, userId: supplements.userId })
      .from(supplements)
      .where(eq(supplements.name, "Vitamin D3"));
    const ticked = new Set(seeded.filter((_, i) => i % 3 === 0).map((u) => u.id));
    await direct.db.insert(intakes).values(
      d3
        .filter((s) => ticked.has(s.userId))
        .map((s) => ({
          userId: s.userId,
          date: TICKED_DATE,
          supplementId: s.id,
          time: "morning",
          status: "taken",
          name: "Vitamin D3",
          at: new Date(START),
        })),
    );
    const env = {
      DATABASE_URL: pg.url,
      PUBLIC_ORIGIN: "http://stacktrack.test",
      BETTER_AUTH_SECRET: "one-secret-shared-by-every-instance-0123456789",
      TEST_CLOCK_FILE: clockFile,
      REMINDER_TICK_MS: "100",
      LOG_LEVEL: "info",
      ...push.caEnv,
    };
    instances = await Promise.all([1, 2, 3, 4].map(() => startInstance(env, { timeoutMs: 60_000 })));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await push?.close();
    await direct?.close();
    await pg?.release();
    rmSync(clockFile, { force: true });
  });

  /** Waits until no row is due and unsent, and the outbox has stopped growing for a few rounds. */
  async function settle(atMs: number) {
    let last = -1;
    let stable = 0;
    for (let i = 0; i < 400; i++) {
      await Bun.sleep(120);
      const [row] = rowsOf<{ total: number; due: number }>(
        await direct.db.execute(sql`select count(*)::int as total,
          (count(*) filter (where status = 'pending' and next_at <= ${new Date(atMs).toISOString()}::timestamptz))::int as due
          from reminder_outbox`),
      );
      if (row && row.due === 0 && row.total === last) {
        if (++stable >= 3) return;
      } else stable = 0;
      last = row?.total ?? -1;
    }
    throw new Error(`reminders did not settle at ${new Date(atMs).toISOString()}`);
  }

  test("each reminder and follow-up is delivered exactly once", async () => {
    // What should arrive: per user, slot and local date due within the two days.
    const expected = new Map<string, number>(); // `${userId} ${topic}` -> pushes
    const instants = new Set<number>([END]);
    let expectedMails = 0;
    for (const [i, u] of seeded.entries()) {
      for (const date of ["2026-05-31", "2026-06-01", "2026-06-02", "2026-06-03"]) {
        for (const slot of REMINDER_SLOTS) {
          const due = dueInstant(date, DEFAULT_REMINDER_TIMES[slot], u.zone).getTime();
          if (due < START || due > END) continue;
          instants.add(due);
          // Follow-up k is due k × followUpMinutes after the reminder (none when that is 0).
          const followUps = Array.from(
            { length: u.followUpMinutes > 0 ? u.followUps : 0 },
            (_, k) => due + (k + 1) * u.followUpMinutes * MIN,
          ).filter((at) => at <= END);
          // One due with a later slot's reminder (18:00 + 2 × 2 h = Bedtime) waits for it: the
          // clock stands there until it is decided, then moves on by FOLLOW_UP_WAIT_MS.
          const slotDues = REMINDER_SLOTS.map((s) => dueInstant(date, DEFAULT_REMINDER_TIMES[s], u.zone).getTime());
          for (const at of followUps) {
            instants.add(at);
            if (slotDues.includes(at)) instants.add(at + FOLLOW_UP_WAIT_MS);
          }
          const open = (slot === "morning" && !(i % 3 === 0 && date === TICKED_DATE)) || slot === "evening";
          if (!open) continue;
          const n = 1 + followUps.length;
          expected.set(`${u.id} ${slot}-${date.replaceAll("-", "")}`, n);
          if (u.email_) expectedMails += n;
        }
      }
    }
    for (const at of [...instants].sort((a, b) => a - b)) {
      setClock(at);
      await settle(at);
    }

    const userOf = new Map(seeded.map((u) => [u.subscription.endpoint.split("/").pop(), u.id]));
    const got = new Map<string, number>();
    for (const p of push.received) {
      const key = `${userOf.get(p.subscription)} ${p.topic}`;
      got.set(key, (got.get(key) ?? 0) + 1);
      expect((p.payload as ReminderPayload).title).toMatch(/^(Morning|Evening): 1 supplement$/);
    }
    expect(push.refused).toEqual([]);
    expect(got).toEqual(expected);
    const total = [...expected.values()].reduce((a, b) => a + b, 0);
    expect(push.received.length).toBe(total);

    const mailLines = instances.map(
      (inst) =>
        inst.server
          .output()
          .split("\n")
          .filter(
            (line) =>
              line.includes("e-mail (SMTP not configured") && /"subject":"(Morning|Evening): 1 supplement"/.test(line),
          ).length,
    );
    expect(mailLines.reduce((a, b) => a + b, 0)).toBe(expectedMails);
    expect(mailLines.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2); // the work was shared

    const statuses = rowsOf<{ status: string; n: number }>(
      await direct.db.execute(
        sql`select status, count(*)::int as n from reminder_outbox group by status order by status`,
      ),
    );
    expect(statuses.map((s) => s.status).sort()).toEqual(["sent", "skipped"]);
    console.log(`pushes ${total}, e-mails ${expectedMails}, per instance e-mails ${mailLines.join("/")}`);
  }, 600_000);
});
