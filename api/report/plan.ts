/**
 * The report for the doctor (issue 50 §2), planned from what is stored: each day of the range
 * takes each supplement's version in force that day, its due doses by the one due rule
 * (src/lib/due.ts, as Today, history and the calendar feed plan them) and the doses logged.
 * A due dose is `taken` or `skipped` as ticked; else `missed` once its day has ended, except on
 * the day the supplement was added (as GET /api/history counts it: a supplement added in the
 * evening did not miss its morning); else `open`. As-needed doses are never due: each one
 * taken is a row of its own. Pure: api/report/read.ts reads the rows.
 */
import { addDays } from "../../src/lib/dates";
import { dosePhrase, scheduleSentence } from "../../src/lib/dose";
import { amountAt, isDueOn, versionOn } from "../../src/lib/due";
import type { ReportDay, ReportDose, ReportDoseStatus, ReportJson, ReportSupplement } from "../../src/lib/report";
import { AS_NEEDED, DOSE_TIMES, type Schedule } from "../../src/lib/schedule";

export interface PlanVersion {
  supplementId: number;
  validFrom: string;
  name: string;
  quantityType: string;
  doseAmount: number | null;
  schedule: Schedule | null;
  deleted: boolean;
}

export interface PlanIntake {
  date: string;
  supplementId: number;
  time: string;
  status: "taken" | "skipped";
  at: Date;
  count: number;
}

export interface PlanInput {
  from: string;
  to: string;
  today: string;
  timeZone: string;
  /** Every version of the user's supplements, any order. */
  versions: PlanVersion[];
  /** The doses logged in the range. */
  intakes: PlanIntake[];
  /** The supplements asked for; null: all. */
  only: ReadonlySet<number> | null;
  /** List order of the supplements still in the list (others after them). */
  order: ReadonlyMap<number, number>;
}

/** Whole percent of `taken` over `due`; null when nothing was due. */
export const adherencePercent = (taken: number, due: number): number | null =>
  due === 0 ? null : Math.round((100 * taken) / due);

export function planReport(input: PlanInput): ReportJson {
  const byId = new Map<number, PlanVersion[]>();
  for (const v of input.versions) byId.set(v.supplementId, [...(byId.get(v.supplementId) ?? []), v]);
  // The day each supplement was added: its first version.
  const addedOn = new Map<number, string>();
  for (const [id, versions] of byId) addedOn.set(id, versions.map((v) => v.validFrom).sort()[0] ?? "");
  // Every supplement in the stack on some day of the range, asked for or not (the page's choices).
  const available = new Map<number, string>();
  const logged = new Map<string, PlanIntake>();
  for (const i of input.intakes) logged.set(`${i.date}/${i.supplementId}/${i.time}`, i);

  const stats = new Map<number, ReportSupplement>();
  const doses: ReportDose[] = [];
  const days: ReportDay[] = [];
  for (let date = input.from; date <= input.to; date = addDays(date, 1)) {
    const cells: ReportDay["cells"] = {};
    for (const [id, versions] of byId) {
      const v = versionOn(versions, date);
      if (!v || v.deleted) continue;
      available.set(id, v.name);
      if (input.only && !input.only.has(id)) continue;
      // Named, dosed and scheduled as in its latest version in the range.
      const row = { ...(stats.get(id) ?? newRow(v)), ...wordsOf(v) };
      stats.set(id, row);
      const marks: ReportDoseStatus[] = [];
      if (v.schedule === null) {
        const taken = logged.get(`${date}/${id}/${AS_NEEDED}`);
        if (taken?.status === "taken") {
          for (let n = 0; n < taken.count; n++) {
            doses.push(doseOf(date, v, AS_NEEDED, "taken", taken.at));
            marks.push("taken");
          }
          row.taken += taken.count;
        }
      } else if (isDueOn(v.schedule, date)) {
        for (const time of DOSE_TIMES) {
          if (!(v.schedule.times as string[]).includes(time)) continue;
          const log = logged.get(`${date}/${id}/${time}`);
          const status: ReportDoseStatus =
            log?.status ?? (date < input.today && date !== addedOn.get(id) ? "missed" : "open");
          row.due++;
          if (status !== "open") row[status]++;
          marks.push(status);
          doses.push(doseOf(date, v, time, status, log?.at ?? null));
        }
      }
      if (marks.length) cells[id] = marks;
    }
    days.push({ date, cells });
  }
  const listOrder = (a: { id: number }, b: { id: number }) =>
    (input.order.get(a.id) ?? Number.MAX_SAFE_INTEGER) - (input.order.get(b.id) ?? Number.MAX_SAFE_INTEGER) ||
    a.id - b.id;
  const supplements = [...stats.values()]
    .map((row) => ({
      ...row,
      adherence: row.asNeeded ? null : adherencePercent(row.taken, row.due),
      inList: input.order.has(row.id),
    }))
    .sort(listOrder);
  return {
    from: input.from,
    to: input.to,
    today: input.today,
    timeZone: input.timeZone,
    supplements,
    available: [...available].map(([id, name]) => ({ id, name })).sort(listOrder),
    days,
    doses,
  };
}

const wordsOf = (v: PlanVersion) => ({
  name: v.name,
  dose: dosePhrase(v.doseAmount, v.quantityType),
  schedule: scheduleSentence(v.schedule),
  asNeeded: v.schedule === null,
});

function newRow(v: PlanVersion): ReportSupplement {
  return {
    id: v.supplementId,
    ...wordsOf(v),
    due: 0,
    taken: 0,
    skipped: 0,
    missed: 0,
    adherence: null,
    inList: false,
  };
}

function doseOf(date: string, v: PlanVersion, time: string, status: ReportDoseStatus, at: Date | null): ReportDose {
  return {
    date,
    time,
    supplementId: v.supplementId,
    supplement: v.name,
    amount: amountAt(v.schedule, time, v.doseAmount),
    unit: v.quantityType,
    status,
    tickedAt: at ? at.toISOString() : null,
  };
}
