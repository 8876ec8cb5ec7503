/**
 * Today's rows (issues 19, 40): one per dose of a day, from the server's answer or, for a day
 * no answer was kept for and with no network, planned from the list's schedules.
 */
import type { AsNeededLimits } from "../../lib/as-needed";
import { dosePhrase } from "../../lib/dose";
import { amountAt } from "../../lib/due";
import { AS_NEEDED, dueOn, type IntakeStatus, type IntakeTime, type TodayJson } from "../../lib/schedule";
import { withStrength } from "../../lib/strength";
import type { Supplement } from "../../lib/types";

export interface Row {
  key: string;
  /** The day the row belongs to: a write names it, whatever the card shows by then. */
  date: string;
  supplementId: number;
  name: string;
  amount: string;
  time: IntakeTime;
  status: IntakeStatus | null;
  /** Issue 48, an as-needed row: the day's count, its last dose, and with limits what Today says of them. */
  count?: number;
  lastTakenAt?: string | null;
  nextAllowedAt?: string | null;
  warning?: string;
  limits?: AsNeededLimits | null;
}

export function longDate(date: string): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Intl.DateTimeFormat("en-GB", {
    weekday: "long",
    day: "numeric",
    month: "long",
    timeZone: "UTC",
  }).format(new Date(Date.UTC(y, m - 1, d)));
}

export function rowsOf(day: TodayJson): Row[] {
  return [
    ...day.doses.map((d) => ({
      key: `${d.supplementId}/${d.time}`,
      date: day.date,
      supplementId: d.supplementId,
      name: d.name,
      amount: withStrength(
        d.doseAmount == null ? "" : dosePhrase(d.doseAmount, d.quantityType),
        d.doseAmount,
        d.quantityType,
        d,
      ),
      time: d.time as IntakeTime,
      status: d.status,
    })),
    ...day.asNeeded.map((d) => ({
      key: `${d.supplementId}/${AS_NEEDED}`,
      date: day.date,
      supplementId: d.supplementId,
      name: d.name,
      amount: withStrength(
        d.doseAmount == null ? "" : dosePhrase(d.doseAmount, d.quantityType),
        d.doseAmount,
        d.quantityType,
        d,
      ),
      time: AS_NEEDED as IntakeTime,
      status: d.status,
      count: d.count ?? (d.status === "taken" ? 1 : 0),
      lastTakenAt: d.lastTakenAt ?? d.at,
      nextAllowedAt: d.nextAllowedAt ?? null,
      warning: d.warning,
      limits: d.limits ?? null,
    })),
  ];
}

/**
 * A day no answer was kept for, with no network (after midnight, say): its doses planned
 * from the list's current schedules, nothing logged (waiting ticks are laid over it).
 */
export function plannedDay(date: string, list: Supplement[]): Row[] {
  const row = (s: Supplement, time: IntakeTime): Row => {
    const amount = amountAt(s.schedule, time, s.doseAmount ?? null);
    const counted = time === AS_NEEDED ? { count: 0, lastTakenAt: null, limits: s.asNeeded ?? null } : {};
    return {
      ...counted,
      key: `${s.id}/${time}`,
      date,
      supplementId: s.id,
      name: s.name,
      amount: withStrength(amount == null ? "" : dosePhrase(amount, s.quantityType), amount, s.quantityType, s),
      time,
      status: null,
    };
  };
  const due = dueOn(list, date);
  return [...due.doses.map((d) => row(d.item, d.time)), ...due.asNeeded.map((s) => row(s, AS_NEEDED))];
}
