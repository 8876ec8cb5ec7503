/** Outgoing e-mail: SMTP when configured, otherwise the message goes to the server log. */
import type { Config } from "./config";
import { log } from "./log";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** Extra headers (List-Unsubscribe…): sent, never logged (they may carry a token). */
  headers?: Record<string, string>;
}

export type Mailer = (mail: Mail) => Promise<void>;

export function createMailer(config: Config): Mailer {
  if (!config.SMTP_URL) {
    return async (mail) => {
      log.info("e-mail (SMTP not configured, logged instead)", { to: mail.to, subject: mail.subject, text: mail.text });
    };
  }
  const smtpUrl = config.SMTP_URL;
  let transport: import("nodemailer").Transporter | undefined;
  return async (mail) => {
    if (!transport) {
      const nodemailer = await import("nodemailer");
      transport = nodemailer.createTransport(smtpUrl);
    }
    await transport.sendMail({
      from: config.MAIL_FROM,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      headers: mail.headers,
    });
  };
}
