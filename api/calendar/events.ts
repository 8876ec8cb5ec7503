/**
 * The calendar feed's events (issue 50 §1), from days already planned: one event per timed
 * slot and day with something due (any-time doses join the morning's; as-needed ones never
 * appear), at that slot's reminder time in the user's zone (clock changes as the reminders
 * have them: api/reminders/due.ts), 15 minutes, transparent; and an all-day `Refill …` event
 * per refill date. Past days tell what was taken (`✓ Vitamin D3`). With names hidden an event
 * says how many, never which. Pure: the route reads the days, this writes the events.
 */
import { AS_NEEDED, type IntakeTime, TIME_LABELS, TIMED_DOSE_TIMES } from "../../src/lib/schedule";
import { dueInstant } from "../reminders/due";
import type { CalendarEvent } from "./ics";

export type Slot = (typeof TIMED_DOSE_TIMES)[number];

export interface FeedDose {
  name: string;
  /** The dose phrase (`2 capsules`), empty when the supplement has no amount. */
  phrase: string;
  time: IntakeTime;
  /** Ticked taken that day. */
  taken: boolean;
}

export interface FeedInput {
  /** The feed's own id: part of every UID, so that a reset address is a new calendar. */
  feedId: string;
  host: string;
  zone: string;
  /** Today in the user's zone: days before it are past. */
  today: string;
  /** Each slot's reminder time, `HH:MM`. */
  times: Record<Slot, string>;
  days: { date: string; doses: FeedDose[] }[];
  refills: { supplementId: number; name: string; date: string }[];
  hideNames: boolean;
}

export const EVENT_MINUTES = 15;

const slotOf = (time: IntakeTime): Slot | null =>
  time === AS_NEEDED ? null : time === "anytime" ? "morning" : (time as Slot);
const count = (n: number) => `${n} ${n === 1 ? "supplement" : "supplements"}`;
const line = (dose: FeedDose) => (dose.phrase ? `${dose.name}, ${dose.phrase}` : dose.name);

function summaryOf(slot: Slot, doses: FeedDose[], hideNames: boolean): string {
  const what = hideNames ? count(doses.length) : doses.map((d) => d.name).join(", ");
  return `${TIME_LABELS[slot]}: ${what}`;
}

function descriptionOf(doses: FeedDose[], past: boolean, hideNames: boolean): string {
  if (hideNames) {
    const taken = doses.filter((d) => d.taken).length;
    return past ? `${taken} of ${doses.length} taken` : count(doses.length);
  }
  return doses.map((d) => (past && d.taken ? `✓ ${line(d)}` : line(d))).join("\n");
}

export function feedEvents(input: FeedInput): CalendarEvent[] {
  const events: CalendarEvent[] = [];
  const uid = (what: string) => `${what}-${input.feedId}@${input.host}`;
  for (const day of input.days) {
    const bySlot = new Map<Slot, FeedDose[]>();
    for (const dose of day.doses) {
      const slot = slotOf(dose.time);
      if (!slot) continue;
      bySlot.set(slot, [...(bySlot.get(slot) ?? []), dose]);
    }
    const past = day.date < input.today;
    for (const slot of TIMED_DOSE_TIMES) {
      const doses = bySlot.get(slot);
      if (!doses?.length) continue;
      events.push({
        uid: uid(`${day.date}-${slot}`),
        start: dueInstant(day.date, input.times[slot], input.zone),
        minutes: EVENT_MINUTES,
        summary: summaryOf(slot, doses, input.hideNames),
        description: descriptionOf(doses, past, input.hideNames),
      });
    }
  }
  for (const refill of input.refills) {
    events.push({
      uid: uid(`${refill.date}-refill-${refill.supplementId}`),
      date: refill.date,
      summary: input.hideNames ? "Refill a supplement" : `Refill ${refill.name}`,
    });
  }
  return events;
}
