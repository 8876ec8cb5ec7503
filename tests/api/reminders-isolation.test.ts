/**
 * One user's bad row never stops anyone else's reminders (issue 45 §1): a zone Intl accepts
 * but Postgres does not, a zone neither knows (both written straight to the database, as a
 * row from before zones were checked), and a stock whose run-out is no date. Each is logged
 * with its id and skipped; a good user planned in the same round still gets the slot's
 * reminder and the refill reminder. Rounds are run by the test (REMINDER_TICK_MS=0).
 */
import { afterAll, afterEach, beforeAll, expect, spyOn, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { resetClock } from "../../api/lib/clock";
import { log } from "../../api/lib/log";
import type { Mail } from "../../api/lib/mail";
import { reminderRound, senderDeps } from "../../api/reminders/worker";
import { supplements, users } from "../../db/schema";
import { type PushService, startPushService } from "../fakes/push-service";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs, steppingClock } from "../support/tracking-api";
import { type ApiUser, confirmEmail, createUser } from "../support/users";

let api: TestApi;
let push: PushService;
const mails: Mail[] = [];

beforeAll(async () => {
  push = await startPushService();
  push.trustInProcess();
  api = await startApi({ PUSH_HOSTS: push.caEnv.PUSH_HOSTS });
});
afterAll(async () => {
  resetClock();
  await api?.close();
  await push?.close();
});
afterEach(() => resetClock());

const as = requestsAs(() => api);
const DAILY = [1, 2, 3, 4, 5, 6, 7];

async function ok(user: ApiUser, method: string, path: string, body: Record<string, unknown>) {
  const res = await as(user, path, { method, body });
  expect([path, res.status]).toEqual([path, method === "POST" ? 201 : 200]);
  return res;
}

/**
 * A user in Berlin with a morning supplement that runs out in 3 days, and an as-needed one
 * taken today (its run-out reads the user's today), push and e-mail on.
 */
async function remindedUser() {
  const user = await createUser(api);
  await confirmEmail(api, user); // e-mail reminders go to confirmed addresses only
  await ok(user, "PUT", "/api/profile", { timeZone: "Europe/Berlin" });
  const id = await addSupplementAs(api, user, {
    name: "Zinc",
    doseAmount: 1,
    schedule: { times: ["morning"], days: DAILY },
  });
  await ok(user, "PUT", `/api/supplements/${id}/stock`, { unitsPerPack: 30, count: 3 });
  const asNeeded = await addSupplementAs(api, user, { name: "Ibuprofen", schedule: null });
  await ok(user, "PUT", `/api/supplements/${asNeeded}/stock`, { unitsPerPack: 20, count: 20 });
  await ok(user, "PUT", `/api/intakes/2026-06-01/${asNeeded}/as-needed`, { status: "taken" });
  const sub = push.subscription();
  await ok(user, "POST", "/api/push/subscriptions", sub as unknown as Record<string, unknown>);
  await ok(user, "PUT", "/api/reminders", { push: true, email: true });
  return { user, sub, id };
}

const db = () => api.ctx.database.db;

/**
 * What makes a user's row bad, written as an old row would be: straight into the database; and
 * what becomes of that user: served all the same (the zone is computed by Intl, never by the
 * database), or logged with their id and skipped.
 */
const BAD: [string, (user: ApiUser, supplementId: number) => Promise<unknown>, "served" | "logged" | "no refill"][] = [
  [
    "a zone Intl accepts and Postgres does not (US/Pacific-New)",
    (u) => db().update(users).set({ timeZone: "US/Pacific-New" }).where(eq(users.id, u.id)),
    "served",
  ],
  [
    "a zone nobody knows",
    (u) => db().update(users).set({ timeZone: "Mars/Olympus_Mons" }).where(eq(users.id, u.id)),
    "logged",
  ],
  [
    "a run-out that is no date (a weekly 0.01 dose of a huge stock)",
    (_, id) =>
      db()
        .update(supplements)
        .set({
          doseAmount: 0.01,
          schedule: { times: ["morning"], days: [1] },
          stockCount: 99_999,
          stockRefills: Array.from({ length: 100 }, () => ({ at: "2026-06-01T05:00:00.000Z", units: 1_999_980 })),
        })
        .where(eq(supplements.id, id)),
    // The run-out is bounded (more than 10 years away: none), so nothing throws: that user
    // gets the morning reminder and no refill reminder for it.
    "no refill",
  ],
];

test.each(BAD)("%s: the others still get their reminders", async (_, spoil, fate) => {
  steppingClock("2026-06-01T05:00:00Z");
  const good = await remindedUser();
  const bad = await remindedUser();
  await spoil(bad.user, bad.id);
  const warn = spyOn(log, "warn");
  try {
    const move = steppingClock("2026-06-01T06:00:30Z"); // 08:00 in Berlin
    mails.length = 0;
    push.received.length = 0;
    await reminderRound({ ...senderDeps(api.ctx), mailer: async (m) => void mails.push(m) });
    move("2026-06-01T06:01:00Z");
    const subjects = mails.filter((m) => m.to === good.user.email).map((m) => m.subject);
    expect(subjects.sort()).toEqual(["Morning: 1 supplement", "Refill soon: Zinc"]);
    const pushes = push.received.filter((p) => good.sub.endpoint.endsWith(p.subscription));
    expect(pushes.map((p) => (p.payload as { title: string }).title).sort()).toEqual([
      "Morning: 1 supplement",
      "Refill soon: Zinc",
    ]);
    const logged = warn.mock.calls.filter(([, fields]) => JSON.stringify(fields ?? {}).includes(bad.user.id));
    const badMails = mails.filter((m) => m.to === bad.user.email).map((m) => m.subject);
    if (fate === "logged") {
      // Both planners log the user: the slots' (with the zone's user ids) and the refills'.
      const ids = logged.flatMap(([, fields]) => (fields as { userIds?: string[] }).userIds ?? []);
      expect(ids).toContain(bad.user.id);
      expect(logged.some(([, fields]) => (fields as { userId?: string }).userId === bad.user.id)).toBe(true);
    } else if (fate === "no refill") expect(badMails).toEqual(["Morning: 1 supplement"]);
    // In Los Angeles it is 23:00 the day before: only the refill reminder is due.
    else expect(badMails).toEqual(["Refill soon: Zinc"]);
  } finally {
    warn.mockRestore();
  }
  // Nothing of the bad row is left half-planned or claimed.
  const leased = await db().execute(sql`select count(*)::int as n from reminder_outbox where lease_until is not null`);
  expect(JSON.stringify(leased)).toContain('"n":0');
});
