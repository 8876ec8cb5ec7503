/**
 * Issue 45, in the Reminders card: until the address is confirmed, e-mail reminders wait, and
 * this says where the link went (or how to get one). Back from the link
 * (/settings?reminders=confirmed), it says the address is confirmed once.
 */
import { useEffect, useState } from "react";
import { EMAIL_CONFIRM_MESSAGES } from "../../lib/email-confirm-messages";
import type { ReminderSettingsJson } from "../../lib/reminders";

type Props = { settings: Pick<ReminderSettingsJson, "email" | "emailConfirmed" | "confirmationSentTo"> };

export default function EmailConfirmNotice({ settings }: Props) {
  const [justConfirmed, setJustConfirmed] = useState(false);

  useEffect(() => {
    const url = new URL(window.location.href);
    if (url.searchParams.get("reminders") !== "confirmed") return;
    setJustConfirmed(true);
    url.searchParams.delete("reminders");
    window.history.replaceState(null, "", url.pathname + url.search + (url.hash || "#reminders"));
  }, []);

  if (settings.emailConfirmed) {
    return justConfirmed ? (
      <p role="status" className="text-sm text-emerald-800">
        {EMAIL_CONFIRM_MESSAGES.confirmed}
      </p>
    ) : null;
  }
  if (!settings.email) return null;
  return (
    <div role="status" className="rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
      {settings.confirmationSentTo ? (
        <>
          <p className="font-medium [overflow-wrap:anywhere]">
            {EMAIL_CONFIRM_MESSAGES.sent(settings.confirmationSentTo)}
          </p>
          <p className="mt-1">{EMAIL_CONFIRM_MESSAGES.resend}</p>
        </>
      ) : (
        <p>{EMAIL_CONFIRM_MESSAGES.notSent}</p>
      )}
    </div>
  );
}
