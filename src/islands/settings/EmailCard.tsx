import { type FormEvent, useEffect, useId, useState } from "react";
import Field from "../../components/Field";
import {
  type ChangeEmailInput,
  EMAIL_CHANGE_NOTICES,
  type EmailChangeResult,
  SETTINGS_MESSAGES,
} from "../../lib/account";
import { ApiError, api, errorMessage } from "../../lib/api";
import { notify } from "../../lib/toast";
import { emailSchema } from "../../lib/validation";
import { firstErrors, SettingsCard } from "./parts";

type Errors = Partial<Record<"newEmail" | "currentPassword", string>>;

/**
 * E-mail: a confirmation link goes to the new address; the change happens when it is opened.
 * Asking takes the current password (an account without one: a recent sign-in, checked by the server).
 */
export default function EmailCard({ email, hasPassword: initial }: { email: string; hasPassword: boolean }) {
  const id = useId();
  const [hasPassword, setHasPassword] = useState(initial);
  const [newEmail, setNewEmail] = useState("");
  const [current, setCurrent] = useState("");
  const [errors, setErrors] = useState<Errors>({});
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [linkNotice, setLinkNotice] = useState<{ ok: boolean; message: string } | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    // Back from the confirmation link: /settings?email=<result>.
    const url = new URL(window.location.href);
    const result = url.searchParams.get("email");
    const notice =
      result && Object.hasOwn(EMAIL_CHANGE_NOTICES, result) && EMAIL_CHANGE_NOTICES[result as EmailChangeResult];
    if (notice) {
      // Said in the card, where it stays; a change that worked is also a toast, as before.
      setLinkNotice(notice);
      if (notice.ok) notify.success(notice.message);
    }
    if (result !== null) {
      url.searchParams.delete("email");
      window.history.replaceState(null, "", url.pathname + url.search + url.hash);
    }
    // A password set in the card above: from now on the e-mail change asks for it.
    const passwordSet = () => setHasPassword(true);
    window.addEventListener("stacktrack:password-set", passwordSet);
    return () => window.removeEventListener("stacktrack:password-set", passwordSet);
  }, []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found: Errors = {};
    const parsed = emailSchema.safeParse(newEmail.trim());
    if (!parsed.success) found.newEmail = parsed.error.issues[0]?.message;
    if (hasPassword && !current) found.currentPassword = SETTINGS_MESSAGES.currentPasswordRequired;
    setErrors(found);
    if (!parsed.success || Object.keys(found).length > 0) return;
    setSaving(true);
    try {
      const body: ChangeEmailInput = { newEmail: parsed.data, ...(hasPassword ? { currentPassword: current } : {}) };
      const { message } = await api.post<{ message: string }>("/api/account/email", body);
      setSentTo(parsed.data);
      setNewEmail("");
      setCurrent("");
      setLinkNotice(null);
      notify.success(message);
    } catch (caught) {
      if (caught instanceof ApiError && caught.errors) setErrors(firstErrors(caught.errors) as Errors);
      notify.error(errorMessage(caught, "Failed to send the confirmation link"));
    } finally {
      setSaving(false);
    }
  }

  return (
    <SettingsCard
      id={`${id}-email`}
      title="E-mail"
      description={
        <>
          You sign in with <strong className="user-text font-semibold">{email}</strong>. It is never shown on your
          public profile.
        </>
      }
    >
      {linkNotice && (
        <p
          role={linkNotice.ok ? "status" : "alert"}
          className={`mb-4 rounded-md border p-3 text-sm ${linkNotice.ok ? "border-emerald-300 bg-emerald-50 text-emerald-900" : "border-red-300 bg-red-50 text-red-900"}`}
        >
          {linkNotice.message}
        </p>
      )}
      <form noValidate onSubmit={submit} className="grid gap-4 sm:max-w-md">
        <Field
          id={`${id}-new-email`}
          label="New e-mail address"
          type="email"
          autoComplete="email"
          value={newEmail}
          onChange={(e) => setNewEmail(e.target.value)}
          error={errors.newEmail}
        />
        {hasPassword && (
          <Field
            id={`${id}-email-password`}
            label="Current password"
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            error={errors.currentPassword}
          />
        )}
        <div>
          <button type="submit" className="btn btn-primary" disabled={saving}>
            {saving ? "Sending…" : "Send confirmation link"}
          </button>
        </div>
        {sentTo && (
          <p role="status" className="user-text text-sm text-slate-700">
            {SETTINGS_MESSAGES.emailLinkSent} ({sentTo})
          </p>
        )}
      </form>
    </SettingsCard>
  );
}
