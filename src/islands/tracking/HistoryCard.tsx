/**
 * The dashboard's History card (issue 19): a 12-week heatmap (weeks as columns, Monday on
 * top), each cell named ('Mon 16 Nov: 4 of 5 taken'), with the current and longest streaks
 * and the adherence of the last 30 days, and a legend in words for every colour and the
 * today marker (src/lib/heatmap.ts: one table for both). A few lines of CSS grid, no component.
 */
import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import { api, errorMessage } from "../../lib/api";
import { addDays, dateIn, daysBetween, isoWeekday, shortDayLabel } from "../../lib/dates";
import { HEATMAP_LABELS, HEATMAP_LEVELS, type HeatmapLevel, heatmapLevel } from "../../lib/heatmap";
import type { HistoryDay, HistoryJson } from "../../lib/schedule";
import { adherence } from "../../lib/streaks";
import { notify } from "../../lib/toast";
import { $supplements } from "../../stores/supplements";
import { $trackingChanges } from "../../stores/tracking";
import { $user } from "../../stores/user";

const WEEKS = 12;

function cellName(day: HistoryDay, today: string): string {
  const label = shortDayLabel(day.date);
  const suffix = day.date === today ? " (today)" : "";
  if (day.due === 0) return `${label}: nothing due${suffix}`;
  return `${label}: ${day.taken} of ${day.due} taken${suffix}`;
}

/** Each level's look, for the cells and the legend alike. */
const LEVEL_CLASS: Record<HeatmapLevel, string> = {
  none: "border border-dashed border-slate-400 bg-white",
  pending: "bg-slate-200",
  zero: "bg-red-300",
  low: "bg-brand-200",
  high: "bg-brand-500",
  all: "bg-brand-800",
};
const TODAY_CLASS = "ring-2 ring-slate-900 ring-offset-1";

function cellClass(day: HistoryDay, today: string): string {
  const level = LEVEL_CLASS[heatmapLevel(day)];
  return day.date === today ? `${level} ${TODAY_CLASS}` : level;
}

export default function HistoryCard() {
  const changes = useStore($trackingChanges);
  const list = useStore($supplements);
  const zone = useStore($user)?.timeZone;
  const [history, setHistory] = useState<HistoryJson | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reloads after a tick, a list change or a zone change
  useEffect(() => {
    let live = true;
    // From the Monday 11 weeks before this week's: whole weeks as columns, in one request.
    const today = dateIn(zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone, Date.now());
    const from = addDays(today, -(7 * (WEEKS - 1) + isoWeekday(today) - 1));
    api
      .get<HistoryJson>(`/api/history?from=${from}`)
      .then((full) => {
        if (live) setHistory(full);
      })
      .catch((error) => {
        if (live) notify.error(errorMessage(error, "Failed to load your history"));
      });
    return () => {
      live = false;
    };
  }, [changes, list, zone]);

  const today = history?.to ?? "";
  const recent = history ? history.days.filter((d) => daysBetween(d.date, today) < 30) : [];
  const rate = history ? adherence(recent, today) : null;
  const stats: [string, string][] = history
    ? [
        ["Current streak", `${history.currentStreak} ${history.currentStreak === 1 ? "day" : "days"}`],
        ["Longest streak", `${history.longestStreak} ${history.longestStreak === 1 ? "day" : "days"}`],
        ["Adherence (30 days)", rate === null ? "–" : `${Math.round(rate * 100)}%`],
      ]
    : [];

  return (
    <section className="card p-4 sm:p-6" aria-labelledby="history-heading" data-testid="history-card">
      <h2 id="history-heading" className="text-lg font-semibold text-slate-900">
        History
      </h2>
      {!history ? (
        <div className="mt-4 h-32 animate-pulse rounded-xl bg-slate-100" role="status">
          <span className="sr-only">Loading history</span>
        </div>
      ) : (
        <>
          {/* biome-ignore lint/a11y/useSemanticElements: a grid of named cells, not a form group */}
          <div
            className="mt-4 grid grid-flow-col grid-rows-7 gap-1"
            style={{ gridTemplateColumns: `repeat(${WEEKS}, minmax(0, 1.25rem))` }}
            role="group"
            aria-label="The last 12 weeks, one column per week"
            data-testid="heatmap"
          >
            {history.days.map((day) => (
              <div
                key={day.date}
                role="img"
                aria-label={cellName(day, today)}
                title={cellName(day, today)}
                className={`aspect-square rounded-sm ${cellClass(day, today)}`}
                data-testid="heatmap-cell"
              />
            ))}
          </div>
          <ul
            className="mt-3 flex flex-wrap gap-x-3 gap-y-1.5 text-xs text-slate-700"
            aria-label="Colour key"
            data-testid="heatmap-legend"
          >
            {[...HEATMAP_LEVELS, "today" as const].map((level) => (
              <li key={level} className="flex items-center gap-1.5">
                <span
                  aria-hidden="true"
                  className={`inline-block size-3 shrink-0 rounded-sm ${level === "today" ? `bg-white ${TODAY_CLASS}` : LEVEL_CLASS[level]}`}
                />
                {HEATMAP_LABELS[level]}
              </li>
            ))}
          </ul>
          <dl className="mt-4 grid grid-cols-[repeat(auto-fit,minmax(6.5rem,1fr))] gap-2">
            {stats.map(([label, value]) => (
              <div key={label} className="min-w-0 rounded-xl bg-slate-50 p-2 text-center">
                <dt className="text-xs text-slate-700">{label}</dt>
                <dd className="mt-0.5 text-lg font-semibold text-slate-900">{value}</dd>
              </div>
            ))}
          </dl>
        </>
      )}
    </section>
  );
}
