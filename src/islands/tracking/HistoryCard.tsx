/**
 * The dashboard's History card (issues 19, 38): a heatmap of up to 12 weeks, or the weeks since
 * the account began (weeks as columns under their month, weekday initials on the rows), each
 * cell named ('Mon 16 Nov: 4 of 5 taken'); the streaks with today's progress beside them, the
 * adherence of the last 30 days, and a legend in words (src/lib/heatmap.ts) that says how skips
 * count. CSS grid only.
 */
import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import { api, errorMessage, isOffline } from "../../lib/api";
import { addDays, dateIn, daysBetween, isoWeekday, shortDayLabel } from "../../lib/dates";
import {
  allDoneSkipped,
  HEATMAP_LABELS,
  HEATMAP_LEVELS,
  HEATMAP_NOTE,
  type HeatmapLevel,
  heatmapLevel,
} from "../../lib/heatmap";
import { type HistoryDay, type HistoryJson, WEEKDAY_SHORT_LABELS } from "../../lib/schedule";
import { adherence } from "../../lib/streaks";
import { notify } from "../../lib/toast";
import type { CurrentUser } from "../../lib/types";
import { $supplements } from "../../stores/supplements";
import { $trackingChanges } from "../../stores/tracking";
import { $user, seedUser } from "../../stores/user";

const WEEKS = 12;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

/** The Monday the heatmap starts on: 11 weeks before this week's, or the account's first week's if later. */
function firstMonday(today: string, joined: string | null): string {
  const twelveWeeks = addDays(today, -(7 * (WEEKS - 1) + isoWeekday(today) - 1));
  if (!joined || joined <= twelveWeeks || joined > today) return twelveWeeks;
  return addDays(joined, -(isoWeekday(joined) - 1));
}

/** Each column's month name, where a month begins (and on the first column, unless the next begins one). */
function monthLabels(from: string, weeks: number): (string | null)[] {
  const monthOf = (week: number) => Number(addDays(from, week * 7 + 6).slice(5, 7));
  return Array.from({ length: weeks }, (_, week) => {
    const month = monthOf(week);
    const starts = week === 0 ? weeks === 1 || monthOf(1) === month : monthOf(week - 1) !== month;
    return starts ? (MONTHS[month - 1] ?? null) : null;
  });
}

function cellName(day: HistoryDay, today: string): string {
  const label = shortDayLabel(day.date);
  const suffix = day.date === today ? " (today)" : "";
  if (day.due === 0) return `${label}: nothing due${suffix}`;
  // A done day with skips (issue 51): never 'all taken'.
  if (heatmapLevel(day, day.date === today) === "skipped") return `${label}: ${allDoneSkipped(day.skipped)}${suffix}`;
  return `${label}: ${day.taken} of ${day.due} taken${suffix}`;
}

/** Each level's look, for the cells and the legend alike. */
const LEVEL_CLASS: Record<HeatmapLevel, string> = {
  none: "border border-dashed border-slate-400 bg-white",
  pending: "bg-slate-200",
  zero: "bg-red-300",
  low: "bg-brand-200",
  high: "bg-brand-500",
  // A colour of its own (blue beside the greens), 4:1 against the card's white.
  skipped: "bg-sky-600",
  all: "bg-brand-800",
};
const TODAY_CLASS = "ring-2 ring-slate-900 ring-offset-1";

function cellClass(day: HistoryDay, today: string): string {
  const level = LEVEL_CLASS[heatmapLevel(day, day.date === today)];
  return day.date === today ? `${level} ${TODAY_CLASS}` : level;
}

export default function HistoryCard({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const changes = useStore($trackingChanges);
  const list = useStore($supplements);
  const user = useStore($user) ?? initialUser;
  const zone = user.timeZone;
  const [history, setHistory] = useState<HistoryJson | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reloads after a tick, a list change or a zone change
  useEffect(() => {
    let live = true;
    // Whole weeks as columns, in one request.
    const inZone = zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    const today = dateIn(inZone, Date.now());
    const from = firstMonday(today, user.createdAt ? dateIn(inZone, new Date(user.createdAt)) : null);
    api
      .get<HistoryJson>(`/api/history?from=${from}`)
      .then((full) => {
        if (live) setHistory(full);
      })
      .catch((error) => {
        // Offline (no server reached): the card keeps what it had, no toast (issue 51).
        if (live && !isOffline(error)) notify.error(errorMessage(error, "Failed to load your history"));
      });
    return () => {
      live = false;
    };
  }, [changes, list, zone, user.createdAt]);

  const today = history?.to ?? "";
  const from = history?.from ?? "";
  const weeks = history ? Math.floor(daysBetween(from, today) / 7) + 1 : 0;
  const todayDay = history?.days.find((d) => d.date === today);
  const recent = history ? history.days.filter((d) => daysBetween(d.date, today) < 30) : [];
  const rate = history ? adherence(recent, today) : null;
  // Today's progress beside the streak: an unfinished today is not a broken streak.
  const progress =
    !todayDay || todayDay.due === 0 ? "Today: nothing due" : `Today: ${todayDay.taken} of ${todayDay.due}`;
  const stats: [string, string, string?][] = history
    ? [
        ["Current streak", `${history.currentStreak} ${history.currentStreak === 1 ? "day" : "days"}`, progress],
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
            className="mt-4 grid justify-start gap-1 text-xs text-slate-700"
            style={{
              // Under 3 weeks a column is wide enough for its month's name.
              gridTemplateColumns: `auto repeat(${weeks}, ${weeks < 3 ? "1.75rem" : "minmax(0, 1.25rem)"})`,
              gridTemplateRows: "auto repeat(7, minmax(0, 1.25rem))",
            }}
            role="group"
            aria-label={`The last ${weeks} ${weeks === 1 ? "week" : "weeks"}, one column per week`}
            data-testid="heatmap"
          >
            {monthLabels(from, weeks).map(
              (month, week) =>
                month && (
                  <span
                    key={addDays(from, week * 7)}
                    aria-hidden="true"
                    className="overflow-visible leading-4 whitespace-nowrap"
                    style={{ gridRow: 1, gridColumn: `${week + 2} / span ${Math.min(3, weeks - week)}` }}
                    data-testid="heatmap-month"
                  >
                    {month}
                  </span>
                ),
            )}
            {WEEKDAY_SHORT_LABELS.map((weekday, i) => (
              <span
                key={weekday}
                aria-hidden="true"
                className="flex items-center pr-1 leading-none"
                style={{ gridRow: i + 2, gridColumn: 1 }}
                data-testid="heatmap-weekday"
              >
                {weekday[0]}
              </span>
            ))}
            {history.days.map((day) => (
              <div
                key={day.date}
                role="img"
                aria-label={cellName(day, today)}
                title={cellName(day, today)}
                className={`aspect-square rounded-sm ${cellClass(day, today)}`}
                style={{
                  gridRow: isoWeekday(day.date) + 1,
                  gridColumn: Math.floor(daysBetween(from, day.date) / 7) + 2,
                }}
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
          <p className="mt-2 text-xs text-slate-700" data-testid="heatmap-note">
            {HEATMAP_NOTE}
          </p>
          <dl className="mt-4 grid grid-cols-[repeat(auto-fit,minmax(6.5rem,1fr))] gap-2">
            {stats.map(([label, value, beside]) => (
              <div key={label} className="min-w-0 rounded-xl bg-slate-50 p-2 text-center">
                <dt className="text-xs text-slate-700">{label}</dt>
                <dd className="mt-0.5 text-lg font-semibold text-slate-900">{value}</dd>
                {beside && (
                  <dd className="text-xs text-slate-700" data-testid="today-progress">
                    {beside}
                  </dd>
                )}
              </div>
            ))}
          </dl>
          <p className="mt-3 text-sm" data-print="hide">
            <a href="/report" className="font-medium text-brand-800 underline">
              Report for your doctor
            </a>
          </p>
        </>
      )}
    </section>
  );
}
