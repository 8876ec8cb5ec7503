/** One reminder's words: the push payload and the e-mail, from the slot's open doses. */
import { dosePhrase } from "../../src/lib/dose";
import { type ReminderPayload, type ReminderSlot, reminderTitle } from "../../src/lib/reminders";
import type { Config } from "../config";
import type { Mail } from "../mail";
import { unsubscribeUrl } from "./unsubscribe";

export interface OpenDose {
  supplementId: number;
  time: string;
  name: string;
  quantityType: string;
  doseAmount: number | null;
}

export const TODAY_URL = "/dashboard#today";

export function reminderBody(doses: OpenDose[]): string {
  return doses
    .map((d) => {
      const phrase = d.doseAmount == null ? "" : dosePhrase(d.doseAmount, d.quantityType);
      return phrase ? `${d.name} (${phrase})` : d.name;
    })
    .join(", ");
}

export function reminderPayload(slot: ReminderSlot, date: string, doses: OpenDose[]): ReminderPayload {
  return {
    title: reminderTitle(slot, doses.length),
    body: reminderBody(doses),
    url: TODAY_URL,
    tag: topicOf(slot, date),
    date,
    doses: doses.map((d) => ({ supplementId: d.supplementId, time: d.time })),
  };
}

/** The Topic header (≤ 32 URL-safe characters): one per slot and day. */
export const topicOf = (slot: ReminderSlot, date: string) => `${slot}-${date.replaceAll("-", "")}`;

/**
 * The e-mail: the same title and list, a link to Today (after `action`), and RFC 8058
 * one-click unsubscribe headers.
 */
export function reminderMail(
  config: Config,
  to: string,
  userId: string,
  payload: ReminderPayload,
  action = "Tick them off",
): Mail {
  return {
    to,
    subject: payload.title,
    text: `${payload.body}\n\n${action}: ${config.origin}${TODAY_URL}\n\nTo stop these e-mails, turn off E-mail under Reminders in ${config.origin}/settings.`,
    headers: {
      "List-Unsubscribe": `<${unsubscribeUrl(config, userId)}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
  };
}
