/**
 * A supplement's schedule (times of day and ISO weekdays, or null for 'as needed') and its
 * amount per dose: the rules, the canonical order, the labels. Shared by the API and the
 * dialog; user-facing strings are here. Its zod schemas are in validation.ts, so that the
 * islands that only need the labels and rules here (Today, History) do not load zod.
 */

import { isDueOn } from "./due";
import type { IngredientJson } from "./ingredients";

/** The times of day with a clock time (also the reminded slots); `anytime` has none. */
export const TIMED_DOSE_TIMES = ["morning", "afternoon", "evening", "bedtime"] as const;
export const DOSE_TIMES = [...TIMED_DOSE_TIMES, "anytime"] as const;
export type DoseTime = (typeof DOSE_TIMES)[number];
/** The path segment of an as-needed intake. */
export const AS_NEEDED = "as-needed";
export type IntakeTime = DoseTime | typeof AS_NEEDED;
export const INTAKE_STATUSES = ["taken", "skipped"] as const;
export type IntakeStatus = (typeof INTAKE_STATUSES)[number];

export const TIME_LABELS: Record<IntakeTime, string> = {
  morning: "Morning",
  afternoon: "Afternoon",
  evening: "Evening",
  bedtime: "Bedtime",
  anytime: "Any time",
  "as-needed": "As needed",
};
export const WEEKDAY_LABELS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;
export const WEEKDAY_SHORT_LABELS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;
export const ALL_DAYS = [1, 2, 3, 4, 5, 6, 7] as const;

export interface Schedule {
  times: DoseTime[];
  days: number[];
  /** Issue 48 (src/lib/due.ts): nothing is due before it (YYYY-MM-DD); absent on schedules set before. */
  startsOn?: string;
  /** The last day anything is due; null or absent: no end. */
  endsOn?: string | null;
  /** Due every N days counted from startsOn. */
  every?: { days: number };
  /** Due `on` consecutive days, then nothing for `off` days, from startsOn. */
  cycle?: { on: number; off: number };
  /** An amount per time of day; a time without one takes the supplement's doseAmount. */
  amounts?: Partial<Record<DoseTime, number>>;
}

export const DEFAULT_SCHEDULE: Schedule = { times: ["anytime"], days: [1, 2, 3, 4, 5, 6, 7] };

export const TRACKING_MESSAGES = {
  scheduleShape: "Schedule must be an object with times and days, or null for as needed",
  times: "Choose at least one time: morning, afternoon, evening, bedtime, or any time",
  anytimeAlone: "Any time cannot be combined with other times",
  days: "Choose at least one day (1 = Monday … 7 = Sunday)",
  doseAmount: "Amount per dose must be a number above 0 and at most 1000, with at most two decimals",
  timeZone: "Please choose a valid time zone",
  date: "Date must be a real date written YYYY-MM-DD",
  future: "That day has not begun yet",
  tooOld: "Only today and the 7 days before it can be changed",
  time: "Unknown time",
  notScheduled: "That supplement is not scheduled at that time on that day",
  status: 'Status must be "taken" or "skipped"',
  asNeededTaken: "As-needed doses can only be marked taken",
  range: "The range must run from from to to, end no later than today and cover at most 366 days",
  notFound: "Supplement not found",
  doses: "Doses must list 1 to 200 different supplements and times",
  batchStatus: 'Status must be "taken", "skipped" or null',
  tickedAt: "tickedAt must be an ISO date-time within the last 8 days and not in the future",
} as const;

/** The most doses one PUT /api/intakes/{date} may set (a group of the longest list). */
export const BATCH_MAX = 200;

/** How far a tick's own time (tickedAt) may run ahead of the server's clock: device clocks drift. */
export const TICK_SKEW_MS = 5 * 60_000;

/** How many days before today may be viewed and corrected. */
export const EDITABLE_DAYS = 7;
export const HISTORY_MAX_DAYS = 366;
export const HISTORY_DEFAULT_DAYS = 84;
export const DOSE_AMOUNT_MAX = 1000;

/** Times in the day's order, days ascending; the optional fields (issue 48) only when given. */
export function canonicalSchedule(schedule: Schedule): Schedule {
  return {
    ...schedule,
    times: DOSE_TIMES.filter((time) => schedule.times.includes(time)),
    days: [...schedule.days].sort((a, b) => a - b),
  };
}

/** '2 Capsule(s)', '0.5 Tablet(s)'; '' without an amount: the CSV export's raw cell (screens use dose.ts). */
export function formatDose(doseAmount: number | null, quantityType: string): string {
  return doseAmount === null ? "" : `${doseAmount} ${quantityType}`;
}

/** Whether the schedule has a dose at `time` on `date` (the one rule: src/lib/due.ts). */
export const isScheduled = (schedule: Schedule | null, time: string, date: string): boolean =>
  schedule !== null && isDueOn(schedule, date) && (schedule.times as string[]).includes(time);

/**
 * A day's doses from its items' schedules (`date`, YYYY-MM-DD): each due (item, time) in the
 * day's order (by time, then the items' order), and the as-needed items (`schedule: null`).
 * Today on the server (api/tracking/queries.ts) and the card without a network share it.
 */
export function dueOn<T extends { schedule?: Schedule | null }>(
  items: readonly T[],
  date: string,
): { doses: { item: T; time: DoseTime }[]; asNeeded: T[] } {
  return {
    doses: DOSE_TIMES.flatMap((time) =>
      items.filter((item) => isScheduled(item.schedule ?? null, time, date)).map((item) => ({ item, time })),
    ),
    asNeeded: items.filter((item) => item.schedule === null),
  };
}

/** Wire shapes of the tracking API. */
export interface TodayDose {
  supplementId: number;
  name: string;
  quantityType: string;
  doseAmount: number | null;
  time: DoseTime;
  status: IntakeStatus | null;
  at: string | null;
  /** Issue 47: what a serving held that day; only on a supplement with ingredients. */
  servingSize?: number;
  ingredients?: IngredientJson[];
}
export interface TodayAsNeeded {
  supplementId: number;
  name: string;
  quantityType: string;
  doseAmount: number | null;
  status: "taken" | null;
  at: string | null;
  servingSize?: number;
  ingredients?: IngredientJson[];
  /** How many were taken that day (as-needed counts, issue 48); absent: one when `status` is taken. */
  count?: number;
  /** The latest tick that raised the count to where it is (ISO); null at 0. */
  lastTakenAt?: string | null;
  /** With limits: when the next dose is within them (ISO), null when free now (and on other days). */
  nextAllowedAt?: string | null;
  /** The last dose broke a limit (`That is more than your limit of 3 a day`, `Your next dose was due after 14:30`). */
  warning?: string;
  /** The supplement's limits, when it has any (src/lib/as-needed.ts). */
  limits?: import("./as-needed-input").AsNeededLimits;
}
export interface TodayJson {
  date: string;
  timeZone: string;
  doses: TodayDose[];
  asNeeded: TodayAsNeeded[];
  summary: { due: number; taken: number; skipped: number };
}
/**
 * A dose's state after a write: the write's own when `applied`, otherwise (a change made
 * before the stored one: docs/offline.md) the stored state, `null` when cleared.
 */
export interface IntakeJson {
  date: string;
  supplementId: number;
  time: IntakeTime;
  status: IntakeStatus | null;
  at: string;
  applied: boolean;
  /** Issue 48, an as-needed dose: the day's count and what Today says of it (TodayAsNeeded's fields). */
  count?: number;
  lastTakenAt?: string | null;
  nextAllowedAt?: string | null;
  warning?: string;
}
/** PUT /api/intakes/{date}: the doses asked, in order; `ignored`: those a later change kept. */
export interface IntakeBatchJson {
  date: string;
  status: IntakeStatus | null;
  doses: { supplementId: number; time: IntakeTime }[];
  ignored: { supplementId: number; time: IntakeTime }[];
}
export interface HistoryDay {
  date: string;
  due: number;
  taken: number;
  skipped: number;
  missed: number;
}
export interface HistoryJson {
  from: string;
  to: string;
  timeZone: string;
  days: HistoryDay[];
  adherence: number | null;
  currentStreak: number;
  longestStreak: number;
}

/**
 * The public page's groups (issue 19): Morning … Any time, then As needed, each with the
 * supplements scheduled then (an item in several groups appears in each), in list order.
 */
export function groupBySchedule<T extends { schedule?: Schedule | null }>(
  list: readonly T[],
): { time: IntakeTime; label: string; items: T[] }[] {
  const groups = DOSE_TIMES.map((time) => ({
    time: time as IntakeTime,
    label: TIME_LABELS[time],
    items: list.filter((item) => item.schedule?.times.includes(time)),
  }));
  groups.push({
    time: AS_NEEDED,
    label: TIME_LABELS[AS_NEEDED],
    items: list.filter((item) => item.schedule === null),
  });
  return groups.filter((group) => group.items.length > 0);
}
