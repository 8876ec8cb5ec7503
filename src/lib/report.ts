/**
 * The report for the doctor (issue 50 §2): its wire shape, range rules and messages, shared by
 * the API (api/report), the /report page and their tests.
 */
import { HISTORY_MAX_DAYS, TRACKING_MESSAGES } from "./schedule";

/** What became of a due dose; `open`: due today and not ticked yet, or on the day the supplement was added. */
export type ReportDoseStatus = "taken" | "skipped" | "missed" | "open";

export interface ReportSupplement {
  id: number;
  name: string;
  /** The dose phrase: `2 capsules`. */
  dose: string;
  /** The schedule in words: `Morning and evening, weekdays`; `As needed`. */
  schedule: string;
  asNeeded: boolean;
  /** Due doses in the range (0 for as needed). */
  due: number;
  /** Taken doses; as needed: how many were taken. */
  taken: number;
  skipped: number;
  missed: number;
  /** taken ÷ due as a whole percent; null as needed or with nothing due. */
  adherence: number | null;
  /** Still in the user's list (else removed since). */
  inList: boolean;
}

export interface ReportDay {
  date: string;
  /** Per supplement id, its doses of the day in the day's order (as needed: one `taken` each). */
  cells: Record<number, ReportDoseStatus[]>;
}

/** One CSV row: a due dose, or an as-needed dose taken. */
export interface ReportDose {
  date: string;
  /** `morning` … `anytime`, or `as-needed`. */
  time: string;
  supplementId: number;
  supplement: string;
  amount: number | null;
  unit: string;
  status: ReportDoseStatus;
  tickedAt: string | null;
}

export interface ReportJson {
  from: string;
  to: string;
  today: string;
  timeZone: string;
  supplements: ReportSupplement[];
  /** Every supplement in the stack on some day of the range, asked for or not. */
  available: { id: number; name: string }[];
  days: ReportDay[];
  doses: ReportDose[];
}

export const REPORT_DEFAULT_DAYS = 30;
/** The history's range rule (api/tracking/queries.ts `dayRange`). */
export const REPORT_MAX_DAYS = HISTORY_MAX_DAYS;
/** At most this many ids in `supplements` (a list holds at most 200). */
export const REPORT_MAX_IDS = 200;

export const REPORT_CSV_HEADER = ["date", "time", "supplement", "amount", "unit", "status", "ticked_at"] as const;

export const REPORT_MESSAGES = {
  /** The range's messages are the history's: one rule, one wording. */
  date: TRACKING_MESSAGES.date,
  range: TRACKING_MESSAGES.range,
  supplements: "supplements must be ids of your supplements, separated by commas",
} as const;
