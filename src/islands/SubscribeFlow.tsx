import { useStore } from "@nanostores/react";
import type { Stripe } from "@stripe/stripe-js";
import { loadStripe } from "@stripe/stripe-js/pure";
import { useEffect, useRef, useState } from "react";
import { BILLING_MESSAGES } from "../lib/account-messages";
import { ApiError, api } from "../lib/api";
import { PREMIUM_PRICE } from "../lib/constants";
import { flashToast } from "../lib/toast";
import type { CurrentUser, SubscribeAnswer } from "../lib/types";
import { $user, refreshUser, seedUser } from "../stores/user";
import PaymentForm, { Spinner } from "./billing/PaymentForm";
import SubscriptionError from "./billing/SubscriptionError";

export const PREMIUM_FEATURES = [
  { title: "Affiliate links", text: "Add a shop link to every supplement and earn from your recommendations." },
  { title: "Detailed notes", text: "Keep dosage timing, brands and how each supplement works for you." },
  { title: "Affiliate badge", text: "Show visitors of your profile which products you stand behind." },
  { title: "Unlimited affiliate links", text: "No caps: link every product in your stack." },
] as const;

/**
 * The features, with 'Priority support' only when the server names where to write
 * (CONTACT_EMAIL): no promise without an address behind it (issue 51).
 */
export function premiumFeatures(contactEmail: string | null): { title: string; text: string }[] {
  return contactEmail
    ? [
        ...PREMIUM_FEATURES,
        { title: "Priority support", text: `Write to ${contactEmail}: your questions go to the front of the line.` },
      ]
    : [...PREMIUM_FEATURES];
}

type Phase =
  | { kind: "loading" }
  | { kind: "redirecting" }
  | { kind: "error"; message: string }
  | { kind: "ready"; stripe: Stripe; clientSecret: string };

const goHomeAsPremium = () => {
  flashToast({
    kind: "success",
    title: BILLING_MESSAGES.alreadyPremiumTitle,
    description: BILLING_MESSAGES.alreadyPremium,
  });
  window.location.replace("/");
};

function Check() {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      className="mt-0.5 size-5 shrink-0 text-brand-700"
      fill="none"
      stroke="currentColor"
      strokeWidth="2.5"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d="m5 12.5 4.5 4.5L19 7.5" />
    </svg>
  );
}

/** The subscribe page: creates (or reuses) the subscription, then Stripe's Payment Element. */
export default function SubscribeFlow({
  user: initialUser,
  publishableKey,
  contactEmail = null,
}: {
  user: CurrentUser;
  publishableKey: string | null;
  /** CONTACT_EMAIL, when the server has one. */
  contactEmail?: string | null;
}) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  const [phase, setPhase] = useState<Phase>(() =>
    initialUser.isPremium
      ? { kind: "redirecting" }
      : publishableKey
        ? { kind: "loading" }
        : { kind: "error", message: BILLING_MESSAGES.notConfigured },
  );
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    if (initialUser.isPremium) {
      goHomeAsPremium();
      return;
    }
    if (!publishableKey) return;
    (async () => {
      let clientSecret: string | null;
      try {
        ({ clientSecret } = await api.post<SubscribeAnswer>("/api/get-or-create-subscription"));
      } catch (error) {
        // Premium since this page was rendered (another tab, a late webhook)?
        if (error instanceof ApiError && error.status === 400) {
          const fresh = await refreshUser().catch(() => null);
          if (fresh?.isPremium) {
            setPhase({ kind: "redirecting" });
            goHomeAsPremium();
            return;
          }
        }
        setPhase({ kind: "error", message: BILLING_MESSAGES.createFailed });
        return;
      }
      if (!clientSecret) {
        setPhase({ kind: "error", message: BILLING_MESSAGES.paymentInitFailed });
        return;
      }
      try {
        const stripe = await loadStripe(publishableKey);
        if (!stripe) throw new Error("Stripe.js did not load");
        setPhase({ kind: "ready", stripe, clientSecret });
      } catch {
        setPhase({ kind: "error", message: BILLING_MESSAGES.paymentInitFailed });
      }
    })();
  }, [initialUser.isPremium, publishableKey]);

  if (phase.kind === "error") {
    return <SubscriptionError message={phase.message} retry={phase.message !== BILLING_MESSAGES.notConfigured} />;
  }

  if (phase.kind === "loading" || phase.kind === "redirecting") {
    return (
      <>
        <h1 className="sr-only">Upgrade to Premium</h1>
        <div className="flex min-h-[50vh] flex-col items-center justify-center gap-4 py-10" role="status">
          <Spinner />
          <p className="font-medium text-slate-700">
            {phase.kind === "loading" ? "Setting up your subscription..." : "Redirecting to your dashboard..."}
          </p>
        </div>
      </>
    );
  }

  return (
    <div className="py-8">
      <div className="mx-auto max-w-5xl">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">Upgrade to Premium</h1>
        <p className="user-text mt-1 text-slate-700">
          {user.username ? `@${user.username}, get` : "Get"} more out of your supplement stack.
        </p>
        <div className="mt-6 grid gap-6 lg:grid-cols-5">
          <section className="card p-6 sm:p-8 lg:col-span-2" aria-labelledby="premium-features">
            <span className="badge bg-premium-100 text-premium-800">Premium</span>
            <p className="mt-4 flex items-baseline gap-2">
              <span className="text-4xl font-bold tracking-tight text-slate-900">{PREMIUM_PRICE}</span>
              <span className="text-slate-600">per month</span>
            </p>
            <h2 id="premium-features" className="mt-6 text-sm font-semibold tracking-wide text-slate-900 uppercase">
              Everything in Free, plus
            </h2>
            <ul className="mt-4 space-y-4">
              {premiumFeatures(contactEmail).map((feature) => (
                <li key={feature.title} className="flex gap-3">
                  <Check />
                  <div>
                    <p className="font-medium text-slate-900">{feature.title}</p>
                    <p className="text-sm text-slate-600">{feature.text}</p>
                  </div>
                </li>
              ))}
            </ul>
          </section>
          <div className="lg:col-span-3">
            <PaymentForm stripe={phase.stripe} clientSecret={phase.clientSecret} />
          </div>
        </div>
      </div>
    </div>
  );
}
