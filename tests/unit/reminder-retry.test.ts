/**
 * A delivery that fails or times out (api/reminders/outbox.ts afterFailure): retried with
 * back-off (30 s, 1, 2, 4, 5 min) a bounded number of times, then recorded as failed; never
 * retried past the retry window after its due time.
 */
import { expect, test } from "bun:test";
import { afterFailure, MAX_ATTEMPTS, retryDelayMs } from "../../api/reminders/outbox";

const DUE = Date.parse("2026-06-01T06:00:00Z");
const MIN = 60_000;

test.each([
  // [attempts so far, minutes after due, outcome, next try minutes after due]
  [1, 0, "pending", 0.5],
  [2, 1, "pending", 2],
  [3, 2, "pending", 4],
  [4, 4, "pending", 8],
  [5, 8, "pending", 13],
  [MAX_ATTEMPTS, 9, "failed", null],
  [MAX_ATTEMPTS + 3, 9, "failed", null],
  [3, 19, "failed", null], // the next try (+2 min) would come past the 20-minute window
  [3, 17, "pending", 19],
  [1, 19.75, "failed", null],
] as const)("attempt %p failed %p min after due: %s", (attempts, minutes, status, next) => {
  const outcome = afterFailure({ id: 1, attempts, dueAt: new Date(DUE).toISOString() }, new Date(DUE + minutes * MIN));
  expect(outcome.status).toBe(status);
  if (outcome.status === "pending") expect(Date.parse(outcome.nextAt)).toBe(DUE + (next as number) * MIN);
});

test("the back-off doubles from 30 s and stays at 5 minutes", () => {
  expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n) / 1000)).toEqual([30, 60, 120, 240, 300, 300, 300]);
});
