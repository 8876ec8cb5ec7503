/**
 * Issue 45: the words about confirming an address for e-mail reminders (the Settings card and
 * the link's page). Apart from messages.ts so that the dashboard's shared chunk does not carry
 * them (its 110 KB budget).
 */
import { EMAIL_CONFIRM_DAYS, EMAIL_CONFIRM_RESEND_MINUTES } from "./constants";

/** Issue 45: the Reminders card's notice until the address is confirmed, and the link's outcomes. */
export const EMAIL_CONFIRM_MESSAGES = {
  sent: (address: string) => `Confirm your address: we sent a link to ${address}`,
  notSent:
    "Confirm your address: reminder e-mails start once it is confirmed. Turn E-mail off and on again to get a link.",
  resend: `No e-mail? Turn E-mail off and on again for a new link (at most one every ${EMAIL_CONFIRM_RESEND_MINUTES} minutes).`,
  confirmed: "Your address is confirmed: e-mail reminders can reach you",
  invalidTitle: "This confirmation link does not work",
  invalid: `A link works once, for ${EMAIL_CONFIRM_DAYS} days, and only the newest one sent works. Turn E-mail on again under Reminders in Settings to get a new link.`,
} as const;
