/**
 * Reminders (issue 39) on a moved clock (api/lib/clock.ts): settings and their 400s, push keys
 * and subscriptions, due times in far-apart zones and on 2026's clock-change days, nothing
 * sent when the slot is done or empty, one follow-up, a zone change, late reminders dropped,
 * retries, 410, the test reminder and one-click unsubscribe. Pushes go to a local push
 * service that checks VAPID and decrypts them (tests/fakes/push-service.ts); e-mails to a
 * recording mailer. Rounds are run by the test (REMINDER_TICK_MS=0).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { freezeClock, resetClock } from "../../api/lib/clock";
import type { Mail } from "../../api/lib/mail";
import { SEND_CONCURRENCY } from "../../api/reminders/sender";
import { reminderRound, senderDeps } from "../../api/reminders/worker";
import { appKeys, pushSubscriptions, reminderOutbox, reminderSettings } from "../../db/schema";
import type { ReminderPayload, ReminderSettingsJson } from "../../src/lib/reminders";
import { type PushService, startPushService, type TestSubscription } from "../fakes/push-service";
import { seedReminderUsers } from "../support/reminder-users";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, confirmEmail, createUser } from "../support/users";

let api: TestApi;
let push: PushService;
const mails: Mail[] = [];

beforeAll(async () => {
  push = await startPushService();
  push.trustInProcess();
  api = await startApi(push.caEnv);
});
afterAll(async () => {
  resetClock();
  await api?.close();
  await push?.close();
});
beforeEach(() => {
  push.received.length = 0;
  mails.length = 0;
});
afterEach(() => resetClock());

const deps = () => ({
  ...senderDeps(api.ctx),
  mailer: async (mail: Mail) => {
    mails.push(mail);
  },
});
const round = () => reminderRound(deps());

type Init = Parameters<TestApi["fetch"]>[1];
const as = (user: ApiUser, path: string, init: Init = {}) =>
  api.fetch(path, { ...init, headers: { ...(init?.headers as Record<string, string>), cookie: user.cookie } });

const DAILY = [1, 2, 3, 4, 5, 6, 7];

async function addSupplement(user: ApiUser, body: Record<string, unknown>): Promise<number> {
  const res = await as(user, "/api/supplements", {
    method: "POST",
    body: { name: "X", quantityType: "Soft Gel", frequency: "daily", doseAmount: 1, ...body },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

async function put(user: ApiUser, body: unknown) {
  const res = await as(user, "/api/reminders", { method: "PUT", body: body as Record<string, unknown> });
  return { status: res.status, body: (await res.json()) as ReminderSettingsJson & { message?: string } };
}

async function subscribe(user: ApiUser, sub: TestSubscription = push.subscription()) {
  const res = await as(user, "/api/push/subscriptions", {
    method: "POST",
    body: sub as unknown as Record<string, unknown>,
    headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/140.0 Safari/537.36" },
  });
  expect(res.status).toBe(201);
  return { sub, id: ((await res.json()) as { id: string }).id };
}

/** A user in `zone` with Vitamin D3 and Omega-3 in the morning, reminders on both channels. */
async function morningUser(zone: string, settings: Record<string, unknown> = {}) {
  const user = await createUser(api);
  expect((await as(user, "/api/profile", { method: "PUT", body: { timeZone: zone } })).status).toBe(200);
  const d3 = await addSupplement(user, { name: "Vitamin D3", schedule: { times: ["morning"], days: DAILY } });
  const omega = await addSupplement(user, { name: "Omega-3", schedule: { times: ["anytime"], days: DAILY } });
  const { sub } = await subscribe(user);
  await confirmEmail(api, user);
  expect((await put(user, { push: true, email: true, ...settings })).status).toBe(200);
  return { user, sub, d3, omega };
}

const pushesTo = (sub: TestSubscription) =>
  push.received.filter((p) => sub.endpoint.endsWith(p.subscription)).map((p) => p.payload as ReminderPayload);
const mailsTo = (user: ApiUser) => mails.filter((m) => m.to === user.email);

async function outbox(user: ApiUser) {
  return api.ctx.database.db
    .select({
      slot: reminderOutbox.slot,
      kind: reminderOutbox.kind,
      channel: reminderOutbox.channel,
      status: reminderOutbox.status,
      localDate: reminderOutbox.localDate,
    })
    .from(reminderOutbox)
    .where(eq(reminderOutbox.userId, user.id));
}

describe("settings", () => {
  test("defaults, then any subset", async () => {
    const user = await createUser(api);
    const res = await as(user, "/api/reminders");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      times: { morning: "08:00", afternoon: "13:00", evening: "18:00", bedtime: "22:00" },
      email: false,
      push: false,
      followUpMinutes: 60,
      followUps: 1,
      refillLeadDays: 7,
      devices: [],
      emailConfirmed: false,
      confirmationSentTo: null,
    });
    const changed = await put(user, { times: { evening: "19:30" }, followUpMinutes: 30, refillLeadDays: 14 });
    expect(changed.status).toBe(200);
    expect(changed.body.times).toEqual({ morning: "08:00", afternoon: "13:00", evening: "19:30", bedtime: "22:00" });
    expect(changed.body.followUpMinutes).toBe(30);
    expect(changed.body.refillLeadDays).toBe(14);
    expect((await put(user, { refillLeadDays: 0 })).body.refillLeadDays).toBe(0);
    expect((await put(user, { email: true })).body).toMatchObject({ email: true, push: false, followUpMinutes: 30 });
  });

  test.each([
    [{ times: { morning: "25:00" } }, "times.morning", "Times must be HH:MM"],
    [{ times: { bedtime: "8:00" } }, "times.bedtime", "Times must be HH:MM"],
    [{ times: { noon: "12:00" } }, "times", "Times are morning, afternoon, evening and bedtime"],
    [{ times: "08:00" }, "times", "Times must be HH:MM"],
    [{ followUpMinutes: 45 }, "followUpMinutes", "Follow-up must be 0, 30, 60 or 120 minutes"],
    [{ followUpMinutes: "60" }, "followUpMinutes", "Follow-up must be"],
    [{ refillLeadDays: 5 }, "refillLeadDays", "Refill reminder must be 0 (off), 3, 7 or 14 days"],
    [{ refillLeadDays: null }, "refillLeadDays", "Refill reminder must be"],
    [{ email: "yes" }, "email", "E-mail must be true or false"],
    [{ push: 1 }, "push", "Push must be true or false"],
    [{ sms: true }, "", "Unknown setting"],
  ])("PUT %j: 400 naming %s", async (body, field, message) => {
    const user = await createUser(api);
    const res = await put(user, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(message);
    const errors = (res.body as unknown as { errors?: Record<string, string[]> }).errors ?? {};
    if (field) expect(Object.keys(errors)).toContain(field);
    const rows = await api.ctx.database.db.select().from(reminderSettings).where(eq(reminderSettings.userId, user.id));
    expect(rows).toEqual([]);
  });

  test("signed out: 401", async () => {
    expect((await api.fetch("/api/reminders")).status).toBe(401);
    expect((await api.fetch("/api/reminders", { method: "PUT", body: { email: true } })).status).toBe(401);
    expect((await api.fetch("/api/reminders/test", { method: "POST" })).status).toBe(401);
  });
});

describe("push key and subscriptions", () => {
  test("the embedded default makes one VAPID pair and keeps it", async () => {
    const a = (await (await api.fetch("/api/push/key")).json()) as { publicKey: string };
    expect(a.publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    const b = (await (await api.fetch("/api/push/key")).json()) as { publicKey: string };
    expect(b.publicKey).toBe(a.publicKey);
    const rows = await api.ctx.database.db.select().from(appKeys);
    expect(rows.map((r) => r.name)).toEqual(["vapid"]);
  });

  test("the same endpoint again updates, never duplicates; only one's own can be removed", async () => {
    const user = await createUser(api);
    const other = await createUser(api);
    const sub = push.subscription();
    const first = await subscribe(user, sub);
    const again = await subscribe(user, { ...sub, keys: push.subscription().keys });
    expect(again.id).toBe(first.id);
    const rows = await api.ctx.database.db
      .select()
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.endpoint, sub.endpoint));
    expect(rows.length).toBe(1);
    const devices = ((await (await as(user, "/api/reminders")).json()) as ReminderSettingsJson).devices;
    expect(devices).toEqual([
      { id: first.id, label: "Chrome on Linux", createdAt: expect.any(String), lastUsedAt: null },
    ]);
    expect((await as(other, `/api/push/subscriptions/${first.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await as(user, `/api/push/subscriptions/${first.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await as(user, `/api/push/subscriptions/${first.id}`, { method: "DELETE" })).status).toBe(404);
  });

  test("a user keeps at most 20 devices: a newer one replaces the oldest", async () => {
    const user = await createUser(api);
    const ids: string[] = [];
    for (let i = 0; i < 22; i++) ids.push((await subscribe(user)).id);
    const devices = ((await (await as(user, "/api/reminders")).json()) as ReminderSettingsJson).devices;
    expect(devices.length).toBe(20);
    expect(devices.map((d) => d.id)).toContain(ids[21] as string);
    expect(devices.map((d) => d.id)).not.toContain(ids[0] as string);
  });

  test.each([
    [{ endpoint: "http://push.example/x", keys: { p256dh: "A".repeat(87), auth: "B".repeat(22) } }],
    [{ endpoint: "https://push.example/x", keys: { p256dh: "short", auth: "B".repeat(22) } }],
    [{ endpoint: "https://push.example/x" }],
    [{ keys: { p256dh: "A".repeat(87), auth: "B".repeat(22) } }],
  ])("a malformed subscription is a 400: %j", async (body) => {
    const user = await createUser(api);
    const res = await as(user, "/api/push/subscriptions", { method: "POST", body });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain("push subscription");
  });
});

describe("due in the user's zone", () => {
  test("08:00 in Berlin in winter: one push and one e-mail at 07:00 UTC, with the issue's words", async () => {
    const move = freezeClock("2026-01-15T06:00:00Z");
    const { user, sub } = await morningUser("Europe/Berlin");
    move("2026-01-15T06:59:00Z");
    await round();
    expect(pushesTo(sub)).toEqual([]);
    move("2026-01-15T07:00:00Z");
    await round();
    await round();
    const [payload, ...more] = pushesTo(sub);
    expect(more).toEqual([]);
    expect(payload).toMatchObject({
      title: "Morning: 2 supplements",
      body: "Vitamin D3 (1 soft gel), Omega-3 (1 soft gel)",
      url: "/dashboard#today",
      date: "2026-01-15",
    });
    const received = push.received.find((p) => sub.endpoint.endsWith(p.subscription));
    expect(received).toMatchObject({ urgency: "high", topic: "morning-20260115", ttl: "1800" });
    const key = (await (await api.fetch("/api/push/key")).json()) as { publicKey: string };
    expect(received?.vapidKey).toBe(key.publicKey);
    const [mail, ...moreMail] = mailsTo(user);
    expect(moreMail).toEqual([]);
    expect(mail?.subject).toBe("Morning: 2 supplements");
    expect(mail?.text).toContain("Vitamin D3 (1 soft gel), Omega-3 (1 soft gel)");
    expect(mail?.text).not.toContain("unsubscribe?");
    expect(mail?.headers?.["List-Unsubscribe"]).toMatch(/^<http.*\/api\/reminders\/unsubscribe\?u=.*&t=[\w-]{43}>$/);
    expect(mail?.headers?.["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect(push.refused).toEqual([]);
  });

  test.each([
    ["Europe/Berlin", "08:00", "2026-07-15T06:00:00Z", "2026-07-15"],
    ["America/New_York", "08:00", "2026-01-15T13:00:00Z", "2026-01-15"],
    ["America/New_York", "08:00", "2026-07-15T12:00:00Z", "2026-07-15"],
    ["Asia/Kolkata", "08:00", "2026-05-01T02:30:00Z", "2026-05-01"],
    ["Pacific/Kiritimati", "08:00", "2026-04-30T18:00:00Z", "2026-05-01"],
    ["Pacific/Pago_Pago", "08:00", "2026-05-01T19:00:00Z", "2026-05-01"],
    // 2026's clock changes: a time in the spring-forward gap fires at the first minute after it
    ["Europe/Berlin", "02:30", "2026-03-29T01:00:00Z", "2026-03-29"],
    ["America/New_York", "02:30", "2026-03-08T07:00:00Z", "2026-03-08"],
    // ...and one that happens twice on the fall-back day fires at the first, once
    ["Europe/Berlin", "02:30", "2026-10-25T00:30:00Z", "2026-10-25"],
    ["America/New_York", "01:30", "2026-11-01T05:30:00Z", "2026-11-01"],
    ["Europe/Berlin", "08:00", "2026-10-25T07:00:00Z", "2026-10-25"],
  ])("%s %s: due at %s (%s), not a minute before, and once", async (zone, time, dueAt, date) => {
    const due = new Date(dueAt).getTime();
    const move = freezeClock(due - 3 * 3_600_000);
    const { sub } = await morningUser(zone, { times: { morning: time }, followUpMinutes: 0 });
    move(due - 60_000);
    await round();
    expect(pushesTo(sub)).toEqual([]);
    move(due);
    await round();
    expect(pushesTo(sub).map((p) => p.date)).toEqual([date]);
    // The rest of the hour (the fall-back day's second 02:30 included): nothing more.
    for (const minutes of [10, 29, 60, 61, 90]) {
      move(due + minutes * 60_000);
      await round();
    }
    expect(pushesTo(sub).filter((p) => p.title.startsWith("Morning")).length).toBe(1);
  });
});

describe("what is sent", () => {
  test("not when every dose of the slot is taken or skipped, nor on a day with nothing due", async () => {
    const move = freezeClock("2026-06-01T05:00:00Z"); // Monday, 07:00 in Berlin
    const { user, sub, d3, omega } = await morningUser("Europe/Berlin", { followUpMinutes: 0 });
    expect(
      (await as(user, `/api/intakes/2026-06-01/${d3}/morning`, { method: "PUT", body: { status: "taken" } })).status,
    ).toBe(200);
    expect(
      (await as(user, `/api/intakes/2026-06-01/${omega}/anytime`, { method: "PUT", body: { status: "skipped" } }))
        .status,
    ).toBe(200);
    move("2026-06-01T06:00:00Z");
    await round();
    expect(pushesTo(sub)).toEqual([]);
    expect(mailsTo(user)).toEqual([]);
    expect((await outbox(user)).map((r) => r.status).sort()).toEqual(["skipped", "skipped"]);
    // A Tuesday-only supplement and nothing else: Monday's afternoon reminder is not sent.
    await addSupplement(user, { name: "Iron", schedule: { times: ["afternoon"], days: [2] } });
    move("2026-06-01T11:00:00Z");
    await round();
    expect(pushesTo(sub)).toEqual([]);
    move("2026-06-02T11:00:00Z");
    await round();
    expect(pushesTo(sub).map((p) => p.title)).toEqual(["Afternoon: 1 supplement"]);
  });

  test("one follow-up, listing only what is still open", async () => {
    const move = freezeClock("2026-06-01T05:00:00Z");
    const { user, sub, d3 } = await morningUser("Europe/Berlin");
    move("2026-06-01T06:00:00Z");
    await round();
    expect(pushesTo(sub).map((p) => p.title)).toEqual(["Morning: 2 supplements"]);
    expect(
      (await as(user, `/api/intakes/2026-06-01/${d3}/morning`, { method: "PUT", body: { status: "taken" } })).status,
    ).toBe(200);
    move("2026-06-01T06:59:00Z");
    await round();
    expect(pushesTo(sub).length).toBe(1);
    move("2026-06-01T07:00:00Z");
    await round();
    const follow = pushesTo(sub)[1];
    expect(follow).toMatchObject({ title: "Morning: 1 supplement", body: "Omega-3 (1 soft gel)" });
    expect(follow?.doses).toEqual([{ supplementId: expect.any(Number), time: "anytime" }]);
    expect(mailsTo(user).map((m) => m.subject)).toEqual(["Morning: 2 supplements", "Morning: 1 supplement"]);
    for (const at of ["2026-06-01T07:30:00Z", "2026-06-01T08:00:00Z", "2026-06-01T09:00:00Z"]) {
      move(at);
      await round();
    }
    expect(pushesTo(sub).length).toBe(2);
  });

  test("a change of zone applies from the next occurrence not yet sent", async () => {
    const move = freezeClock("2026-06-01T05:00:00Z");
    const { user, sub } = await morningUser("Europe/Berlin", { followUpMinutes: 0 });
    move("2026-06-01T06:00:00Z"); // 08:00 in Berlin
    await round();
    expect(pushesTo(sub).map((p) => p.date)).toEqual(["2026-06-01"]);
    // To New York, where it is 02:00 on the same date: 08:00 there (12:00 UTC) is not sent again.
    expect((await as(user, "/api/profile", { method: "PUT", body: { timeZone: "America/New_York" } })).status).toBe(
      200,
    );
    move("2026-06-01T12:00:00Z");
    await round();
    expect(pushesTo(sub).map((p) => p.date)).toEqual(["2026-06-01"]);
    move("2026-06-02T06:00:00Z"); // Berlin's 08:00: no longer the user's
    await round();
    expect(pushesTo(sub).length).toBe(1);
    move("2026-06-02T12:00:00Z"); // New York's
    await round();
    expect(pushesTo(sub).map((p) => p.date)).toEqual(["2026-06-01", "2026-06-02"]);
  });

  test("more than 30 minutes late (every instance was down) is dropped and logged, never sent", async () => {
    const move = freezeClock("2026-06-01T05:00:00Z");
    const { user, sub } = await morningUser("Europe/Berlin");
    move("2026-06-01T06:31:00Z"); // the first round after 08:00 comes at 08:31
    await round();
    expect(pushesTo(sub)).toEqual([]);
    expect(mailsTo(user)).toEqual([]);
    expect((await outbox(user)).map((r) => `${r.kind} ${r.status}`).sort()).toEqual([
      "reminder dropped",
      "reminder dropped",
    ]);
    // Planned on time, but not sent until 31 minutes later: dropped at the claim.
    const other = await morningUser("Europe/Berlin");
    move("2026-06-02T06:00:00Z");
    const { planReminders } = await import("../../api/reminders/outbox");
    await planReminders(api.ctx.database.db, new Date("2026-06-02T06:00:00Z"));
    move("2026-06-02T06:31:00Z");
    await round();
    expect(pushesTo(other.sub).filter((p) => p.date === "2026-06-02")).toEqual([]);
    const rows = (await outbox(other.user)).filter((r) => r.localDate === "2026-06-02");
    expect(rows.map((r) => r.status)).toEqual(["dropped", "dropped"]);
  });
});

describe("delivery", () => {
  test("failures are retried with back-off; a retry is one more push, never a second reminder", async () => {
    const move = freezeClock("2026-06-01T05:00:00Z");
    const { sub } = await morningUser("Europe/Berlin", { email: false, followUpMinutes: 0 });
    push.failNext(sub, 2);
    move("2026-06-01T06:00:00Z");
    await round();
    move("2026-06-01T06:00:20Z"); // before the first back-off (30 s) ends
    await round();
    expect(pushesTo(sub)).toEqual([]);
    move("2026-06-01T06:00:30Z");
    await round();
    expect(pushesTo(sub)).toEqual([]);
    move("2026-06-01T06:01:30Z"); // 60 s after the second failure
    await round();
    expect(pushesTo(sub).length).toBe(1);
    move("2026-06-01T06:10:00Z");
    await round();
    expect(pushesTo(sub).length).toBe(1);
  });

  test("a sender that dies after claiming: its lease runs out and another sends the reminder, once", async () => {
    const move = freezeClock("2026-06-01T05:00:00Z");
    const { sub } = await morningUser("Europe/Berlin", { email: false, followUpMinutes: 0 });
    move("2026-06-01T06:00:00Z");
    const { claimReminders, planReminders } = await import("../../api/reminders/outbox");
    const db = api.ctx.database.db;
    await planReminders(db, new Date("2026-06-01T06:00:00Z"));
    const crashed = await claimReminders(db, new Date("2026-06-01T06:00:00Z")); // ...and never marks
    expect(crashed.rows.length).toBeGreaterThan(0);
    move("2026-06-01T06:00:59Z"); // the lease (60 s) still holds: nobody else takes it
    await round();
    expect(pushesTo(sub)).toEqual([]);
    move("2026-06-01T06:01:00Z");
    await round();
    expect(pushesTo(sub).length).toBe(1);
    move("2026-06-01T06:05:00Z");
    await round();
    expect(pushesTo(sub).length).toBe(1);
  });

  test("after 20 minutes of failures the reminder is given up", async () => {
    const move = freezeClock("2026-06-01T05:00:00Z");
    const { user, sub } = await morningUser("Europe/Berlin", { email: false, followUpMinutes: 0 });
    push.failNext(sub, 1000);
    for (let minute = 0; minute <= 40; minute++) {
      move(Date.parse("2026-06-01T06:00:00Z") + minute * 60_000);
      await round();
    }
    push.failNext(sub, 0);
    expect(pushesTo(sub)).toEqual([]);
    expect((await outbox(user)).map((r) => r.status)).toEqual(["failed"]);
  });

  test("a crowd due at once: a few pushes in flight, over kept connections, under one VAPID signature", async () => {
    const move = freezeClock("2026-06-01T07:30:00Z");
    const crowd = await seedReminderUsers(api.ctx.database.db, {
      count: SEND_CONCURRENCY * 3,
      zones: ["UTC"],
      since: new Date("2026-06-01T07:00:00Z"),
      validFrom: "2026-05-30",
      subscription: () => push.subscription(),
      email: () => false,
      followUpMinutes: () => 0,
    });
    const connections = push.stats.connections;
    push.stats.maxInFlight = 0;
    move("2026-06-01T08:00:00Z");
    await round();
    const mine = crowd.flatMap((u) => push.received.filter((p) => u.subscription.endpoint.endsWith(p.subscription)));
    expect(mine.length).toBe(crowd.length);
    expect(new Set(mine.map((p) => p.jwt)).size).toBe(1);
    expect(push.stats.maxInFlight).toBeLessThanOrEqual(SEND_CONCURRENCY);
    expect(push.stats.connections - connections).toBeLessThanOrEqual(SEND_CONCURRENCY);
  });

  test("404 or 410 from the push service deletes that subscription, and the others still get it", async () => {
    const move = freezeClock("2026-06-01T05:00:00Z");
    const { user, sub } = await morningUser("Europe/Berlin", { email: false });
    const second = await subscribe(user);
    push.gone(sub);
    move("2026-06-01T06:00:00Z");
    await round();
    expect(pushesTo(second.sub).length).toBe(1);
    const left = await api.ctx.database.db
      .select()
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.userId, user.id));
    expect(left.map((r) => r.id)).toEqual([second.id]);
    expect(left[0]?.lastUsedAt?.toISOString()).toBe("2026-06-01T06:00:00.000Z");
  });
});

describe("test reminder and unsubscribe", () => {
  test("a test reminder goes now to every device and the address", async () => {
    const move = freezeClock("2026-06-01T05:00:00Z");
    const { user, sub } = await morningUser("Europe/Berlin");
    move("2026-06-01T06:10:00Z");
    const res = await as(user, "/api/reminders/test", { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ push: 1, email: true });
    expect(pushesTo(sub).map((p) => p.title)).toEqual(["Morning: 2 supplements"]);
  });

  test("a test reminder needs a channel", async () => {
    const user = await createUser(api);
    const res = await as(user, "/api/reminders/test", { method: "POST" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe("Turn on push notifications or e-mail first");
  });

  test("GET of the link only shows a button; one POST without sign-in turns e-mail off, and nothing else", async () => {
    freezeClock("2026-06-01T05:00:00Z");
    const { user } = await morningUser("Europe/Berlin");
    freezeClock("2026-06-01T06:00:00Z");
    await round();
    const link = /^<(.*)>$/.exec(mailsTo(user)[0]?.headers?.["List-Unsubscribe"] ?? "")?.[1] ?? "";
    const path = new URL(link).pathname + new URL(link).search;
    const page = await api.fetch(path, { origin: null });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Turn off e-mail reminders</button>");
    expect(((await (await as(user, "/api/reminders")).json()) as ReminderSettingsJson).email).toBe(true);
    const oneClick = (to: string) =>
      api.fetch(to, {
        method: "POST",
        origin: "https://mail.example",
        body: "List-Unsubscribe=One-Click",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
    expect((await oneClick(path.replace(/t=[\w-]+/, `t=${"A".repeat(43)}`))).status).toBe(400);
    expect((await oneClick(path)).status).toBe(200);
    const after = (await (await as(user, "/api/reminders")).json()) as ReminderSettingsJson;
    expect(after).toMatchObject({ email: false, push: true });
  });
});

describe("rate limit", () => {
  test("5 test reminders an hour", async () => {
    const limited = await startApi({ RATE_LIMIT: "on" });
    try {
      const user = await createUser(limited);
      await confirmEmail(limited, user);
      const call = (path: string, init: Init = {}) =>
        limited.fetch(path, { ...init, headers: { cookie: user.cookie } });
      expect((await call("/api/reminders", { method: "PUT", body: { email: true } })).status).toBe(200);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await call("/api/reminders/test", { method: "POST" })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe("the account", () => {
  test("deletion deletes subscriptions and rows; the export has settings and device labels, not endpoints or keys", async () => {
    const move = freezeClock("2026-06-01T05:00:00Z");
    const { user, sub } = await morningUser("Europe/Berlin");
    move("2026-06-01T06:00:00Z");
    await round();
    const exported = await as(user, "/api/account/export?format=json");
    expect(exported.status).toBe(200);
    const text = await exported.text();
    const doc = JSON.parse(text) as { reminders?: { settings: unknown; devices: { label: string }[] } };
    expect(doc.reminders?.settings).toMatchObject({ email: true, push: true, followUpMinutes: 60 });
    expect(doc.reminders?.devices.map((d) => d.label)).toEqual(["Chrome on Linux"]);
    expect(text).not.toContain(sub.endpoint);
    expect(text).not.toContain(sub.keys.p256dh);
    expect(text).not.toContain(sub.keys.auth);
    const del = await as(user, "/api/account", {
      method: "DELETE",
      body: { password: user.password, confirm: "DELETE" },
    });
    expect(del.status).toBe(200);
    const db = api.ctx.database.db;
    expect(await db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, user.id))).toEqual([]);
    expect(await db.select().from(reminderOutbox).where(eq(reminderOutbox.userId, user.id))).toEqual([]);
    expect(
      await db
        .select()
        .from(reminderSettings)
        .where(and(eq(reminderSettings.userId, user.id))),
    ).toEqual([]);
  });
});
