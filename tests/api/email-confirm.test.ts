/**
 * Issue 45 §2: e-mail goes only to a confirmed address. Mail leaves through the app's own
 * mailer to a local SMTP sink (tests/fakes/smtp-sink.ts), on a moved clock (api/lib/clock.ts).
 * 1. Who gets reminder, refill and test e-mails: accounts × how (or whether) their address was
 *    confirmed × each kind of mail.
 * 2. Turning E-mail on: sequences of PUTs × the confirmation mails they send (one, never a flood).
 * 3. The link: each way of opening it × what it does.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { resetClock } from "../../api/lib/clock";
import { reminderRound, senderDeps } from "../../api/reminders/worker";
import { emailConfirmations, reminderOutbox } from "../../db/schema";
import { PRODUCT_NAME } from "../../src/lib/constants";
import { REMINDER_MESSAGES, type ReminderSettingsJson } from "../../src/lib/reminders";
import { type SmtpSink, startSmtpSink } from "../fakes/smtp-sink";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs, steppingClock } from "../support/tracking-api";
import { type ApiUser, createUser, userRow } from "../support/users";

let api: TestApi;
let sink: SmtpSink;
const as = requestsAs(() => api);

beforeAll(async () => {
  sink = await startSmtpSink();
  api = await startApi({ SMTP_URL: sink.url });
});
afterAll(async () => {
  resetClock();
  await api?.close();
  await sink?.close();
});
afterEach(() => resetClock());

const SUBJECT = `Confirm your address for ${PRODUCT_NAME} reminders`;
const mailsTo = (address: string) => sink.received.filter((m) => m.to.includes(address.toLowerCase()));
const confirmationsTo = (address: string) => mailsTo(address).filter((m) => m.subject === SUBJECT);
const linksIn = (text: string) => text.match(/https?:\/\/\S+/g) ?? [];

async function put(user: ApiUser, body: Record<string, unknown>) {
  const res = await as(user, "/api/reminders", { method: "PUT", body });
  return { status: res.status, body: (await res.json()) as ReminderSettingsJson };
}

/** The path of the newest confirmation link mailed to the user. */
function newestLink(user: ApiUser): string {
  const mail = confirmationsTo(user.email).at(-1);
  const [link] = linksIn(mail?.text ?? "");
  if (!link) throw new Error(`no confirmation link for ${user.email}`);
  const url = new URL(link);
  return url.pathname + url.search;
}

const open = (path: string) => api.fetch(path, { origin: null });

async function confirmed(user: ApiUser): Promise<boolean> {
  return ((await (await as(user, "/api/reminders")).json()) as ReminderSettingsJson).emailConfirmed;
}

describe("1. reminder, refill and test e-mails go only to a confirmed address", () => {
  type How = "never" | "sign-up says verified" | "the link" | "an e-mail change";
  const table: [How, boolean][] = [
    ["never", false],
    ["sign-up says verified", false],
    ["the link", true],
    ["an e-mail change", true],
  ];

  const CLAIM = { password: "correct horse battery", name: "Claims", emailVerified: true };

  /** Signs up (the body may claim a verified address) and confirms the address `how`. */
  async function accountConfirmed(how: How): Promise<ApiUser> {
    if (how === "sign-up says verified") {
      // The claim is refused, and the account signed up without it is not confirmed.
      const res = await api.fetch("/api/auth/sign-up/email", {
        method: "POST",
        body: { email: `claims-${crypto.randomUUID().slice(0, 8)}@example.com`, ...CLAIM },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ errors: { emailVerified: ["emailVerified cannot be set here"] } });
    }
    const user = await createUser(api);
    if (how === "the link") {
      expect((await put(user, { email: true })).status).toBe(200);
      expect((await open(newestLink(user))).status).toBe(302);
    }
    if (how === "an e-mail change") {
      const newEmail = `changed-${crypto.randomUUID().slice(0, 8)}@example.com`;
      const asked = await as(user, "/api/account/email", {
        method: "POST",
        body: { newEmail, currentPassword: user.password },
      });
      expect(asked.status).toBe(200);
      const link = linksIn(mailsTo(newEmail).at(-1)?.text ?? "")[0] ?? "";
      expect(link).toContain("/api/account/email/confirm?token=");
      const url = new URL(link);
      expect((await open(url.pathname + url.search)).status).toBe(303);
      user.email = newEmail;
    }
    return user;
  }

  test.each(table)("confirmed by %s: e-mails %p", async (how, expected) => {
    const move = steppingClock("2026-12-01T06:00:00Z");
    const user = await accountConfirmed(how);
    expect((await userRow(api, user)).emailVerified).toBe(expected);
    expect(await confirmed(user)).toBe(expected);
    const x = await addSupplementAs(api, user, {
      name: "Zinc",
      doseAmount: 1,
      schedule: { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] },
    });
    expect((await as(user, `/api/supplements/${x}/stock`, { method: "PUT", body: { count: 2 } })).status).toBe(200);
    expect((await put(user, { email: true, followUpMinutes: 0 })).status).toBe(200);
    const before = mailsTo(user.email).filter((m) => m.subject !== SUBJECT).length;

    move("2026-12-01T08:00:00Z");
    await reminderRound(senderDeps(api.ctx));
    const test = await as(user, "/api/reminders/test", { method: "POST" });

    const sent = mailsTo(user.email)
      .filter((m) => m.subject !== SUBJECT)
      .slice(before)
      .map((m) => m.subject);
    const rows = await api.ctx.database.db
      .select({ slot: reminderOutbox.slot, status: reminderOutbox.status })
      .from(reminderOutbox)
      .where(eq(reminderOutbox.userId, user.id));
    if (expected) {
      expect(test.status).toBe(200);
      expect(await test.json()).toEqual({ push: 0, email: true });
      expect(sent.sort()).toEqual(["Morning: 1 supplement", "Morning: 1 supplement", "Refill soon: Zinc"]);
      expect(rows.map((r) => r.status)).toEqual(["sent", "sent"]);
    } else {
      expect(test.status).toBe(400);
      expect(((await test.json()) as { message: string }).message).toBe(REMINDER_MESSAGES.testUnconfirmed);
      expect(sent).toEqual([]);
      // Recorded as skipped, not retried.
      expect(rows.map((r) => r.status).sort()).toEqual(["skipped", "skipped"]);
    }
  });
});

describe("2. turning E-mail on sends one link, never a flood", () => {
  type Step = Record<string, unknown> | { wait: number };
  const table: [string, Step[], number][] = [
    ["E-mail on", [{ email: true }], 1],
    ["E-mail on five times", [{ email: true }, { email: true }, { email: true }, { email: true }, { email: true }], 1],
    ["on, off, on", [{ email: true }, { email: false }, { email: true }], 1],
    ["other settings only", [{ times: { morning: "07:30" } }, { followUpMinutes: 30 }, { push: false }], 0],
    ["off", [{ email: false }], 0],
    ["on, 9 minutes, on", [{ email: true }, { wait: 9 }, { email: true }], 1],
    ["on, 11 minutes, on", [{ email: true }, { wait: 11 }, { email: true }], 2],
    ["on, 11 minutes, on, on", [{ email: true }, { wait: 11 }, { email: true }, { email: true }], 2],
  ];

  test.each(table)("%s: %p confirmation mail(s)", async (_, steps, expected) => {
    let at = Date.parse("2026-12-02T10:00:00Z");
    const move = steppingClock(new Date(at).toISOString());
    const user = await createUser(api);
    let last: { status: number; body: ReminderSettingsJson } | undefined;
    for (const step of steps) {
      if ("wait" in step) {
        at += (step.wait as number) * 60_000;
        move(new Date(at).toISOString());
      } else {
        last = await put(user, step);
        expect(last.status).toBe(200);
      }
    }
    const mails = confirmationsTo(user.email);
    expect(mails.length).toBe(expected);
    const email = (steps.findLast((s) => "email" in s) as { email?: boolean } | undefined)?.email ?? false;
    expect(last?.body).toMatchObject({
      email,
      emailConfirmed: false,
      confirmationSentTo: expected > 0 ? user.email : null,
    });
    for (const mail of mails) {
      expect(mail.subject).toBe(SUBJECT);
      const links = linksIn(mail.text);
      expect(links.length).toBe(1);
      const url = new URL(links[0] ?? "");
      expect(url.origin).toBe(api.origin);
      expect(url.searchParams.get("token")?.length).toBeGreaterThanOrEqual(43); // 32 bytes, base64url
    }
    // Nothing of the token is kept but its hash.
    if (expected > 0) {
      const token = new URL(linksIn(mails.at(-1)?.text ?? "")[0] ?? "").searchParams.get("token") ?? "";
      const stored = JSON.stringify(
        await api.ctx.database.db.select().from(emailConfirmations).where(eq(emailConfirmations.userId, user.id)),
      );
      expect(stored).not.toContain(token);
    }
  });

  test("an address confirmed once is not asked again", async () => {
    steppingClock("2026-12-02T10:00:00Z");
    const user = await createUser(api);
    await put(user, { email: true });
    expect((await open(newestLink(user))).status).toBe(302);
    for (const body of [{ email: false }, { email: true }, { email: true }]) {
      expect((await put(user, body)).body).toMatchObject({ emailConfirmed: true, confirmationSentTo: null });
    }
    expect(confirmationsTo(user.email).length).toBe(1);
  });
});

describe("3. the link works once, within 7 days, the newest only", () => {
  type Case = (user: ApiUser, move: (to: string) => void) => Promise<string>;
  const sent = "2026-12-03T10:00:00Z";
  const first: Case = async (user) => newestLink(user);
  const table: [string, Case, number][] = [
    ["opened at once", first, 302],
    [
      "opened a second time",
      async (user) => {
        const path = newestLink(user);
        expect((await open(path)).status).toBe(302);
        return path;
      },
      400,
    ],
    [
      "6 days 23 hours later",
      async (user, move) => {
        move("2026-12-10T09:00:00Z");
        return newestLink(user);
      },
      302,
    ],
    [
      "7 days and a minute later",
      async (user, move) => {
        move("2026-12-10T10:01:00Z");
        return newestLink(user);
      },
      400,
    ],
    [
      "an older link once a newer one was sent",
      async (user, move) => {
        const older = newestLink(user);
        move("2026-12-03T10:11:00Z");
        await put(user, { email: true });
        expect(newestLink(user)).not.toBe(older);
        return older;
      },
      400,
    ],
    [
      "the newer one",
      async (user, move) => {
        move("2026-12-03T10:11:00Z");
        await put(user, { email: true });
        return newestLink(user);
      },
      302,
    ],
    ["a forged token", async () => `/api/reminders/confirm?token=${"A".repeat(43)}`, 400],
    ["no token", async () => "/api/reminders/confirm", 400],
    ["a token of 300 characters", async () => `/api/reminders/confirm?token=${"A".repeat(300)}`, 400],
    ["with a parameter added", async (user) => `${newestLink(user)}&u=someone-else`, 302],
  ];

  test.each(table)("%s", async (name, make, status) => {
    const move = steppingClock(sent);
    const user = await createUser(api);
    expect((await put(user, { email: true })).status).toBe(200);
    const path = await make(user, move);
    const res = await open(path);
    expect(res.status).toBe(status);
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    if (status === 302) {
      expect(res.headers.get("location")).toBe("/settings?reminders=confirmed");
      expect(await confirmed(user)).toBe(true);
    } else {
      expect(res.headers.get("content-type")).toContain("text/html");
      expect(await res.text()).toContain("This confirmation link does not work");
      // Unconfirmed, unless an earlier opening confirmed it.
      expect(await confirmed(user)).toBe(name === "opened a second time");
    }
  });
});
