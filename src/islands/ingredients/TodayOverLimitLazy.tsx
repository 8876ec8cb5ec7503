import { lazy, Suspense } from "react";

const TodayOverLimit = lazy(() => import("./TodayOverLimit"));

/** Today's over-the-limit warning (issue 47), loaded only for a list with ingredients (the dashboard's budget). */
export default function TodayOverLimitLazy({ date }: { date: string }) {
  return (
    <Suspense fallback={null}>
      <TodayOverLimit date={date} />
    </Suspense>
  );
}
