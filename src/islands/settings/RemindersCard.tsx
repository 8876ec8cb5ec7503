/**
 * Reminders (issue 39): the times of each slot, the channels (push on this device, e-mail),
 * the follow-ups (./FollowUpFields.tsx), a test reminder, and the devices that receive push.
 * The browser's permission is asked only when the user turns push on. Every setting saves on change with one
 * toast, `Reminders saved` (src/islands/settings/save-on-change.ts); a time after a pause or
 * when it loses focus.
 */
import { useCallback, useEffect, useId, useState } from "react";
import Field from "../../components/Field";
import { api, errorMessage } from "../../lib/api";
import { isAppleMobile, refreshThisDevice } from "../../lib/push-client";
import { PUSH_REASONS, PushSetupError, pushUnavailable, subscribeThisDevice } from "../../lib/push-subscribe";
import { REMINDER_SLOTS, type ReminderSettingsJson, type ReminderSlot } from "../../lib/reminders";
import type { RefillLeadDays } from "../../lib/stock";
import { notify } from "../../lib/toast";
import EmailConfirmNotice from "./EmailConfirmNotice";
import FollowUpFields from "./FollowUpFields";
import PushDevices from "./PushDevices";
import { SettingsCard } from "./parts";
import { useSaveOnChange } from "./save-on-change";

const SLOT_LABELS: Record<ReminderSlot, string> = {
  morning: "Morning",
  afternoon: "Afternoon",
  evening: "Evening",
  bedtime: "Bedtime",
};

export const REMINDERS_SAVED = "Reminders saved";
export const PUSH_WAITING = "Waiting for your browser…";

export default function RemindersCard() {
  const id = useId();
  const saver = useSaveOnChange<ReminderSettingsJson>(
    ({ devices: _devices, ...changes }) =>
      api.put<ReminderSettingsJson>("/api/reminders", changes, { keepalive: true }),
    { saved: REMINDERS_SAVED, failed: "Failed to save your reminders" },
  );
  const settings = saver.draft;
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [apple, setApple] = useState(false);
  // Turning push on waits for the browser (its prompt, the worker, the push service): the switch
  // alone says so; the rest of the card stays usable. Then a reason, if it failed.
  const [pushWaiting, setPushWaiting] = useState(false);
  const [pushProblem, setPushProblem] = useState<string | null>(null);
  const [unavailable, setUnavailable] = useState<keyof typeof PUSH_REASONS | null>(null);
  const { reset } = saver;

  const load = useCallback(async () => {
    try {
      reset(await api.get<ReminderSettingsJson>("/api/reminders"));
      setFailed(false);
    } catch {
      setFailed(true);
    }
  }, [reset]);

  useEffect(() => {
    setApple(isAppleMobile());
    setUnavailable(pushUnavailable());
    void load();
    refreshThisDevice().catch(() => undefined);
  }, [load]);

  async function togglePush(on: boolean) {
    setPushProblem(null);
    if (!on) return saver.edit({ push: false });
    setPushWaiting(true);
    try {
      await subscribeThisDevice();
    } catch (error) {
      setPushProblem(error instanceof PushSetupError ? error.message : errorMessage(error, PUSH_REASONS.generic));
      return;
    } finally {
      setPushWaiting(false);
    }
    saver.edit({ push: true });
  }

  async function sendTest() {
    setBusy("test");
    try {
      const sent = await api.post<{ push: number; email: boolean }>("/api/reminders/test");
      const parts = [
        sent.push > 0 ? `a push to ${sent.push} ${sent.push === 1 ? "device" : "devices"}` : "",
        sent.email ? "an e-mail" : "",
      ];
      notify.success(`Test reminder sent: ${parts.filter(Boolean).join(" and ") || "nothing reached"}`);
      await load();
    } catch (error) {
      notify.error(errorMessage(error, "Failed to send a test reminder"));
    } finally {
      setBusy(null);
    }
  }

  async function remove(device: ReminderSettingsJson["devices"][number]) {
    setBusy(device.id);
    try {
      await api.delete(`/api/push/subscriptions/${encodeURIComponent(device.id)}`);
      notify.success("Device removed");
    } catch (error) {
      notify.error(errorMessage(error, "Failed to remove that device"));
    } finally {
      setBusy(null);
      await load();
    }
  }

  return (
    <SettingsCard
      id={`${id}-reminders`}
      title="Reminders"
      description="One message per part of the day, listing what you have not ticked yet."
    >
      {failed && <p className="text-sm text-red-700">Could not load your reminders. Please reload the page.</p>}
      {!settings && !failed && <p className="text-sm text-slate-600">Loading…</p>}
      {settings && (
        <div className="space-y-6">
          <fieldset>
            <legend className="font-medium text-slate-900">Times of day</legend>
            <p className="text-sm text-slate-600">
              In your time zone. Any time doses come with the Morning reminder; As needed never.
            </p>
            <div className="mt-3 grid grid-cols-1 gap-3 min-[400px]:grid-cols-2 sm:grid-cols-4">
              {REMINDER_SLOTS.map((slot) => (
                <div key={slot} className="min-w-0">
                  <label htmlFor={`${id}-${slot}`} className="field-label">
                    {SLOT_LABELS[slot]}
                  </label>
                  <input
                    id={`${id}-${slot}`}
                    type="time"
                    required
                    className="field-input"
                    value={settings.times[slot]}
                    // A cleared or half-typed time is not a time: it waits for a whole one.
                    onChange={(e) =>
                      e.target.value &&
                      saver.edit({ times: { ...settings.times, [slot]: e.target.value } }, { later: true })
                    }
                    onBlur={saver.flush}
                  />
                </div>
              ))}
            </div>
          </fieldset>

          <fieldset className="space-y-2">
            <legend className="font-medium text-slate-900">Channels</legend>
            <div>
              <label className="flex items-center gap-3 text-sm text-slate-800">
                <input
                  type="checkbox"
                  className="size-5"
                  checked={settings.push}
                  aria-describedby={`${id}-push-state`}
                  disabled={pushWaiting || (!settings.push && unavailable !== null)}
                  onChange={(e) => void togglePush(e.target.checked)}
                />
                Push notifications on this device
              </label>
              <p id={`${id}-push-state`} className="ml-8 text-sm text-slate-700" role="status">
                {pushWaiting
                  ? PUSH_WAITING
                  : (pushProblem ?? (!settings.push && unavailable ? PUSH_REASONS[unavailable] : ""))}
              </p>
            </div>
            <label className="flex items-center gap-3 text-sm text-slate-800">
              <input
                type="checkbox"
                className="size-5"
                checked={settings.email}
                onChange={(e) => saver.edit({ email: e.target.checked })}
              />
              E-mail
            </label>
            <EmailConfirmNotice settings={settings} />
            {apple && (
              <p className="text-sm text-slate-600">
                On iPhone and iPad, push notifications need StackTrack on your Home Screen: tap Share, then Add to Home
                Screen, and open it from there.
              </p>
            )}
          </fieldset>

          <FollowUpFields
            id={id}
            values={settings}
            edit={(patch) => saver.edit(patch, { later: true })}
            flush={saver.flush}
          />

          <Field
            id={`${id}-refill`}
            label="Remind me to refill before a supplement runs out"
            select
            className="sm:max-w-xs"
            value={settings.refillLeadDays}
            onChange={(e) => saver.edit({ refillLeadDays: Number(e.target.value) as RefillLeadDays }, { later: true })}
            onBlur={saver.flush}
          >
            {([3, 7, 14, 0] as const).map((days) => (
              <option key={days} value={days}>
                {days === 0 ? "Off" : `${days} days before`}
              </option>
            ))}
          </Field>

          <div>
            <button
              type="button"
              className="btn btn-outline"
              disabled={busy !== null || (!settings.push && !settings.email)}
              onClick={() => void sendTest()}
            >
              {busy === "test" ? "Sending..." : "Send a test reminder"}
            </button>
          </div>

          <PushDevices devices={settings.devices} busy={busy !== null} onRemove={(device) => void remove(device)} />
        </div>
      )}
    </SettingsCard>
  );
}
