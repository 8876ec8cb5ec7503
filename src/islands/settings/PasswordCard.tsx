import { type FormEvent, useId, useState } from "react";
import Field from "../../components/Field";
import { type ChangePasswordInput, SETTINGS_MESSAGES } from "../../lib/account";
import { ApiError, api, errorMessage } from "../../lib/api";
import { notify } from "../../lib/toast";
import { passwordSchema } from "../../lib/validation";
import { firstErrors, SettingsCard } from "./parts";

type Errors = Partial<Record<"currentPassword" | "newPassword" | "confirm", string>>;

/** Password: change it (current, new, confirm), or set one for an account made with GitHub/Google. */
export default function PasswordCard({ hasPassword: initial }: { hasPassword: boolean }) {
  const id = useId();
  const [hasPassword, setHasPassword] = useState(initial);
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [signOutOthers, setSignOutOthers] = useState(true);
  const [errors, setErrors] = useState<Errors>({});
  const [saving, setSaving] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found: Errors = {};
    if (hasPassword && !current) found.currentPassword = SETTINGS_MESSAGES.currentPasswordRequired;
    const parsed = passwordSchema.safeParse(next);
    if (!parsed.success) found.newPassword = parsed.error.issues[0]?.message;
    if (next !== confirm) found.confirm = SETTINGS_MESSAGES.passwordsDiffer;
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setSaving(true);
    try {
      const body: ChangePasswordInput = {
        newPassword: next,
        revokeOtherSessions: signOutOthers,
        ...(hasPassword ? { currentPassword: current } : {}),
      };
      const { message } = await api.post<{ message: string }>("/api/account/password", body);
      notify.success(message);
      setCurrent("");
      setNext("");
      setConfirm("");
      setHasPassword(true);
      window.dispatchEvent(new Event("stacktrack:password-set"));
      // Other devices were signed out: the sessions list is out of date.
      if (signOutOthers) window.dispatchEvent(new Event("stacktrack:sessions-changed"));
    } catch (error) {
      if (error instanceof ApiError && error.errors) setErrors(firstErrors(error.errors) as Errors);
      notify.error(errorMessage(error, "Failed to change your password"));
    } finally {
      setSaving(false);
    }
  }

  return (
    <SettingsCard
      id={`${id}-password`}
      title={hasPassword ? "Password" : "Set a password"}
      description={
        hasPassword
          ? "Change the password you sign in with."
          : "You sign in with GitHub or Google. Set a password to sign in with your e-mail address too."
      }
    >
      <form noValidate onSubmit={submit} className="grid gap-4 sm:max-w-md">
        {hasPassword && (
          <Field
            id={`${id}-current`}
            label="Current password"
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            error={errors.currentPassword}
          />
        )}
        <Field
          id={`${id}-new`}
          label="New password"
          type="password"
          autoComplete="new-password"
          value={next}
          onChange={(e) => setNext(e.target.value)}
          error={errors.newPassword}
          hint="8 to 128 characters."
        />
        <Field
          id={`${id}-confirm`}
          label="Confirm new password"
          type="password"
          autoComplete="new-password"
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          error={errors.confirm}
        />
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input
            type="checkbox"
            className="size-4 rounded border-slate-400 text-brand-700 focus-visible:ring-2 focus-visible:ring-brand-600"
            checked={signOutOthers}
            onChange={(e) => setSignOutOthers(e.target.checked)}
          />
          Sign out of other devices
        </label>
        <div>
          <button type="submit" className="btn btn-primary" disabled={saving}>
            {saving ? "Saving…" : hasPassword ? "Change password" : "Set password"}
          </button>
        </div>
      </form>
    </SettingsCard>
  );
}
