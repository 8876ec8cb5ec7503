/**
 * The user's time zone, shown and changed (issue 19; searchable and grouped, issue 38). 'Today'
 * on the dashboard is the date in this zone.
 */
import { useStore } from "@nanostores/react";
import { Fragment, useEffect, useId, useMemo, useState } from "react";
import Field from "../../components/Field";
import { ApiError, api } from "../../lib/api";
import { browserZone } from "../../lib/dates";
import type { CurrentUser } from "../../lib/types";
import { $user, seedUser } from "../../stores/user";
import { useSaveOnChange } from "./save-on-change";

export const TIME_ZONE_SAVED = "Time zone saved";

/** The zone's offset from UTC now, as `UTC+05:30` (`UTC` itself for zero). */
function offsetOf(zone: string, at: Date): string {
  try {
    const name = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" })
      .formatToParts(at)
      .find((p) => p.type === "timeZoneName")?.value;
    return !name || name === "GMT" || name === "GMT+00:00" ? "UTC" : name.replace("GMT", "UTC");
  } catch {
    return "";
  }
}

interface ZoneOption {
  zone: string;
  /** `Argentina / Comod Rivadavia (UTC-03:00)`: the zone without its region, and its offset. */
  label: string;
  region: string;
  search: string;
}

/** Every zone the browser knows (and `extra`), grouped by region, each with its offset now. */
function zoneOptions(extra: (string | null)[]): ZoneOption[] {
  let zones: string[] = [];
  try {
    zones = Intl.supportedValuesOf("timeZone");
  } catch {
    zones = [];
  }
  for (const zone of ["UTC", ...extra]) if (zone && !zones.includes(zone)) zones.push(zone);
  const now = new Date();
  return zones.sort().map((zone) => {
    const slash = zone.indexOf("/");
    const region = slash > 0 ? zone.slice(0, slash) : "Other";
    const place = (slash > 0 ? zone.slice(slash + 1) : zone).replaceAll("_", " ").replaceAll("/", " / ");
    const label = `${place} (${offsetOf(zone, now)})`;
    return { zone, label, region, search: `${zone} ${label}`.replaceAll("_", " ").toLowerCase() };
  });
}

/**
 * The zone picker: a search box filters a list grouped by region with each zone's offset, the
 * browser's zone first as a suggestion. A choice saves on change, like every setting
 * (src/islands/settings/save-on-change.ts). The list is built after hydration (the server's and
 * the browser's zone lists differ), so the server renders the current zone alone.
 */
export default function TimeZoneCard({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  const id = useId();
  const [detected, setDetected] = useState<string | null>(null);
  useEffect(() => setDetected(browserZone()), []);
  const options = useMemo(() => (detected ? zoneOptions([detected, user.timeZone]) : []), [detected, user.timeZone]);
  const [error, setError] = useState<string | null>(null);
  const saver = useSaveOnChange<{ timeZone: string }>(
    async ({ timeZone }) => {
      setError(null);
      const updated = await api.put<CurrentUser>("/api/profile", { timeZone }, { keepalive: true });
      $user.set(updated);
      return { timeZone: updated.timeZone ?? "UTC" };
    },
    {
      saved: TIME_ZONE_SAVED,
      failed: "Failed to save your time zone",
      onError: (e) => {
        if (e instanceof ApiError && e.errors?.timeZone) setError(e.errors.timeZone[0] ?? null);
      },
    },
  );
  // Until the user picks one, the zone in force is UTC (the browser's own is offered first).
  const { reset } = saver;
  useEffect(() => reset({ timeZone: initialUser.timeZone ?? "UTC" }), [reset, initialUser.timeZone]);
  const value = saver.draft?.timeZone ?? user.timeZone ?? "UTC";
  const [query, setQuery] = useState("");

  const matches = (text: string) => {
    const words = text.toLowerCase().replaceAll("_", " ").split(/\s+/).filter(Boolean);
    return options.filter((o) => words.every((w) => o.search.includes(w)));
  };
  const shown = matches(query);
  const labelOf = (zone: string) => options.find((o) => o.zone === zone)?.label ?? zone.replaceAll("_", " ");
  const groups = new Map<string, ZoneOption[]>();
  for (const option of shown) groups.set(option.region, [...(groups.get(option.region) ?? []), option]);
  // The search only filters the list; Enter in it chooses the first match (a choice saves).
  function chooseFirst(event: React.KeyboardEvent) {
    if (event.key !== "Enter") return;
    event.preventDefault();
    const first = query.trim() ? shown[0] : undefined;
    if (first && first.zone !== value) saver.edit({ timeZone: first.zone });
  }

  return (
    <section className="card p-4 sm:p-6" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="text-lg font-semibold text-slate-900">
        Time zone
      </h2>
      {/* A zone's name can be long (America/Argentina/ComodRivadavia): it breaks after a slash, else anywhere. */}
      <p className="user-text mt-1 text-sm text-slate-700">
        Your days start at midnight here:{" "}
        {user.timeZone
          ? user.timeZone
              .replaceAll("_", " ")
              .split("/")
              .map((part, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one name, in order
                <Fragment key={i}>
                  {i > 0 && (
                    <>
                      /<wbr />
                    </>
                  )}
                  {part}
                </Fragment>
              ))
          : "not set yet (UTC meanwhile)"}
        .
      </p>
      <div className="mt-4 space-y-3">
        <Field
          id={`${id}-search`}
          label="Search time zones"
          type="search"
          placeholder="City or region, e.g. Berlin"
          autoComplete="off"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={chooseFirst}
          hint={
            query && options.length > 0
              ? `${shown.length} ${shown.length === 1 ? "zone matches" : "zones match"}: Enter chooses the first`
              : undefined
          }
        />
        <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
          <div className="min-w-0 flex-1">
            <label htmlFor={`${id}-zone`} className="field-label">
              Time zone
            </label>
            <select
              id={`${id}-zone`}
              className="field-input"
              value={value}
              // Arrow keys step through the list: it saves after a pause, or when it loses focus.
              onChange={(e) => saver.edit({ timeZone: e.target.value }, { later: true })}
              onBlur={saver.flush}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-error` : undefined}
            >
              {options.length === 0 && <option value={value}>{labelOf(value)}</option>}
              {detected && options.length > 0 && (
                <optgroup label="Suggested: this device's zone">
                  <option value={detected}>{labelOf(detected)}</option>
                </optgroup>
              )}
              {!shown.some((o) => o.zone === value) && options.length > 0 && value !== detected && (
                <option value={value}>{labelOf(value)}</option>
              )}
              {[...groups].map(([region, list]) => (
                <optgroup key={region} label={region}>
                  {list.map((o) =>
                    o.zone === detected ? null : (
                      <option key={o.zone} value={o.zone}>
                        {o.label}
                      </option>
                    ),
                  )}
                </optgroup>
              ))}
            </select>
            {error && (
              <p id={`${id}-error`} className="field-error">
                {error}
              </p>
            )}
          </div>
        </div>
      </div>
    </section>
  );
}
