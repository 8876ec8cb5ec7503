import { useStore } from "@nanostores/react";
import { useEffect, useId, useState } from "react";
import { errorMessage } from "../lib/api";
import { formatShort } from "../lib/date-format";
import {
  DEFAULT_INSIGHTS_RANGE,
  INSIGHTS_RANGES,
  type InsightsAnswer,
  type InsightsRange,
  insightsSummary,
} from "../lib/insights";
import type { CurrentUser } from "../lib/types";
import { $linkClicks30, loadInsights } from "../stores/insights";
import { $user, seedUser } from "../stores/user";

const shortDate = (date: string) => formatShort(date);

/** What an Insights card with no views shows instead of an empty chart (issue 38). */
export const INSIGHTS_EMPTY =
  "No one has visited your public page in this period yet. Share your link and visits will show here.";

/**
 * The dashboard's Insights card (issue 14): profile views and visitors for 7, 30 or 90 days with
 * a bar chart of daily views (a picture for sighted users; screen readers get the summary and the
 * table), and for premium members clicks per affiliate link.
 */
export default function InsightsCard({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  useStore($linkClicks30);
  const [range, setRange] = useState<InsightsRange>(DEFAULT_INSIGHTS_RANGE);
  const [data, setData] = useState<InsightsAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  useEffect(() => {
    let current = true;
    setError(null);
    loadInsights(range).then(
      (answer) => current && setData(answer),
      (failure) => current && setError(errorMessage(failure, "Failed to load insights")),
    );
    return () => {
      current = false;
    };
  }, [range]);

  const max = Math.max(1, ...(data?.days.map((d) => d.views) ?? [0]));
  const copiesOn = new Map(data?.copies.days.map((d) => [d.date, d.copies]) ?? []);
  return (
    <section className="card p-4 sm:p-6" aria-labelledby={`${id}-heading`} id="insights">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id={`${id}-heading`} className="text-lg font-semibold text-slate-900">
          Insights
        </h2>
        <fieldset className="flex rounded-lg border border-slate-300 p-0.5">
          <legend className="sr-only">Range</legend>
          {INSIGHTS_RANGES.map((days) => (
            <label
              key={days}
              className={`cursor-pointer rounded-md px-2.5 py-1 text-sm font-medium has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-brand-600 ${range === days ? "bg-slate-900 text-white" : "text-slate-700 hover:bg-slate-100"}`}
            >
              <input
                type="radio"
                name={`${id}-range`}
                value={days}
                checked={range === days}
                onChange={() => setRange(days)}
                className="sr-only"
              />
              {days} days
            </label>
          ))}
        </fieldset>
      </div>
      {error ? (
        <p className="mt-4 text-sm text-red-700" role="alert">
          {error}
        </p>
      ) : !data ? (
        <p className="mt-4 text-sm text-slate-600" aria-busy="true">
          Loading insights...
        </p>
      ) : (
        <>
          <dl className="mt-4 grid grid-cols-2 gap-3 sm:grid-cols-3">
            <div className="rounded-xl bg-slate-50 p-3">
              <dt className="text-sm text-slate-600">Profile views</dt>
              <dd className="text-2xl font-bold text-slate-900" data-testid="insights-views">
                {data.totals.views}
              </dd>
            </div>
            <div className="rounded-xl bg-slate-50 p-3">
              <dt className="text-sm text-slate-600">Visitors</dt>
              <dd className="text-2xl font-bold text-slate-900" data-testid="insights-visitors">
                {data.totals.visitors}
              </dd>
            </div>
            <div className="rounded-xl bg-slate-50 p-3">
              <dt className="text-sm text-slate-600">Copies</dt>
              <dd className="text-2xl font-bold text-slate-900" data-testid="insights-copies">
                {data.copies.total}
              </dd>
            </div>
            {user.isPremium && (
              <div className="rounded-xl bg-slate-50 p-3">
                <dt className="text-sm text-slate-600">Link clicks</dt>
                <dd className="text-2xl font-bold text-slate-900" data-testid="insights-clicks">
                  {data.totals.clicks}
                </dd>
              </div>
            )}
          </dl>
          <p className="mt-4 text-sm text-slate-700" id={`${id}-summary`}>
            {insightsSummary(data, user.isPremium)}
          </p>
          {data.totals.views === 0 ? (
            <p className="mt-3 rounded-xl border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600">
              {INSIGHTS_EMPTY}
            </p>
          ) : (
            <>
              <div className="mt-3 flex h-32 items-end gap-px border-b border-slate-300" aria-hidden="true">
                {data.days.map((day) => (
                  <div
                    key={day.date}
                    className="min-w-0 flex-1 rounded-t-sm bg-brand-500"
                    style={{ height: `${(day.views / max) * 100}%` }}
                    title={`${shortDate(day.date)}: ${day.views} views`}
                  />
                ))}
              </div>
              <div className="mt-1 flex justify-between text-xs text-slate-600" aria-hidden="true">
                <span>{shortDate(data.from)}</span>
                <span>{shortDate(data.to)}</span>
              </div>
            </>
          )}
          <details className="mt-3">
            <summary className="cursor-pointer text-sm font-medium text-slate-700">Daily numbers</summary>
            <div className="mt-2 max-h-64 overflow-y-auto">
              <table className="w-full text-left text-sm">
                <caption className="sr-only">
                  Profile views, visitors and copies per day, {data.days.length} days
                </caption>
                <thead>
                  <tr className="text-slate-600">
                    <th scope="col" className="py-1 font-medium">
                      Date
                    </th>
                    <th scope="col" className="py-1 text-right font-medium">
                      Views
                    </th>
                    <th scope="col" className="py-1 text-right font-medium">
                      Visitors
                    </th>
                    <th scope="col" className="py-1 text-right font-medium">
                      Copies
                    </th>
                    {user.isPremium && (
                      <th scope="col" className="py-1 text-right font-medium">
                        Clicks
                      </th>
                    )}
                  </tr>
                </thead>
                <tbody>
                  {[...data.days].reverse().map((day) => (
                    <tr key={day.date} className="border-t border-slate-100">
                      <th scope="row" className="py-1 font-normal text-slate-700">
                        {shortDate(day.date)}
                      </th>
                      <td className="py-1 text-right text-slate-900">{day.views}</td>
                      <td className="py-1 text-right text-slate-900">{day.visitors}</td>
                      <td className="py-1 text-right text-slate-900">{copiesOn.get(day.date) ?? 0}</td>
                      {user.isPremium && <td className="py-1 text-right text-slate-900">{day.clicks}</td>}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
          {data.copies.supplements.length > 0 && (
            <div className="mt-5">
              <h3 className="font-semibold text-slate-900">Copies per supplement</h3>
              <ul className="mt-2 divide-y divide-slate-100" data-testid="insights-copies-list">
                {data.copies.supplements.map((row) => (
                  <li key={row.supplementId} className="flex items-center justify-between gap-3 py-2 text-sm">
                    <span className="user-text min-w-0 text-slate-800">{row.name}</span>
                    <span className="shrink-0 font-semibold text-slate-900">
                      {row.copies} {row.copies === 1 ? "copy" : "copies"}
                    </span>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {user.isPremium ? (
            <div className="mt-5">
              <h3 className="font-semibold text-slate-900">Clicks per affiliate link</h3>
              {data.links.length === 0 ? (
                <p className="mt-2 text-sm text-slate-600">No affiliate links yet.</p>
              ) : (
                <ul className="mt-2 divide-y divide-slate-100" data-testid="insights-links">
                  {data.links.map((link) => (
                    <li key={link.supplementId} className="flex items-center justify-between gap-3 py-2 text-sm">
                      <span className="user-text min-w-0 text-slate-800">{link.name}</span>
                      <span className="shrink-0 font-semibold text-slate-900">
                        {link.clicks} {link.clicks === 1 ? "click" : "clicks"}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ) : (
            <div className="mt-5 rounded-xl border border-premium-100 bg-premium-50 p-4">
              <p className="text-sm text-slate-800">
                Premium members see how many visitors click each of their affiliate links.
              </p>
              <a href="/subscribe" className="btn btn-premium btn-sm mt-3">
                Upgrade to Premium
              </a>
            </div>
          )}
        </>
      )}
    </section>
  );
}
