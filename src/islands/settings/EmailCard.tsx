import { type FormEvent, useEffect, useId, useState } from "react";
import Field from "../../components/Field";
import { SETTINGS_MESSAGES } from "../../lib/account";
import { ApiError, api, errorMessage } from "../../lib/api";
import { notify } from "../../lib/toast";
import { emailSchema } from "../../lib/validation";
import { firstErrors, SettingsCard } from "./parts";

/** E-mail: a confirmation link goes to the new address; the change happens when it is opened. */
export default function EmailCard({ email }: { email: string }) {
  const id = useId();
  const [newEmail, setNewEmail] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    // Back from the confirmation link.
    const url = new URL(window.location.href);
    if (url.searchParams.get("email") === "changed") {
      notify.success(SETTINGS_MESSAGES.emailChanged);
      url.searchParams.delete("email");
      window.history.replaceState(null, "", url.pathname + url.search + url.hash);
    }
  }, []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = emailSchema.safeParse(newEmail.trim());
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    setSaving(true);
    try {
      const { message } = await api.post<{ message: string }>("/api/account/email", { newEmail: parsed.data });
      setSentTo(parsed.data);
      setNewEmail("");
      notify.success(message);
    } catch (caught) {
      if (caught instanceof ApiError && caught.errors) setError(firstErrors(caught.errors).newEmail);
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
      <form noValidate onSubmit={submit} className="grid gap-4 sm:max-w-md">
        <Field
          id={`${id}-new-email`}
          label="New e-mail address"
          type="email"
          autoComplete="email"
          value={newEmail}
          onChange={(e) => setNewEmail(e.target.value)}
          error={error}
        />
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
