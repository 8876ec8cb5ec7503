/**
 * Issue 48: the bounds and messages of a schedule's start, end, repeat and amounts, for the
 * body's rules (validation.ts, loaded with the dialog) and the server's (api/tracking/
 * schedule-input.ts); apart from schedule.ts so that the dashboard's first paint does not load them.
 */
/** Issue 48: the bounds of `every.days`, of a cycle's runs, and of how far startsOn may lie from today. */
export const EVERY_MIN = 2;
export const EVERY_MAX = 60;
export const CYCLE_MAX = 365;
export const STARTS_ON_REACH_DAYS = 366;

export const SCHEDULE_RULE_MESSAGES = {
  startsOn: "Start must be a real date written YYYY-MM-DD, at most 366 days before or after today",
  endsOn: "End must be a real date written YYYY-MM-DD, on or after the start, or null for no end",
  every: "Every must be { days: N } with N a whole number from 2 to 60",
  cycle: "Cycle must be { on: N, off: M } with whole numbers from 1 to 365",
  everyAndCycle: "Choose every N days or a cycle, not both",
  daysWithPattern: "Every N days and cycles count all seven days: leave days out or list all seven",
  amounts: "Amounts must map times of day to amounts above 0 and at most 1000, with at most two decimals",
  amountsTimes: "Amounts may only name times listed in times",
} as const;
