import type { Schedule, ScheduleStatus } from "../lib/due";
import { scheduleStatusLine } from "../lib/schedule-status";

/** Issue 48: the row's line of where the schedule stands today (`Day 3 of 21`, `Off until …`); nothing otherwise. */
export default function ScheduleStatusLine({
  schedule,
  status,
  today,
}: {
  schedule?: Schedule | null;
  status?: ScheduleStatus | null;
  today: string;
}) {
  const line = scheduleStatusLine(schedule, status, today);
  if (!line) return null;
  return (
    <p className="mt-1 text-sm text-slate-700" data-testid="row-schedule-status">
      {line}
    </p>
  );
}
