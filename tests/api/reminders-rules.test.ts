/**
 * Reminder rules as tables (issue 45 §5), over HTTP on a migrated database of its own and the
 * moved clock (api/lib/clock.ts): the test reminder's slot and date in the user's zone (zones ×
 * clock times), follow-ups only on the channels still on (channels × follow-ups), the
 * unsubscribe link good for its own account only (users × tokens), and the test reminder's
 * 5-an-hour budget whatever the channels (kinds × budgets). Pushes go to the local push
 * service (tests/fakes/push-service.ts), e-mails to a recording mailer; rounds are run by the
 * test. Small on purpose: StrykerJS runs it once per mutant of the planner and the sender
 * (docs/mutation-testing.md). The whole flow is in tests/api/reminders.test.ts.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { freezeClock, resetClock } from "../../api/lib/clock";
import type { Mail } from "../../api/lib/mail";
import { unsubscribeUrl } from "../../api/reminders/unsubscribe";
import { reminderRound, senderDeps } from "../../api/reminders/worker";
import { reminderOutbox, users } from "../../db/schema";
import type { ReminderPayload, ReminderSettingsJson } from "../../src/lib/reminders";
import { type PushService, startPushService, type TestSubscription } from "../fakes/push-service";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs } from "../support/tracking-api";
import { type ApiUser, createUser } from "../support/users";

let api: TestApi;
let push: PushService;
const mails: Mail[] = [];

beforeAll(async () => {
  push = await startPushService();
  push.trustInProcess();
  api = await startApi({ PUSH_HOSTS: push.caEnv.PUSH_HOSTS }, { database: await migratedDatabase() });
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

const round = () =>
  reminderRound({
    ...senderDeps(api.ctx),
    mailer: async (mail: Mail) => {
      mails.push(mail);
    },
  });

const DAILY = [1, 2, 3, 4, 5, 6, 7];
const SLOT_NAMES = { morning: "Mo", afternoon: "Af", evening: "Ev", bedtime: "Be" } as const;

/**
 * A user in `zone` with one supplement per slot (named Mo, Af, Ev, Be), a device at the push
 * service, a confirmed address and the reminder `settings`; the clock must be set first.
 */
async function remindedUser(to: TestApi, zone: string, settings: Record<string, unknown>) {
  const as = requestsAs(() => to);
  const user = await createUser(to);
  await to.ctx.database.db.update(users).set({ emailVerified: true }).where(eq(users.id, user.id));
  expect((await as(user, "/api/profile", { method: "PUT", body: { timeZone: zone } })).status).toBe(200);
  for (const [slot, name] of Object.entries(SLOT_NAMES)) {
    await addSupplementAs(to, user, {
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
  const put = await as(user, "/api/reminders", { method: "PUT", body: settings });
  expect(put.status).toBe(200);
  return { user, sub };
}

const as = requestsAs(() => api);
const pushesTo = (sub: TestSubscription) =>
  push.received.filter((p) => sub.endpoint.endsWith(p.subscription)).map((p) => p.payload as ReminderPayload);
const mailsTo = (user: ApiUser) => mails.filter((m) => m.to === user.email);

describe("zones × clock times: the test reminder is for the slot whose time has come in the user's zone", () => {
  // [zone, instant, the slot due last there (default times 08:00, 13:00, 18:00, 22:00), the user's date]
  const cases: [string, string, keyof typeof SLOT_NAMES, string][] = [
    ["Europe/Berlin", "2026-01-15T12:30:00Z", "afternoon", "2026-01-15"], // 13:30 there; 12:30 UTC is morning
    ["Europe/Berlin", "2026-01-15T06:30:00Z", "morning", "2026-01-15"], // 07:30: before the first, Morning
    ["Europe/Berlin", "2026-07-15T16:00:00Z", "evening", "2026-07-15"], // 18:00 in summer time, to the minute
    ["Europe/Berlin", "2026-07-15T15:59:00Z", "afternoon", "2026-07-15"], // 17:59
    ["America/New_York", "2026-01-15T23:30:00Z", "evening", "2026-01-15"], // 18:30; 23:30 UTC is bedtime
    ["America/New_York", "2026-01-16T03:30:00Z", "bedtime", "2026-01-15"], // 22:30 the day before UTC's
    ["America/New_York", "2026-01-16T04:30:00Z", "bedtime", "2026-01-15"], // 23:30
    ["Asia/Kolkata", "2026-01-15T12:45:00Z", "evening", "2026-01-15"], // 18:15; 12:45 UTC is morning
    ["Pacific/Kiritimati", "2026-01-15T23:30:00Z", "afternoon", "2026-01-16"], // 13:30 the next day
    ["Pacific/Pago_Pago", "2026-01-15T09:30:00Z", "bedtime", "2026-01-14"], // 22:30 the day before
    ["Australia/Sydney", "2026-01-15T02:30:00Z", "afternoon", "2026-01-15"], // 13:30 (UTC+11)
  ];
  test.each(cases)("%s at %s: %s of %s", async (zone, at, slot, date) => {
    freezeClock(at);
    const { user, sub } = await remindedUser(api, zone, { push: true, email: false, followUpMinutes: 0 });
    const res = await as(user, "/api/reminders/test", { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ push: 1, email: false });
    const [payload, ...more] = pushesTo(sub);
    expect(more).toEqual([]);
    const title = `${slot[0]?.toUpperCase()}${slot.slice(1)}: 1 supplement`;
    expect([payload?.title, payload?.body, payload?.date, payload?.tag]).toEqual([
      title,
      `${SLOT_NAMES[slot]} (1 soft gel)`,
      date,
      `${slot}-${date.replaceAll("-", "")}`,
    ]);
  });

  test("the user's own times decide too: a 05:00 morning and a 09:00 afternoon in Tokyo", async () => {
    freezeClock("2026-01-15T00:30:00Z"); // 09:30 in Tokyo; 00:30 UTC is before every time
    const { user, sub } = await remindedUser(api, "Asia/Tokyo", {
      push: true,
      email: false,
      times: { morning: "05:00", afternoon: "09:00" },
    });
    expect((await as(user, "/api/reminders/test", { method: "POST" })).status).toBe(200);
    expect(pushesTo(sub).map((p) => [p.title, p.date])).toEqual([["Afternoon: 1 supplement", "2026-01-15"]]);
  });
});

describe("channels × follow-ups: a follow-up goes only on a channel still on", () => {
  type Off = "nothing" | "one-click unsubscribe" | "e-mail off in settings" | "push off in settings";
  // [what is turned off between the reminder and its follow-up, follow-up pushes, follow-up e-mails]
  const cases: [Off, number, number][] = [
    ["nothing", 1, 1],
    ["one-click unsubscribe", 1, 0],
    ["e-mail off in settings", 1, 0],
    ["push off in settings", 0, 1],
  ];
  test.each(cases)("%s: %d push, %d e-mail", async (off, pushes, emails) => {
    const move = freezeClock("2026-06-01T05:00:00Z");
    const { user, sub } = await remindedUser(api, "Europe/Berlin", {
      push: true,
      email: true,
      followUpMinutes: 30,
    });
    move("2026-06-01T06:00:00Z"); // 08:00 in Berlin: the morning reminder on both channels
    await round();
    expect([pushesTo(sub).length, mailsTo(user).length]).toEqual([1, 1]);
    push.received.length = 0;
    mails.length = 0;
    move("2026-06-01T06:10:00Z");
    if (off === "one-click unsubscribe") {
      const link = new URL(unsubscribeUrl(api.ctx.config, user.id));
      const res = await api.fetch(link.pathname + link.search, {
        method: "POST",
        origin: "https://mail.example",
        body: "List-Unsubscribe=One-Click",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(res.status).toBe(200);
    } else if (off === "e-mail off in settings") {
      expect((await as(user, "/api/reminders", { method: "PUT", body: { email: false } })).status).toBe(200);
    } else if (off === "push off in settings") {
      expect((await as(user, "/api/reminders", { method: "PUT", body: { push: false } })).status).toBe(200);
    }
    for (const at of ["2026-06-01T06:30:00Z", "2026-06-01T07:00:00Z", "2026-06-01T08:00:00Z"]) {
      move(at);
      await round();
    }
    expect([pushesTo(sub).length, mailsTo(user).length]).toEqual([pushes, emails]);
    const followUps = await api.ctx.database.db
      .select({ channel: reminderOutbox.channel })
      .from(reminderOutbox)
      .where(eq(reminderOutbox.userId, user.id));
    const planned = followUps.map((r) => r.channel).sort();
    // Two reminders, plus one follow-up row per channel still on.
    expect(planned.length).toBe(2 + pushes + emails);
  });
});

describe("users × tokens: an unsubscribe link turns off its own account's e-mail only", () => {
  test("each user's token with each user's id", async () => {
    freezeClock("2026-06-01T05:00:00Z");
    const people = [
      await remindedUser(api, "Europe/Berlin", { push: true, email: true }),
      await remindedUser(api, "Europe/Berlin", { push: true, email: true }),
      await remindedUser(api, "Europe/Berlin", { push: true, email: true }),
    ].map((p) => p.user);
    const tokenOf = (user: ApiUser) => new URL(unsubscribeUrl(api.ctx.config, user.id)).searchParams.get("t") ?? "";
    const link = (id: string, token: string) =>
      `/api/reminders/unsubscribe?u=${encodeURIComponent(id)}&t=${encodeURIComponent(token)}`;
    const oneClick = (path: string) =>
      api.fetch(path, {
        method: "POST",
        origin: "https://mail.example",
        body: "List-Unsubscribe=One-Click",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
    const emailOn = async (user: ApiUser) =>
      ((await (await as(user, "/api/reminders")).json()) as ReminderSettingsJson).email;
    const [a, b, c] = people as [ApiUser, ApiUser, ApiUser];
    // [link's user, token's user, answer]; every other pair first, then each user's own.
    const cases: [ApiUser, ApiUser | string, number][] = [
      [b, a, 400],
      [c, a, 400],
      [a, b, 400],
      [c, b, 400],
      [a, c, 400],
      [b, c, 400],
      [a, "", 400],
      [a, `${"A".repeat(42)}`, 400],
      [a, a, 200],
    ];
    for (const [owner, from, status] of cases) {
      const token = typeof from === "string" ? from : tokenOf(from);
      const what = `${people.indexOf(owner)} with ${typeof from === "string" ? JSON.stringify(from) : people.indexOf(from)}`;
      const page = await api.fetch(link(owner.id, token), { origin: null });
      expect([what, "GET", page.status]).toEqual([what, "GET", status]);
      const res = await oneClick(link(owner.id, token));
      expect([what, "POST", res.status]).toEqual([what, "POST", status]);
      expect([what, await Promise.all(people.map(emailOn))]).toEqual([
        what,
        people.map((p) => !(status === 200 && p === owner)),
      ]);
    }
    // Another account's id with a token that is not anyone's: refused; no account is named by a bare token.
    expect((await oneClick(`/api/reminders/unsubscribe?t=${encodeURIComponent(tokenOf(b))}`)).status).toBe(400);
    expect(await Promise.all(people.map(emailOn))).toEqual([false, true, true]);
  });
});

describe("kinds × budgets: 5 test reminders an hour per account, whatever the channels", () => {
  let limited: TestApi;
  beforeAll(async () => {
    limited = await startApi(
      { RATE_LIMIT: "on", PUSH_HOSTS: push.caEnv.PUSH_HOSTS },
      { database: await migratedDatabase() },
    );
  });
  afterAll(async () => {
    await limited?.close();
  });

  // Sign-ups are limited too (5 a minute from one address): four in all here.
  const kinds: [string, Record<string, unknown>, boolean][] = [
    ["push only", { push: true, email: false }, true],
    ["e-mail only", { push: false, email: true }, false],
    ["push and e-mail", { push: true, email: true }, false],
  ];
  test.each(kinds)("%s: five answered, the sixth 429", async (_kind, settings, another) => {
    freezeClock("2026-06-01T06:10:00Z");
    const call = (user: ApiUser) =>
      limited.fetch("/api/reminders/test", { method: "POST", headers: { cookie: user.cookie } });
    const { user } = await remindedUser(limited, "Europe/Berlin", settings);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(user)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    if (!another) return;
    // Another account has its own five.
    const { user: other } = await remindedUser(limited, "Europe/Berlin", settings);
    expect((await call(other)).status).toBe(200);
  });
});
