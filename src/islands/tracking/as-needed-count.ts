/**
 * An as-needed row's count changed (issue 48), as Today shows it until the server answers.
 * Loaded with the as-needed row, out of the dashboard's first load.
 */
import { asNeededState } from "../../lib/as-needed";
import type { Row } from "./today-rows";

/**
 * An as-needed row with its count changed at `now` (ms) in `zone`, as the card shows it until the
 * server answers: a raise is the last dose; a lowering keeps the last dose it knows.
 */
export function withCount(row: Row, count: number, now: number, zone: string): Row {
  const raised = count > (row.count ?? 0);
  const log = raised
    ? { count, lastTakenAt: new Date(now).toISOString(), previousTakenAt: row.lastTakenAt ?? null }
    : { count, lastTakenAt: count > 0 ? (row.lastTakenAt ?? null) : null, previousTakenAt: null };
  const state = asNeededState(log, row.limits ?? null, now, zone);
  return {
    ...row,
    count,
    status: count > 0 ? "taken" : null,
    lastTakenAt: state.lastTakenAt,
    nextAllowedAt: state.nextAllowedAt ?? null,
    warning: state.warning,
  };
}
