/**
 * Issue 45 §2: every mail to one address spends one per-recipient daily budget, whatever its
 * kind, at the one door mail leaves by (api/lib/mail.ts createMailer): 20 a day for everything but
 * a slot's reminders and follow-ups, which have their own 18 (issue 48: 3 follow-ups). A bounce-free SMTP sink
 * (tests/fakes/smtp-sink.ts) accepts everything, so only the budget stops a flood.
 * 1. Kinds × budgets at the door: the cap, the address's spellings, a second instance.
 * 2. Routes over budget: a user-triggered one answers 429 and saves nothing; the reset answers
 *    as always and sends nothing; the reminder round records the row as skipped.
 */
import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { eq } from "drizzle-orm";
import { resetClock } from "../../api/lib/clock";
import { createMailer, type Mail, type MailBudget } from "../../api/lib/mail";
import { LIMITS } from "../../api/lib/rate-limit";
import { reminderMail } from "../../api/reminders/message";
import { REFILL_MAIL_ACTION } from "../../api/reminders/refills";
import { reminderRound, senderDeps } from "../../api/reminders/worker";
import { emailConfirmations, reminderOutbox, reminderSettings } from "../../db/schema";
import { MAIL_MESSAGES } from "../../src/lib/messages";
import type { ReminderPayload, ReminderSettingsJson } from "../../src/lib/reminders";
import { type SmtpSink, startSmtpSink } from "../fakes/smtp-sink";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs, steppingClock } from "../support/tracking-api";
import { type ApiUser, confirmEmail, createUser } from "../support/users";

let api: TestApi;
let sink: SmtpSink;
const as = requestsAs(() => api);

// The budgets are days (UTC): the test stands mid-day, so no run straddles a midnight.
const NOON = Date.parse("2026-12-04T12:00:00Z");
beforeAll(async () => {
  setSystemTime(new Date(NOON));
  sink = await startSmtpSink();
  api = await startApi({ SMTP_URL: sink.url, RATE_LIMIT: "on" });
});
afterAll(async () => {
  setSystemTime();
  resetClock();
  await api?.close();
  await sink?.close();
});

const unique = (what: string) => `${what}-${crypto.randomUUID().slice(0, 8)}@example.com`;
const sunkTo = (address: string) =>
  sink.received.filter((m) => m.to.some((t) => t.toLowerCase() === address.trim().toLowerCase())).length;
const payload: ReminderPayload = {
  title: "Morning: 1 supplement",
  body: "Zinc",
  url: "/dashboard#today",
  tag: "morning-20261204",
  date: "2026-12-04",
  doses: [],
};

/** A slot's reminders and follow-ups a day: 4 slots × (1 + 3 follow-ups) and 2 for a clock change. */
const REMINDER_CAP = 18;

/** Every kind of mail the app sends, as its sender builds it, and the budget it spends. */
const KINDS: [string, (to: string) => Mail, MailBudget][] = [
  ["password reset", (to) => ({ to, ...MAIL_MESSAGES.passwordReset(`${api.origin}/reset?token=x`) }), "other"],
  ["e-mail change link", (to) => ({ to, ...MAIL_MESSAGES.emailChangeConfirm(`${api.origin}/c?token=x`, 24) }), "other"],
  ["e-mail change notice", (to) => ({ to, ...MAIL_MESSAGES.emailChangeRequested("new@example.com") }), "other"],
  ["e-mail changed notice", (to) => ({ to, ...MAIL_MESSAGES.emailChanged("new@example.com") }), "other"],
  ["address confirmation", (to) => ({ to, ...MAIL_MESSAGES.reminderConfirm(`${api.origin}/c?token=x`, 7) }), "other"],
  [
    "refill reminder",
    (to) => ({ ...reminderMail(api.ctx.config, to, "u1", payload, REFILL_MAIL_ACTION), budget: "other" }),
    "other",
  ],
  ["test reminder", (to) => reminderMail(api.ctx.config, to, "u1", payload), "other"],
  ["reminder", (to) => ({ ...reminderMail(api.ctx.config, to, "u1", payload), budget: "reminder" }), "reminder"],
  ["follow-up", (to) => ({ ...reminderMail(api.ctx.config, to, "u1", payload), budget: "reminder" }), "reminder"],
];

/** Sends `count` mails of the budget's kinds (in turn) to `to`; answers what the door said. */
async function sendMany(
  to: string,
  budget: MailBudget,
  count: number,
  mailer = createMailer(api.ctx.config, api.ctx.database),
) {
  const kinds = KINDS.filter(([, , b]) => b === budget);
  const outcomes: string[] = [];
  for (let i = 0; i < count; i++) {
    const [, make] = kinds[i % kinds.length] as (typeof kinds)[number];
    outcomes.push((await mailer(make(to))) ?? "sent");
  }
  return outcomes;
}

describe("1. one budget per recipient, for every kind", () => {
  test("a slot's reminders and follow-ups have room for 3 follow-ups of every slot", () => {
    expect(LIMITS.reminderMailToRecipient.max).toBe(REMINDER_CAP);
  });

  test.each(KINDS)("%s: its budget, shared with its kind", async (_, make, budget) => {
    const to = unique("kind");
    const mailer = createMailer(api.ctx.config, api.ctx.database);
    const cap = budget === "reminder" ? REMINDER_CAP : 20;
    // The rest of the budget spent by the other kinds of that budget, then this kind is refused.
    await sendMany(to, budget, cap);
    expect(await mailer(make(to))).toBe("refused");
    expect(sunkTo(to)).toBe(cap);
  });

  test("20 of everything else and 18 reminders a day, however the address is written, on every instance", async () => {
    const to = unique("victim");
    const spellings = [to, to.toUpperCase(), ` ${to}`, to.replace(/^./, (c) => c.toUpperCase())];
    const first = createMailer(api.ctx.config, api.ctx.database);
    const second = createMailer(api.ctx.config, api.ctx.database); // another instance: the count is in Postgres
    const outcomes: string[] = [];
    for (let i = 0; i < 30; i++) {
      const mailer = i % 2 === 0 ? first : second;
      const [, make] = KINDS[i % 7] as (typeof KINDS)[number];
      outcomes.push((await mailer(make(spellings[i % spellings.length] as string))) ?? "sent");
    }
    expect(outcomes.filter((o) => o === "sent").length).toBe(20);
    expect(outcomes.slice(20)).toEqual(Array(10).fill("refused"));
    // The slots' reminders have their own budget, and another address its own.
    expect(await sendMany(to, "reminder", REMINDER_CAP + 2, second)).toEqual([
      ...Array(REMINDER_CAP).fill("sent"),
      "refused",
      "refused",
    ]);
    const other = unique("bystander");
    expect(await sendMany(other, "other", 3)).toEqual(["sent", "sent", "sent"]);
    expect(sunkTo(to)).toBe(20 + REMINDER_CAP);
    // The next day (UTC), the budget is new.
    setSystemTime(new Date(NOON + 86_400_000));
    try {
      expect(await sendMany(to, "other", 1)).toEqual(["sent"]);
    } finally {
      setSystemTime(new Date(NOON));
    }
  });
});

describe("2. over budget: refused where the user asked, skipped where the round sends", () => {
  const spend = (to: string, budget: MailBudget = "other") =>
    sendMany(to, budget, budget === "other" ? 20 : REMINDER_CAP);
  const tooMany = async (res: Response) => {
    expect(res.status).toBe(429);
    expect(((await res.json()) as { message: string }).message).toBe(MAIL_MESSAGES.overBudget);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  };

  const table: [string, (user: ApiUser) => Promise<void>, MailBudget[]?][] = [
    [
      "E-mail on for an unconfirmed address: 429, nothing saved, no link kept",
      async (user) => {
        await tooMany(await as(user, "/api/reminders", { method: "PUT", body: { email: true } }));
        const settings = (await (await as(user, "/api/reminders")).json()) as ReminderSettingsJson;
        expect(settings).toMatchObject({ email: false, emailConfirmed: false, confirmationSentTo: null });
        const rows = await api.ctx.database.db
          .select()
          .from(emailConfirmations)
          .where(eq(emailConfirmations.userId, user.id));
        expect(rows).toEqual([]);
      },
    ],
    [
      "a test reminder by e-mail: 429",
      async (user) => {
        await confirmEmail(api, user);
        await api.ctx.database.db.insert(reminderSettings).values({ userId: user.id, email: true });
        await tooMany(await as(user, "/api/reminders/test", { method: "POST" }));
      },
    ],
    [
      "an e-mail change to a spent address: 429",
      async (user) => {
        const target = unique("target");
        await spend(target);
        await tooMany(
          await as(user, "/api/account/email", {
            method: "POST",
            body: { newEmail: target, currentPassword: user.password },
          }),
        );
      },
    ],
    [
      "a password reset: the same answer as always, nothing sent",
      async (user) => {
        const res = await api.fetch("/api/auth/request-password-reset", {
          method: "POST",
          body: { email: user.email, redirectTo: "/auth/reset-password" },
        });
        expect(res.status).toBe(200);
      },
    ],
    [
      "the round's reminder and refill e-mails: recorded as skipped",
      async (user) => {
        await confirmEmail(api, user);
        const move = steppingClock("2026-12-04T06:00:00Z");
        const x = await addSupplementAs(api, user, {
          name: "Zinc",
          doseAmount: 1,
          schedule: { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] },
        });
        await as(user, `/api/supplements/${x}/stock`, { method: "PUT", body: { count: 2 } });
        expect((await as(user, "/api/reminders", { method: "PUT", body: { email: true } })).status).toBe(200);
        move("2026-12-04T08:00:00Z");
        await reminderRound(senderDeps(api.ctx));
        resetClock();
        const rows = await api.ctx.database.db
          .select({ kind: reminderOutbox.kind, status: reminderOutbox.status })
          .from(reminderOutbox)
          .where(eq(reminderOutbox.userId, user.id));
        expect(rows.map((r) => `${r.kind} ${r.status}`).sort()).toEqual(["refill skipped", "reminder skipped"]);
      },
      ["other", "reminder"],
    ],
  ];

  let minute = 0;
  test.each(table)("%s", async (_, check, budgets = ["other"]) => {
    // A minute of its own: sign-ups from one address are limited per minute.
    minute += 1;
    setSystemTime(new Date(NOON + minute * 60_000));
    const user = await createUser(api);
    for (const budget of budgets) await spend(user.email, budget);
    const before = sunkTo(user.email);
    await check(user);
    expect(sunkTo(user.email)).toBe(before);
  });
});
