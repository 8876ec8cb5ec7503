import { useStore } from "@nanostores/react";
import { useEffect } from "react";
import { $supplements } from "../../stores/supplements";
import { $totals, loadTotals } from "../../stores/totals";
import { $trackingChanges } from "../../stores/tracking";
import OverLimitLines from "./OverLimitLines";

/** Today's warning (issue 47): the day's over-the-limit lines, once, above the checklist. */
export default function TodayOverLimit({ date }: { date: string }) {
  const totals = useStore($totals)[date];
  const changes = useStore($trackingChanges);
  const list = useStore($supplements);
  useEffect(() => {
    void changes;
    void list;
    if (navigator.onLine !== false) void loadTotals(date);
  }, [date, changes, list]);
  if (!totals || totals === "failed") return null;
  return (
    <div className="mt-3">
      <OverLimitLines nutrients={totals.nutrients} testId="today-over-limit" />
    </div>
  );
}
