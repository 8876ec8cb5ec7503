/**
 * The /copy page's list (issue 50 §3): a checkbox per supplement of the owner's public list, all
 * checked except the names the visitor already has (`Already in your stack`); `Add N
 * supplements` sends POST /api/copies and lands on the dashboard with the toast
 * `Added 3 supplements from @alice`.
 */
import { useId, useState } from "react";
import { api, errorMessage } from "../../lib/api";
import { COPY_MESSAGES } from "../../lib/copies";
import { flashToast, notify } from "../../lib/toast";

export interface CopyItem {
  id: number;
  name: string;
  /** `2 capsules • Twice daily`. */
  line: string;
  already: boolean;
}

export default function CopyForm({ from, items }: { from: string; items: CopyItem[] }) {
  const id = useId();
  const [chosen, setChosen] = useState(() => new Set(items.filter((i) => !i.already).map((i) => i.id)));
  const [busy, setBusy] = useState(false);
  const n = chosen.size;

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    if (n === 0 || busy) return;
    setBusy(true);
    try {
      const ids = items.filter((i) => chosen.has(i.id)).map((i) => i.id);
      const answer = await api.post<{ added: number; from: string }>("/api/copies", { from, supplementIds: ids });
      flashToast({ kind: "success", title: COPY_MESSAGES.added(answer.added, answer.from) });
      window.location.assign("/dashboard");
    } catch (error) {
      notify.error(errorMessage(error, "Failed to add these supplements"));
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="mt-4 space-y-4" aria-describedby={`${id}-count`}>
      <fieldset>
        <legend className="sr-only">Supplements to add</legend>
        <ul className="space-y-2">
          {items.map((item) => (
            <li key={item.id} className="rounded-xl border border-slate-200 p-3">
              <label className="flex min-w-0 items-start gap-3">
                <input
                  type="checkbox"
                  className="mt-0.5 size-5 shrink-0"
                  checked={chosen.has(item.id)}
                  aria-describedby={item.already ? `${id}-${item.id}-already` : undefined}
                  onChange={(e) => {
                    const next = new Set(chosen);
                    if (e.target.checked) next.add(item.id);
                    else next.delete(item.id);
                    setChosen(next);
                  }}
                />
                <span className="min-w-0">
                  <span className="user-text block font-medium text-slate-900">{item.name}</span>
                  <span className="user-text block text-sm text-slate-700">{item.line}</span>
                  {item.already && (
                    <span id={`${id}-${item.id}-already`} className="block text-sm font-medium text-amber-800">
                      {COPY_MESSAGES.already}
                    </span>
                  )}
                </span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      <p id={`${id}-count`} className="sr-only" aria-live="polite">
        {n} of {items.length} chosen
      </p>
      <div className="flex flex-wrap gap-2">
        <button type="submit" className="btn btn-primary" disabled={n === 0 || busy}>
          {busy ? "Adding..." : `Add ${n} ${n === 1 ? "supplement" : "supplements"}`}
        </button>
        <a href="/dashboard" className="btn btn-outline">
          Cancel
        </a>
      </div>
    </form>
  );
}
