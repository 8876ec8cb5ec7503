/**
 * Outgoing e-mail, the one door every mail goes through (resets, e-mail changes and their
 * notices, address confirmations, reminders, refills, test reminders): SMTP when configured,
 * otherwise the message goes to the server log. Two rules hold here for every kind:
 * - each mail spends the recipient's daily budget first (api/lib/rate-limit.ts spendMailBudget);
 *   over it, nothing is sent and the answer is "refused" (SECURITY.md "Mail budget");
 * - an SMTP exchange has our own total deadline (SMTP_DEADLINE_MS), besides nodemailer's
 *   connect, greeting and socket timeouts: a server that goes silent never holds the caller.
 */
import type { Database } from "../../db/client";
import { MAIL_MESSAGES } from "../../src/lib/messages";
import type { Config } from "./config";
import { HttpError } from "./http";
import { log } from "./log";
import { emailKey, type MailBudget, mailBudgetRetryAfter, spendMailBudget } from "./rate-limit";

export type { MailBudget };

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** Extra headers (List-Unsubscribe…): sent, never logged (they may carry a token). */
  headers?: Record<string, string>;
  /** Which budget it spends: a slot's reminder or follow-up, or (the default) anything else. */
  budget?: MailBudget;
}

/** "refused": over the recipient's budget, not sent. A recording stand-in (tests) answers nothing. */
export type MailOutcome = "sent" | "refused";
// biome-ignore lint/suspicious/noConfusingVoidType: a stand-in `async (mail) => {…}` is a Mailer
export type Mailer = (mail: Mail) => Promise<MailOutcome | void>;

/** Our total deadline for one SMTP exchange (connect, greeting, the message and its answer). */
export const SMTP_DEADLINE_MS = 10_000;

export interface MailerOptions {
  /** The deadline (tests shorten it). */
  deadlineMs?: number;
}

/** Rejects with a TimeoutError once `ms` pass; the timer never keeps the process alive. */
function deadline(ms: number): { promise: Promise<never>; clear: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DOMException(`SMTP gave no answer within ${ms} ms`, "TimeoutError")), ms);
    timer.unref?.();
  });
  return { promise, clear: () => clearTimeout(timer) };
}

/** Sends through SMTP (or the log) without any budget: only createMailer calls it. */
function transportOf(config: Config, deadlineMs: number): (mail: Mail) => Promise<void> {
  if (!config.SMTP_URL) {
    return async (mail) => {
      log.info("e-mail (SMTP not configured, logged instead)", { to: mail.to, subject: mail.subject, text: mail.text });
    };
  }
  const url = config.SMTP_URL;
  let transport: import("nodemailer").Transporter | undefined;
  return async (mail) => {
    if (!transport) {
      const nodemailer = await import("nodemailer");
      transport = nodemailer.createTransport({
        url,
        connectionTimeout: deadlineMs,
        greetingTimeout: deadlineMs,
        socketTimeout: deadlineMs,
      } as Parameters<typeof nodemailer.createTransport>[0]);
    }
    const limit = deadline(deadlineMs);
    try {
      await Promise.race([
        transport.sendMail({
          from: config.MAIL_FROM,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          headers: mail.headers,
        }),
        limit.promise,
      ]);
    } finally {
      limit.clear();
    }
  };
}

/**
 * The app's mailer: spends the recipient's budget, then sends. Over budget it logs (the kind
 * and a hash of the address; never the text, which may hold a link) and answers "refused".
 */
export function createMailer(
  config: Config,
  database: Pick<Database, "db">,
  { deadlineMs = SMTP_DEADLINE_MS }: MailerOptions = {},
): Mailer {
  const send = transportOf(config, deadlineMs);
  return async (mail) => {
    const budget = mail.budget ?? "other";
    if (!(await spendMailBudget({ config, database }, mail.to, budget))) {
      log.warn("e-mail not sent: the recipient's daily budget is spent", {
        budget,
        recipient: emailKey(mail.to),
      });
      return "refused";
    }
    await send(mail);
    return "sent";
  };
}

/** For a route a user triggers: a refused mail is a 429 with the reason. */
export async function mailOrRefuse(mailer: Mailer, mail: Mail): Promise<void> {
  if ((await mailer(mail)) === "refused") {
    throw new HttpError(429, MAIL_MESSAGES.overBudget, undefined, {
      "Retry-After": String(mailBudgetRetryAfter(Date.now())),
    });
  }
}

/** `mailer` for such a route: it throws that 429 instead of answering "refused". */
export const refusing =
  (mailer: Mailer): Mailer =>
  async (mail) => {
    await mailOrRefuse(mailer, mail);
    return "sent";
  };
