import { type FormEvent, useId, useState } from "react";
import Field from "../../components/Field";
import { DELETE_CONFIRM_WORD, FRESH_SIGN_IN_MINUTES, SETTINGS_MESSAGES, USERNAME_HOLD_DAYS } from "../../lib/account";
import { ApiError, apiRequest, errorMessage } from "../../lib/api";
import { notify } from "../../lib/toast";
import { firstErrors, SettingsCard } from "./parts";

/** Where the browser goes afterwards: the landing page, which shows the notice for this fragment (no JavaScript there). */
export const DELETED_LANDING = "/#account-deleted";

/** Delete account: the password (or a fresh sign-in) and the username typed; the button waits for both. */
export default function DeleteCard({ username, hasPassword }: { username: string | null; hasPassword: boolean }) {
  const id = useId();
  const expected = username ?? DELETE_CONFIRM_WORD;
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [errors, setErrors] = useState<Partial<Record<"password" | "confirm", string>>>({});
  const [deleting, setDeleting] = useState(false);
  const ready = confirm.trim() === expected && (!hasPassword || password.length > 0);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!ready) return;
    setDeleting(true);
    try {
      await apiRequest("DELETE", "/api/account", { ...(hasPassword ? { password } : {}), confirm: confirm.trim() });
      window.location.assign(DELETED_LANDING);
    } catch (error) {
      if (error instanceof ApiError && error.errors) setErrors(firstErrors(error.errors));
      notify.error(errorMessage(error, SETTINGS_MESSAGES.deleteFailed));
      setDeleting(false);
    }
  }

  return (
    <SettingsCard
      id={`${id}-delete`}
      title="Delete account"
      danger
      description={
        <>
          <p>
            Your profile, supplements, photo and sessions are deleted at once and cannot be recovered. An active Premium
            subscription is cancelled immediately. Download your data first if you want to keep it.
          </p>
          {username && (
            <p className="mt-2">
              Your username <strong className="user-text font-semibold">{username}</strong> stays reserved for{" "}
              {USERNAME_HOLD_DAYS} days, then anyone may take it.
            </p>
          )}
        </>
      }
    >
      <form noValidate onSubmit={submit} className="grid gap-4 sm:max-w-md">
        {hasPassword ? (
          <Field
            id={`${id}-password`}
            label="Password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={errors.password}
          />
        ) : (
          <p className="text-sm text-slate-700">
            Your account has no password: you must have signed in within the last {FRESH_SIGN_IN_MINUTES} minutes. If it
            was longer ago, log out and sign in again first.
          </p>
        )}
        <Field
          id={`${id}-confirm`}
          label={`Type ${expected} to confirm`}
          type="text"
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          error={errors.confirm}
        />
        <div>
          <button type="submit" className="btn btn-danger" disabled={!ready || deleting}>
            {deleting ? "Deleting…" : "Delete account"}
          </button>
        </div>
      </form>
    </SettingsCard>
  );
}
