import { useStore } from "@nanostores/react";
import { useId, useRef, useState } from "react";
import { BILLING_MESSAGES } from "../lib/account-messages";
import { api, errorMessage } from "../lib/api";
import { PREMIUM_PRICE } from "../lib/constants";
import { notify } from "../lib/toast";
import type { CurrentUser } from "../lib/types";
import { $user, refreshUser, seedUser } from "../stores/user";
import { openBillingPortal } from "./BillingPortal";

/**
 * The Edit Profile page's subscription card. Premium: Manage Billing (Stripe's portal),
 * Cancel Subscription after a confirmation, and a link to the billing page. Free: the
 * way to upgrade. Follows the shared user store, so it switches as soon as the user does.
 */
export default function PremiumSettings({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  const [cancelling, setCancelling] = useState(false);
  const [opening, setOpening] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();

  async function manageBilling() {
    setOpening(true);
    if (!(await openBillingPortal())) setOpening(false);
  }

  async function cancelSubscription() {
    dialog.current?.close();
    setCancelling(true);
    try {
      await api.post("/api/cancel-subscription");
      await refreshUser();
      notify.success(BILLING_MESSAGES.cancelledTitle, BILLING_MESSAGES.cancelled);
    } catch (error) {
      notify.error(errorMessage(error, BILLING_MESSAGES.cancelFailed));
    } finally {
      setCancelling(false);
    }
  }

  if (!user.isPremium) {
    return (
      <section className="card p-6 sm:p-8" aria-labelledby={`${id}-title`}>
        <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
          <div>
            <h2 id={`${id}-title`} className="text-lg font-semibold text-slate-900">
              Premium Subscription
            </h2>
            <p className="mt-1 text-sm text-slate-700">
              Add affiliate links and detailed notes to your supplements, and earn the Affiliate badge.
            </p>
          </div>
          <a href="/subscribe" className="btn btn-premium shrink-0">
            Upgrade for {PREMIUM_PRICE}/month
          </a>
        </div>
      </section>
    );
  }

  return (
    // #premium: where billing's directions to Cancel Subscription point (issue 51).
    <section id="premium" className="card scroll-mt-4 p-6 sm:p-8" aria-labelledby={`${id}-title`}>
      <div className="flex flex-wrap items-center gap-3">
        <h2 id={`${id}-title`} className="text-lg font-semibold text-slate-900">
          Premium Subscription
        </h2>
        <span className="badge bg-premium-100 text-premium-800">Active</span>
      </div>
      <p className="mt-1 text-sm text-slate-700">
        You're on Premium at {PREMIUM_PRICE} per month: affiliate links and notes are on for all your supplements.
      </p>
      <div className="mt-5 flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-center">
        <button type="button" className="btn btn-outline" onClick={manageBilling} disabled={opening || cancelling}>
          {opening ? "Opening..." : "Manage Billing"}
        </button>
        <button
          type="button"
          className="btn btn-outline border-red-300 text-red-800 hover:bg-red-50"
          onClick={() => dialog.current?.showModal()}
          disabled={cancelling}
        >
          {cancelling ? "Cancelling..." : "Cancel Subscription"}
        </button>
        <a href="/billing" className="btn btn-ghost sm:ml-auto">
          View billing details
        </a>
      </div>

      <dialog
        ref={dialog}
        aria-labelledby={`${id}-confirm-title`}
        aria-describedby={`${id}-confirm-text`}
        className="m-auto w-[calc(100vw-2rem)] max-w-md rounded-2xl bg-white p-6 shadow-xl backdrop:bg-slate-900/50"
      >
        <h3 id={`${id}-confirm-title`} className="text-lg font-semibold text-slate-900">
          Cancel Premium?
        </h3>
        <p id={`${id}-confirm-text`} className="mt-2 text-sm text-slate-700">
          {BILLING_MESSAGES.cancelConfirmation}
        </p>
        <div className="mt-6 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
          <button type="button" className="btn btn-outline" onClick={() => dialog.current?.close()}>
            Keep Premium
          </button>
          <button type="button" className="btn btn-danger" onClick={cancelSubscription}>
            Yes, Cancel Subscription
          </button>
        </div>
      </dialog>
    </section>
  );
}
