/**
 * Reminders until taken (issue 48): `followUps` 0-3 in GET/PUT /api/reminders (a 400 naming the
 * field for anything else, nothing written), and the follow-ups as a table on the moved clock
 * (api/lib/clock.ts): ×0-3, stopping once ticked, `followUpMinutes` 0, none more than 30 minutes
 * late, none after a later slot's reminder of the same day, and two instances planning and
 * sending at once deliver each exactly once (on Postgres: two connection pools; on PGlite one
 * database, the outbox key alone). A user in Berlin (UTC+2 in June) with one supplement per slot
 * (Mo, Af, Ev, Be); pushes go to the local push service, e-mails to a recording mailer.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { freezeClock, resetClock } from "../../api/lib/clock";
import type { Mail } from "../../api/lib/mail";
import { reminderRound, senderDeps } from "../../api/reminders/worker";
import { type Database, openDatabase } from "../../db/client";
import { reminderOutbox, reminderSettings, users } from "../../db/schema";
import type { ReminderPayload, ReminderSettingsJson } from "../../src/lib/reminders";
import { type PushService, startPushService, type TestSubscription } from "../fakes/push-service";
import type { TestDatabase } from "../support/db";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs } from "../support/tracking-api";
import { type ApiUser, createUser } from "../support/users";

let api: TestApi;
let push: PushService;
let database: TestDatabase;
/** The second instance's connections (Postgres), or none (PGlite: one process holds the folder). */
let second: Database | null = null;
const mails: Mail[] = [];

beforeAll(async () => {
  push = await startPushService();
  push.trustInProcess();
  database = await migratedDatabase();
  api = await startApi({ PUSH_HOSTS: push.caEnv.PUSH_HOSTS }, { database });
  const url = database.env.DATABASE_URL;
  if (url) second = await openDatabase({ url, dataDir: ":memory:", poolSize: 4 });
});
afterAll(async () => {
  resetClock();
  await second?.close();
  await api?.close();
  await push?.close();
});
beforeEach(() => {
  push.received.length = 0;
  mails.length = 0;
});
afterEach(() => resetClock());

const as = requestsAs(() => api);
const DAILY = [1, 2, 3, 4, 5, 6, 7];
const SLOT_NAMES = { morning: "Mo", afternoon: "Af", evening: "Ev", bedtime: "Be" } as const;

/** One instance's round; `instance` 2 plans and sends through its own connections when there are any. */
const round = (instance: 1 | 2 = 1) =>
  reminderRound({
    ...senderDeps(api.ctx),
    ...(instance === 2 && second ? { db: second.db } : {}),
    mailer: async (mail: Mail) => {
      mails.push(mail);
    },
  });

async function put(user: ApiUser, body: Record<string, unknown>) {
  const res = await as(user, "/api/reminders", { method: "PUT", body });
  return { status: res.status, body: (await res.json()) as ReminderSettingsJson & { message?: string } };
}

/** A user in Berlin with one supplement per slot, a device, a confirmed address and `settings`. */
async function remindedUser(settings: Record<string, unknown>) {
  const user = await createUser(api);
  await api.ctx.database.db.update(users).set({ emailVerified: true }).where(eq(users.id, user.id));
  expect((await as(user, "/api/profile", { method: "PUT", body: { timeZone: "Europe/Berlin" } })).status).toBe(200);
  const ids: Record<string, number> = {};
  for (const [slot, name] of Object.entries(SLOT_NAMES)) {
    ids[slot] = await addSupplementAs(api, user, {
      name,
      quantityType: "Soft Gel",
      doseAmount: 1,
      schedule: { times: [slot], days: DAILY },
    });
  }
  const sub = push.subscription();
  const subscribed = await as(user, "/api/push/subscriptions", {
    method: "POST",
    body: sub as unknown as Record<string, unknown>,
  });
  expect(subscribed.status).toBe(201);
  expect((await put(user, settings)).status).toBe(200);
  return { user, sub, ids };
}

const pushesTo = (sub: TestSubscription) =>
  push.received.filter((p) => sub.endpoint.endsWith(p.subscription)).map((p) => p.payload as ReminderPayload);

describe("followUps in the settings", () => {
  test("1 by default; 0-3 saved and read back", async () => {
    const user = await createUser(api);
    expect(((await (await as(user, "/api/reminders")).json()) as ReminderSettingsJson).followUps).toBe(1);
    for (const n of [3, 0, 2, 1] as const) {
      expect((await put(user, { followUps: n })).body.followUps).toBe(n);
      expect(((await (await as(user, "/api/reminders")).json()) as ReminderSettingsJson).followUps).toBe(n);
    }
    // Another setting leaves it as it is.
    await put(user, { followUps: 3 });
    expect((await put(user, { followUpMinutes: 30 })).body).toMatchObject({ followUps: 3, followUpMinutes: 30 });
  });

  test.each([
    [{ followUps: 4 }],
    [{ followUps: -1 }],
    [{ followUps: 1.5 }],
    [{ followUps: "2" }],
    [{ followUps: null }],
    [{ followUps: true }],
    [{ followUps: [1] }],
    [{ followUps: 9, times: { morning: "07:00" }, email: true }],
  ])("PUT %j: 400 naming followUps, nothing written", async (body) => {
    const user = await createUser(api);
    const res = await put(user, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("Follow-ups must be 0, 1, 2 or 3");
    expect((res.body as unknown as { errors: Record<string, string[]> }).errors.followUps).toEqual([
      "Follow-ups must be 0, 1, 2 or 3",
    ]);
    const rows = await api.ctx.database.db.select().from(reminderSettings).where(eq(reminderSettings.userId, user.id));
    expect(rows).toEqual([]);
  });
});

/** The clock at 05:00 UTC on 1 June 2026 (before the user is made: settings apply from then on). */
const early = () => freezeClock("2026-06-01T05:00:00Z");

/**
 * Moves the clock to each instant (UTC, HH:MM on 1 June 2026), runs its action, then a round;
 * answers what arrived at `sub` as `HH:MM Slot` (the instant of the round that sent it).
 */
async function walk(
  move: (to: string) => void,
  sub: TestSubscription,
  steps: [string, (() => Promise<void>)?][],
  rounds: () => Promise<unknown> = () => round(),
): Promise<string[]> {
  const arrived: string[] = [];
  for (const [at, before] of steps) {
    move(`2026-06-01T${at}:00Z`);
    await before?.();
    await rounds();
    for (const p of pushesTo(sub).slice(arrived.length)) arrived.push(`${at} ${p.title.split(":")[0]}`);
  }
  return arrived;
}

/** Every quarter of an hour from `from` to `to` (UTC, HH:MM). */
function quarters(from: string, to: string): [string][] {
  const out: [string][] = [];
  const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
  for (let m = minutes(from); m <= minutes(to); m += 15) {
    out.push([`${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`]);
  }
  return out;
}

async function outboxOf(user: ApiUser, slot: string) {
  return api.ctx.database.db
    .select({ kind: reminderOutbox.kind, followUp: reminderOutbox.followUp, status: reminderOutbox.status })
    .from(reminderOutbox)
    .where(and(eq(reminderOutbox.userId, user.id), eq(reminderOutbox.slot, slot), eq(reminderOutbox.channel, "push")))
    .orderBy(asc(reminderOutbox.followUp));
}

describe("follow-ups: how many, until ticked, lateness and the next slot", () => {
  type Case = {
    settings: Record<string, unknown>;
    /** Instants (UTC, HH:MM) of the rounds; Berlin's 08:00 is 06:00 UTC, 13:00 is 11:00. */
    steps: [string][];
    /** Instants at which the user ticks Mo (morning) or Af (afternoon) before the round. */
    ticks?: Record<string, "morning" | "afternoon">;
    /** What arrived, when (UTC): `HH:MM Slot`. */
    pushes: string[];
    /** The morning push rows: follow-up number and status, by number. */
    morning: string[];
    /** An Any time supplement too (it comes with Morning), and the pushes' bodies then. */
    omega?: string[];
  };
  const cases: [string, Case][] = [
    [
      "×0",
      { settings: { followUps: 0 }, steps: quarters("05:45", "10:45"), pushes: ["06:00 Morning"], morning: ["0 sent"] },
    ],
    [
      "×1 (the default)",
      {
        settings: {},
        steps: quarters("05:45", "10:45"),
        pushes: ["06:00 Morning", "07:00 Morning"],
        morning: ["0 sent", "1 sent"],
      },
    ],
    [
      "×2",
      {
        settings: { followUps: 2 },
        steps: quarters("05:45", "10:45"),
        pushes: ["06:00 Morning", "07:00 Morning", "08:00 Morning"],
        morning: ["0 sent", "1 sent", "2 sent"],
      },
    ],
    [
      "×3, each an hour after the one before",
      {
        settings: { followUps: 3 },
        steps: quarters("05:45", "10:45"),
        pushes: ["06:00 Morning", "07:00 Morning", "08:00 Morning", "09:00 Morning"],
        morning: ["0 sent", "1 sent", "2 sent", "3 sent"],
      },
    ],
    [
      "×3 every 30 minutes, ticked after the first follow-up: the rest not sent",
      {
        settings: { followUps: 3, followUpMinutes: 30 },
        steps: quarters("05:45", "10:45"),
        ticks: { "06:45": "morning" },
        pushes: ["06:00 Morning", "06:30 Morning"],
        morning: ["0 sent", "1 sent", "2 skipped", "3 skipped"],
      },
    ],
    [
      "×3 every 30 minutes, one of two ticked after the reminder: each follow-up lists only the other",
      {
        settings: { followUps: 3, followUpMinutes: 30 },
        steps: quarters("05:45", "08:00"),
        ticks: { "06:15": "morning" },
        omega: [
          "Mo (1 soft gel), Omega (1 soft gel)",
          "Omega (1 soft gel)",
          "Omega (1 soft gel)",
          "Omega (1 soft gel)",
        ],
        pushes: ["06:00 Morning", "06:30 Morning", "07:00 Morning", "07:30 Morning"],
        morning: ["0 sent", "1 sent", "2 sent", "3 sent"],
      },
    ],
    [
      "×3 with followUpMinutes 0: none",
      {
        settings: { followUps: 3, followUpMinutes: 0 },
        steps: quarters("05:45", "10:45"),
        pushes: ["06:00 Morning"],
        morning: ["0 sent"],
      },
    ],
    [
      "×2, the first follow-up 31 minutes late: dropped, the second on time",
      {
        settings: { followUps: 2 },
        steps: [["06:00"], ["07:31"], ["08:00"]],
        pushes: ["06:00 Morning", "08:00 Morning"],
        morning: ["0 sent", "1 dropped", "2 sent"],
      },
    ],
    [
      "×2, the first follow-up 30 minutes late: sent, then the second",
      {
        settings: { followUps: 2 },
        steps: [["06:00"], ["07:30"], ["08:00"]],
        pushes: ["06:00 Morning", "07:30 Morning", "08:00 Morning"],
        morning: ["0 sent", "1 sent", "2 sent"],
      },
    ],
    [
      "×3 every 2 h: the third (14:00) not after the afternoon's reminder (13:00)",
      {
        settings: { followUps: 3, followUpMinutes: 120 },
        steps: quarters("05:45", "12:45"),
        pushes: ["06:00 Morning", "08:00 Morning", "10:00 Morning", "11:00 Afternoon"],
        morning: ["0 sent", "1 sent", "2 sent", "3 skipped"],
      },
    ],
    [
      "×3 every 2 h, nothing open at 13:00: the afternoon's reminder is not sent, the third follow-up is",
      {
        settings: { followUps: 3, followUpMinutes: 120 },
        steps: quarters("05:45", "12:45"),
        ticks: { "10:30": "afternoon" },
        pushes: ["06:00 Morning", "08:00 Morning", "10:00 Morning", "12:00 Morning"],
        morning: ["0 sent", "1 sent", "2 sent", "3 sent"],
      },
    ],
    [
      "a follow-up due with the afternoon's reminder (both 13:00): it waits, then is not sent",
      {
        settings: { times: { morning: "11:00" }, followUps: 1, followUpMinutes: 120 },
        steps: quarters("08:45", "11:45"),
        pushes: ["09:00 Morning", "11:00 Afternoon"],
        morning: ["0 sent", "1 skipped"],
      },
    ],
  ];
  test.each(cases)("%s", async (_name, c) => {
    const move = early();
    const { user, sub, ids } = await remindedUser({ push: true, email: false, ...c.settings });
    if (c.omega) {
      await addSupplementAs(api, user, {
        name: "Omega",
        quantityType: "Soft Gel",
        doseAmount: 1,
        schedule: { times: ["anytime"], days: DAILY },
      });
    }
    const tick = (slot: "morning" | "afternoon") => async () => {
      const path = `/api/intakes/2026-06-01/${ids[slot]}/${slot}`;
      expect((await as(user, path, { method: "PUT", body: { status: "taken" } })).status).toBe(200);
    };
    const steps = c.steps.map(([at]): [string, (() => Promise<void>)?] => {
      const slot = c.ticks?.[at];
      return [at, slot ? tick(slot) : undefined];
    });
    expect(await walk(move, sub, steps)).toEqual(c.pushes);
    const bodies = pushesTo(sub).map((p) => p.body);
    if (c.omega) expect(bodies).toEqual(c.omega);
    else expect(bodies).toEqual(c.pushes.map((p) => (p.endsWith("Morning") ? "Mo (1 soft gel)" : "Af (1 soft gel)")));
    expect((await outboxOf(user, "morning")).map((r) => `${r.followUp} ${r.status}`)).toEqual(c.morning);
  });
});

describe("two instances at once: each follow-up exactly once", () => {
  test("×3 on push and e-mail, every round run by both instances together", async () => {
    const move = early();
    const { user, sub } = await remindedUser({ push: true, email: true, followUps: 3, followUpMinutes: 30 });
    const both = () => Promise.all([round(1), round(2)]);
    const every30 = ["06:00 Morning", "06:30 Morning", "07:00 Morning", "07:30 Morning"];
    expect(await walk(move, sub, quarters("05:45", "08:30"), both)).toEqual(every30);
    expect(mails.filter((m) => m.to === user.email).map((m) => m.subject)).toEqual(
      Array(4).fill("Morning: 1 supplement"),
    );
    const rows = await api.ctx.database.db
      .select({ kind: reminderOutbox.kind, status: reminderOutbox.status })
      .from(reminderOutbox)
      .where(and(eq(reminderOutbox.userId, user.id), eq(reminderOutbox.slot, "morning")));
    expect(rows.length).toBe(8);
    expect(rows.every((r) => r.status === "sent")).toBe(true);
  });
});
