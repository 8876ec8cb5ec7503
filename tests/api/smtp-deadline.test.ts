/**
 * Issue 45 §1, SMTP's part: a mail server that accepts the connection and then goes silent (before
 * its greeting, after EHLO, after the message) never holds the caller past our own deadline
 * (api/lib/mail.ts; shortened here), nor the reminder round: the e-mail row is retried later, the
 * push of the same round still goes, and the round ends.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { resetClock } from "../../api/lib/clock";
import { createMailer } from "../../api/lib/mail";
import { reminderRound, senderDeps } from "../../api/reminders/worker";
import { reminderOutbox } from "../../db/schema";
import { type PushService, startPushService } from "../fakes/push-service";
import { type Silence, type SmtpSink, startSmtpSink } from "../fakes/smtp-sink";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs, steppingClock } from "../support/tracking-api";
import { confirmEmail, createUser } from "../support/users";

let api: TestApi;
let push: PushService;
const sinks: SmtpSink[] = [];
const as = requestsAs(() => api);
/** Far below nodemailer's own defaults (30 s greeting, 10 min socket): only ours can end these. */
const DEADLINE_MS = 300;

beforeAll(async () => {
  push = await startPushService();
  push.trustInProcess();
  api = await startApi({ PUSH_HOSTS: push.caEnv.PUSH_HOSTS });
});
afterAll(async () => {
  resetClock();
  await api?.close();
  await push?.close();
  for (const sink of sinks) await sink.close();
});

async function silentServer(silent: Silence) {
  const sink = await startSmtpSink({ silent });
  sinks.push(sink);
  return createMailer({ ...api.ctx.config, SMTP_URL: sink.url }, api.ctx.database, { deadlineMs: DEADLINE_MS });
}

describe("an SMTP server that goes silent", () => {
  const table: Silence[] = ["greeting", "ehlo", "data"];

  test.each(table)("silent at %s: the send fails at our deadline", async (silent) => {
    const send = await silentServer(silent);
    const error = await send({ to: "someone@example.com", subject: "Hello", text: "Hi" }).then(
      () => null,
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(Error);
  });

  test.each(table)("silent at %s: the reminder round ends; the push goes, the e-mail is retried", async (silent) => {
    const mailer = await silentServer(silent);
    const move = steppingClock("2026-12-05T06:00:00Z");
    const user = await createUser(api);
    await confirmEmail(api, user);
    await addSupplementAs(api, user, { name: "Zinc", schedule: { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] } });
    const sub = push.subscription();
    expect((await as(user, "/api/push/subscriptions", { method: "POST", body: { ...sub } })).status).toBe(201);
    expect((await as(user, "/api/reminders", { method: "PUT", body: { email: true, push: true } })).status).toBe(200);
    move("2026-12-05T08:00:00Z");
    await reminderRound({ ...senderDeps(api.ctx), mailer });
    resetClock();
    const rows = await api.ctx.database.db
      .select({ channel: reminderOutbox.channel, status: reminderOutbox.status, attempts: reminderOutbox.attempts })
      .from(reminderOutbox)
      .where(eq(reminderOutbox.userId, user.id));
    expect(rows.sort((a, b) => a.channel.localeCompare(b.channel))).toEqual([
      { channel: "email", status: "pending", attempts: 1 },
      { channel: "push", status: "sent", attempts: expect.any(Number) },
    ]);
    expect(push.received.filter((p) => sub.endpoint.endsWith(p.subscription)).length).toBe(1);
  });
});
