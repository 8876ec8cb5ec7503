/** One reminder's words: the push payload and the e-mail, from the slot's open doses. */
import { dosePhrase } from "../../src/lib/dose";
import { type ReminderPayload, type ReminderSlot, reminderTitle } from "../../src/lib/reminders";
import { type StrengthLine, withStrength } from "../../src/lib/strength";
import type { Config } from "../lib/config";
import type { Mail } from "../lib/mail";
import { unsubscribeUrl } from "./unsubscribe";

export interface OpenDose {
  supplementId: number;
  time: string;
  name: string;
  quantityType: string;
  doseAmount: number | null;
  servingSize?: number;
  ingredients?: StrengthLine[];
}

export const TODAY_URL = "/dashboard#today";

/**
 * The most bytes of a push's JSON (UTF-8, as encrypted): push services take 4,096 bytes of
 * payload, encryption adds ~100 (issue 45).
 */
export const MAX_PUSH_PAYLOAD_BYTES = 3000;

const doseLine = (d: OpenDose) => {
  const phrase = withStrength(
    d.doseAmount == null ? "" : dosePhrase(d.doseAmount, d.quantityType),
    d.doseAmount,
    d.quantityType,
    d,
  );
  return phrase ? `${d.name} (${phrase})` : d.name;
};

/** The first `shown` lines, then `and N more` for the rest. */
export function listBody(lines: string[], shown: number): string {
  if (shown >= lines.length) return lines.join(", ");
  const rest = `and ${lines.length - shown} more`;
  return shown === 0 ? rest : `${lines.slice(0, shown).join(", ")} ${rest}`;
}

export const payloadBytes = (payload: ReminderPayload) => Buffer.byteLength(JSON.stringify(payload), "utf8");

/**
 * The slot's payload within MAX_PUSH_PAYLOAD_BYTES: every dose when it fits; else as many names
 * as fit, in order, then `and N more`. The doses ('Mark all taken') stay whole or, when even one
 * name does not fit beside them, go (the notification then opens Today): never a part of them.
 */
export function reminderPayload(slot: ReminderSlot, date: string, doses: OpenDose[]): ReminderPayload {
  const lines = doses.map(doseLine);
  const all = doses.map((d) => ({ supplementId: d.supplementId, time: d.time }));
  const make = (shown: number, withDoses: boolean): ReminderPayload => ({
    title: reminderTitle(slot, doses.length),
    body: listBody(lines, shown),
    url: TODAY_URL,
    tag: topicOf(slot, date),
    date,
    doses: withDoses ? all : [],
  });
  const fits = (p: ReminderPayload) => payloadBytes(p) <= MAX_PUSH_PAYLOAD_BYTES;
  for (const withDoses of [true, false]) {
    if (fits(make(lines.length, withDoses))) return make(lines.length, withDoses);
    // The most names that fit (fewer names, fewer bytes): a binary search over 0..length-1.
    let lo = withDoses ? 1 : 0;
    let hi = lines.length - 1;
    if (!fits(make(lo, withDoses))) continue;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(make(mid, withDoses))) lo = mid;
      else hi = mid - 1;
    }
    return make(lo, withDoses);
  }
  return make(0, false);
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
