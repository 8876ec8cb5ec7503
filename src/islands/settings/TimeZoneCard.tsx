/**
 * The user's time zone, shown and changed (issue 19). A card for /settings (issue 15 mounts it):
 * `<TimeZoneCard client:load user={user} />`. 'Today' on the dashboard is the date in this zone.
 */
import { useStore } from "@nanostores/react";
import { Fragment, useId, useMemo, useState } from "react";
import { ApiError, api, errorMessage } from "../../lib/api";
import { notify } from "../../lib/toast";
import type { CurrentUser } from "../../lib/types";
import { $user, seedUser } from "../../stores/user";

function knownZones(current: string | null): string[] {
  let zones: string[] = [];
  try {
    zones = Intl.supportedValuesOf("timeZone");
  } catch {
    zones = [];
  }
  const detected = Intl.DateTimeFormat().resolvedOptions().timeZone;
  for (const extra of ["UTC", detected, current]) if (extra && !zones.includes(extra)) zones.push(extra);
  return zones.sort();
}

export default function TimeZoneCard({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  const id = useId();
  const zones = useMemo(() => knownZones(user.timeZone), [user.timeZone]);
  const [value, setValue] = useState(user.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function save(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const updated = await api.put<CurrentUser>("/api/profile", { timeZone: value });
      $user.set(updated);
      notify.success("Time zone saved");
    } catch (e) {
      if (e instanceof ApiError && e.errors?.timeZone) setError(e.errors.timeZone[0] ?? null);
      notify.error(errorMessage(e, "Failed to save your time zone"));
    } finally {
      setBusy(false);
    }
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
      <form onSubmit={save} className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-end">
        <div className="min-w-0 flex-1">
          <label htmlFor={`${id}-zone`} className="field-label">
            Time zone
          </label>
          <select
            id={`${id}-zone`}
            className="field-input"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
          >
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone.replaceAll("_", " ")}
              </option>
            ))}
          </select>
          {error && (
            <p id={`${id}-error`} className="field-error">
              {error}
            </p>
          )}
        </div>
        <button type="submit" className="btn btn-primary" disabled={busy || value === user.timeZone}>
          {busy ? "Saving..." : "Save"}
        </button>
      </form>
    </section>
  );
}
