import { useCallback, useEffect, useId, useState } from "react";
import type { SessionInfo } from "../../lib/account";
import { api, errorMessage } from "../../lib/api";
import { formatMoment } from "../../lib/date-format";
import { notify } from "../../lib/toast";
import { SettingsCard } from "./parts";

/** Sessions load in the browser (never rendered on the server): its own zone is safe to use. */
const dateTime = (iso: string) => formatMoment(iso, Intl.DateTimeFormat().resolvedOptions().timeZone);

/** 'just now', '5 minutes ago', '3 days ago': activity is approximate (refreshed at most daily). */
function ago(iso: string): string {
  const minutes = Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 60_000));
  if (minutes < 2) return "just now";
  if (minutes < 60) return `${minutes} minutes ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return hours === 1 ? "an hour ago" : `${hours} hours ago`;
  const days = Math.round(hours / 24);
  return days === 1 ? "yesterday" : `${days} days ago`;
}

/** Sessions: every device signed in, this one marked; sign out one, or everywhere else. */
export default function SessionsCard() {
  const id = useId();
  const [sessions, setSessions] = useState<SessionInfo[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setSessions(await api.get<SessionInfo[]>("/api/account/sessions"));
      setFailed(false);
    } catch {
      setFailed(true);
    }
  }, []);

  useEffect(() => {
    void load();
    const reload = () => void load();
    window.addEventListener("stacktrack:sessions-changed", reload);
    return () => window.removeEventListener("stacktrack:sessions-changed", reload);
  }, [load]);

  async function signOut(session: SessionInfo) {
    setBusy(session.id);
    try {
      const { message } = await api.delete<{ message: string }>(
        `/api/account/sessions/${encodeURIComponent(session.id)}`,
      );
      notify.success(message);
    } catch (error) {
      notify.error(errorMessage(error, "Failed to sign out that device"));
    } finally {
      setBusy(null);
      await load();
    }
  }

  async function signOutOthers() {
    setBusy("others");
    try {
      const { message } = await api.post<{ message: string }>("/api/account/sessions/revoke-others");
      notify.success(message);
    } catch (error) {
      notify.error(errorMessage(error, "Failed to sign out the other devices"));
    } finally {
      setBusy(null);
      await load();
    }
  }

  const others = sessions?.filter((s) => !s.current).length ?? 0;

  return (
    <SettingsCard id={`${id}-sessions`} title="Sessions" description="The devices signed in to your account.">
      {failed && <p className="text-sm text-red-700">Could not load your sessions. Please reload the page.</p>}
      {!sessions && !failed && <p className="text-sm text-slate-600">Loading…</p>}
      {sessions && (
        <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200" aria-label="Signed-in devices">
          {sessions.map((session) => (
            <li key={session.id} className="flex flex-wrap items-center justify-between gap-3 p-3 sm:p-4">
              <div className="min-w-0">
                <p className="font-medium text-slate-900">
                  {session.device}
                  {session.current && <span className="badge ml-2 bg-brand-100 text-brand-800">This device</span>}
                </p>
                <p className="text-sm text-slate-600">
                  Last active {ago(session.lastActiveAt)} · Signed in {dateTime(session.createdAt)}
                </p>
              </div>
              {!session.current && (
                <button
                  type="button"
                  className="btn btn-outline btn-sm"
                  aria-label={`Sign out ${session.device}, last active ${ago(session.lastActiveAt)}`}
                  disabled={busy !== null}
                  onClick={() => void signOut(session)}
                >
                  Sign out
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <div className="mt-4">
        <button
          type="button"
          className="btn btn-outline"
          disabled={busy !== null || others === 0}
          onClick={() => void signOutOthers()}
        >
          Sign out everywhere else
        </button>
      </div>
    </SettingsCard>
  );
}
