/**
 * Edit Profile's switch 'Show when I take them on my public profile' (issue 19, `showSchedule`,
 * off by default). Saved when flipped; the public page then groups the list by time of day
 * with amounts. Whether anything was taken is never public.
 */
import { useStore } from "@nanostores/react";
import { useId, useState } from "react";
import { api, errorMessage } from "../../lib/api";
import { notify } from "../../lib/toast";
import type { CurrentUser } from "../../lib/types";
import { $user, seedUser } from "../../stores/user";

export default function ShowScheduleCard({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  const id = useId();
  const [busy, setBusy] = useState(false);
  const on = user.showSchedule;

  async function flip() {
    setBusy(true);
    try {
      $user.set(await api.put<CurrentUser>("/api/profile", { showSchedule: !on }));
    } catch (error) {
      notify.error(errorMessage(error, "Failed to update profile"));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card p-4 sm:p-6" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="text-lg font-semibold text-slate-900">
        Schedule
      </h2>
      <div className="mt-3 flex items-center justify-between gap-4">
        <span id={`${id}-label`} className="text-sm text-slate-800">
          Show when I take them on my public profile
        </span>
        <button
          type="button"
          role="switch"
          aria-checked={on}
          aria-labelledby={`${id}-label`}
          disabled={busy}
          onClick={() => void flip()}
          className={`relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition-colors ${on ? "bg-brand-700" : "bg-slate-400"}`}
        >
          <span
            aria-hidden="true"
            className={`inline-block size-5 rounded-full bg-white shadow transition-transform ${on ? "translate-x-5" : "translate-x-0.5"}`}
          />
        </button>
      </div>
      <p className="mt-2 text-sm text-slate-600">
        Your times of day and amounts only; what you have taken stays private.
      </p>
    </section>
  );
}
