/**
 * The refill reminder (issue 40) through the reminder outbox on a moved clock: sent once per
 * run-out (two planners at once included), not again the next day nor for a recount to the
 * same run-out date, again after a refill and a new run-out, and after a recount to a new one; never with the lead time off or no channel on, while
 * the list's `refillDue` (Today's notice) follows the lead time whatever the channels.
 * E-mails go to a recording mailer; rounds are run by the test (REMINDER_TICK_MS=0).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { resetClock } from "../../api/lib/clock";
import type { Mail } from "../../api/lib/mail";
import { reminderRound, senderDeps } from "../../api/reminders/worker";
import { reminderOutbox } from "../../db/schema";
import type { Supplement } from "../../src/lib/types";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs, steppingClock } from "../support/tracking-api";
import { type ApiUser, confirmEmail, createUser } from "../support/users";

let api: TestApi;
const mails: Mail[] = [];

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  resetClock();
  await api?.close();
});
afterEach(() => resetClock());

const as = requestsAs(() => api);
const round = () =>
  reminderRound({
    ...senderDeps(api.ctx),
    mailer: async (mail: Mail) => {
      mails.push(mail);
    },
  });

async function send(user: ApiUser, method: string, path: string, body?: Record<string, unknown>) {
  const res = await as(user, path, { method, body });
  expect([method, path, res.status]).toEqual([method, path, method === "POST" ? 201 : 200]);
}

async function refillDue(user: ApiUser, id: number) {
  const list = (await (await as(user, "/api/supplements")).json()) as Supplement[];
  return list.find((s) => s.id === id)?.stock?.refillDue;
}

/** Mails sent by the next round (or `rounds`, run at once). */
async function mailsOf(rounds = 1): Promise<Mail[]> {
  mails.length = 0;
  await Promise.all(Array.from({ length: rounds }, round));
  return [...mails];
}

describe("the refill reminder", () => {
  test("once per run-out; again after a refill and a new run-out, and after a recount; never with the lead time off", async () => {
    const move = steppingClock("2026-11-20T09:00:00Z");
    const user = await createUser(api);
    await confirmEmail(api, user);
    await send(user, "PUT", "/api/reminders", { email: true });
    const x = await addSupplementAs(api, user, {
      name: "Magnesium",
      doseAmount: 1,
      schedule: { times: ["anytime"], days: [1, 2, 3, 4, 5, 6, 7] },
    });
    await send(user, "PUT", `/api/supplements/${x}/stock`, { unitsPerPack: 10, count: 20 });

    const steps: [string, () => Promise<unknown>, number, string[], boolean][] = [
      // [what, change, rounds at once, subjects and bodies mailed, refillDue on the list]
      ["runs out in 20 days (lead 7)", async () => {}, 1, [], false],
      [
        "a recount: runs out in 5 days",
        () => send(user, "PUT", `/api/supplements/${x}/stock`, { count: 5 }),
        2,
        ["Refill soon: Magnesium | 5 capsules left · runs out around 25 November"],
        true,
      ],
      ["the next round", async () => {}, 1, [], true],
      ["the next day", async () => move("2026-11-21T09:00:00Z"), 1, [], true],
      [
        "+1 pack: runs out in 15 days",
        () => send(user, "POST", `/api/supplements/${x}/refills`, { packs: 1 }),
        1,
        [],
        false,
      ],
      [
        "eight days' doses ticked: a new run-out, 7 days away",
        async () => {
          move("2026-11-30T09:00:00Z");
          for (let day = 23; day <= 30; day++) {
            await send(user, "PUT", `/api/intakes/2026-11-${day}/${x}/anytime`, { status: "taken" });
          }
        },
        1,
        ["Refill soon: Magnesium | 7 capsules left · runs out around 7 December"],
        true,
      ],
      ["the next round", async () => {}, 1, [], true],
      [
        "a recount of the same stock",
        () => send(user, "PUT", `/api/supplements/${x}/stock`, { count: 7 }),
        1,
        [], // the same run-out date: its outbox key holds
        true,
      ],
      ["lead time 14 days", () => send(user, "PUT", "/api/reminders", { refillLeadDays: 14 }), 1, [], true],
      [
        "lead time off, and a recount",
        async () => {
          await send(user, "PUT", "/api/reminders", { refillLeadDays: 0 });
          await send(user, "PUT", `/api/supplements/${x}/stock`, { count: 2 });
        },
        1,
        [],
        false,
      ],
      [
        "lead time 3 days",
        () => send(user, "PUT", "/api/reminders", { refillLeadDays: 3 }),
        1,
        ["Refill soon: Magnesium | 2 capsules left · runs out around 2 December"],
        true,
      ],
    ];
    for (const [what, change, rounds, expected, due] of steps) {
      await change();
      const sent = (await mailsOf(rounds)).map((m) => `${m.subject} | ${m.text.split("\n")[0]}`);
      expect([what, sent]).toEqual([what, expected]);
      expect([what, await refillDue(user, x)]).toEqual([what, due]);
    }
    const rows = await api.ctx.database.db
      .select()
      .from(reminderOutbox)
      .where(and(eq(reminderOutbox.userId, user.id), eq(reminderOutbox.kind, "refill")));
    expect(rows.map((r) => [r.localDate, r.slot, r.channel, r.status]).sort()).toEqual([
      ["2026-11-25", `refill-${x}`, "email", "sent"],
      ["2026-12-02", `refill-${x}`, "email", "sent"],
      ["2026-12-07", `refill-${x}`, "email", "sent"],
    ]);
  });

  test("no channel on: nothing goes to the outbox, while the list shows the notice", async () => {
    steppingClock("2026-11-20T09:00:00Z");
    const user = await createUser(api);
    const x = await addSupplementAs(api, user, {});
    await send(user, "PUT", `/api/supplements/${x}/stock`, { count: 2 });
    expect(await mailsOf()).toEqual([]);
    expect(await refillDue(user, x)).toBe(true);
    const rows = await api.ctx.database.db.select().from(reminderOutbox).where(eq(reminderOutbox.userId, user.id));
    expect(rows).toEqual([]);
  });
});
