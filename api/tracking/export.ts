/**
 * For the account export (issue 15, /api/account/export): this user's logged doses, and the
 * schedule columns of a supplement for the JSON and the CSV. Plugged in at merge.
 */
import { asc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { intakes, type Supplement } from "../../db/schema";
import { formatDose, type IntakeTime, type Schedule, TIME_LABELS, WEEKDAY_SHORT_LABELS } from "../../src/lib/schedule";

export interface ExportedIntake {
  date: string;
  supplementId: number;
  name: string;
  time: IntakeTime;
  status: "taken" | "skipped";
  at: string;
  /** Issue 48: how many (an as-needed day's count; 1 for every other dose). */
  count: number;
}

/** Every logged dose of the user, oldest first: the export's `intakes`. */
export async function exportIntakes(db: Db, userId: string): Promise<ExportedIntake[]> {
  const rows = await db
    .select()
    .from(intakes)
    .where(eq(intakes.userId, userId))
    .orderBy(asc(intakes.date), asc(intakes.supplementId), asc(intakes.time));
  return rows.map((row) => ({
    date: row.date,
    supplementId: row.supplementId,
    name: row.name,
    time: row.time as IntakeTime,
    status: row.status as "taken" | "skipped",
    at: row.at.toISOString(),
    count: row.count,
  }));
}

/** The JSON export's extra fields of a supplement. */
export const scheduleJson = (row: Pick<Supplement, "schedule" | "doseAmount">) => ({
  schedule: row.schedule ?? null,
  doseAmount: row.doseAmount ?? null,
});

/** The supplements CSV's extra columns, in order. */
export const SCHEDULE_CSV_HEADERS = ["Times", "Days", "Amount", "Starts", "Ends", "Repeat", "Amounts"] as const;

/** Issue 48: 'Every 2 days', '5 days on, 2 off', '' for the chosen days. */
function repeatCell(schedule: Schedule): string {
  if (schedule.every) return `Every ${schedule.every.days} days`;
  if (schedule.cycle) return `${schedule.cycle.on} days on, ${schedule.cycle.off} off`;
  return "";
}

/**
 * 'Morning; Evening', 'Mon; Wed' (or 'Every day'), '2 Capsule(s)'; 'As needed' without a
 * schedule; then (issue 48) its start, end, repeat and amounts per time ('Morning 2; Evening 1').
 */
export function scheduleCsvCells(row: Pick<Supplement, "schedule" | "doseAmount" | "quantityType">): string[] {
  const schedule = row.schedule as Schedule | null;
  const times = schedule ? schedule.times.map((t) => TIME_LABELS[t]).join("; ") : TIME_LABELS["as-needed"];
  const days = !schedule
    ? ""
    : schedule.days.length === 7
      ? "Every day"
      : schedule.days.map((d) => WEEKDAY_SHORT_LABELS[d - 1]).join("; ");
  const amounts = Object.entries(schedule?.amounts ?? {})
    .map(([time, amount]) => `${TIME_LABELS[time as IntakeTime]} ${amount}`)
    .join("; ");
  return [
    times,
    days,
    formatDose(row.doseAmount ?? null, row.quantityType),
    schedule?.startsOn ?? "",
    schedule?.endsOn ?? "",
    schedule ? repeatCell(schedule) : "",
    amounts,
  ];
}
