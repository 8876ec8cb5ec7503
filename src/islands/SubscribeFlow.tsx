import { useStore } from "@nanostores/react";
import type { Stripe, StripeElements, StripePaymentElement } from "@stripe/stripe-js";
import { loadStripe } from "@stripe/stripe-js/pure";
import { useEffect, useId, useRef, useState } from "react";
import { BILLING_MESSAGES } from "../lib/account-messages";
import { ApiError, api } from "../lib/api";
import { PREMIUM_PRICE } from "../lib/constants";
import { flashToast, notify } from "../lib/toast";
import type { CurrentUser, SubscribeAnswer } from "../lib/types";
import { $user, refreshUser, seedUser } from "../stores/user";

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

/** Waits (briefly) for the server to see the paid subscription; Stripe activates it a moment after the payment. */
async function waitForPremium(): Promise<void> {
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      const user = await refreshUser();
      if (!user || user.isPremium) return;
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 750 * (attempt + 1)));
  }
}

function Spinner() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="size-8 animate-spin text-brand-700" fill="none">
      <circle cx="12" cy="12" r="10" stroke="currentColor" strokeWidth="3" className="opacity-20" />
      <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
    </svg>
  );
}

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

/** `retry`: whether trying again can help (not on a server without payments, issue 38). */
function ErrorCard({ message, retry }: { message: string; retry: boolean }) {
  return (
    <div className="mx-auto max-w-lg py-10">
      <section className="card p-6 text-center sm:p-8" aria-labelledby="subscription-error" role="alert">
        <div className="mx-auto mb-4 inline-flex size-12 items-center justify-center rounded-full bg-red-100 text-red-700">
          <svg
            aria-hidden="true"
            viewBox="0 0 24 24"
            className="size-6"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
            strokeLinecap="round"
          >
            <circle cx="12" cy="12" r="9" />
            <path d="M12 8v5M12 16.5v.01" />
          </svg>
        </div>
        <h1 id="subscription-error" className="text-xl font-bold text-slate-900">
          Subscription Error
        </h1>
        <p className="mt-2 text-slate-700">{message}</p>
        <div className="mt-6 flex flex-col-reverse justify-center gap-3 sm:flex-row">
          <a href="/" className="btn btn-outline">
            Back to Dashboard
          </a>
          {retry && (
            <button type="button" className="btn btn-primary" onClick={() => window.location.reload()}>
              Try Again
            </button>
          )}
        </div>
      </section>
    </div>
  );
}

function PaymentForm({ stripe, clientSecret }: { stripe: Stripe; clientSecret: string }) {
  const mountRef = useRef<HTMLDivElement>(null);
  const elementsRef = useRef<StripeElements | null>(null);
  const [ready, setReady] = useState(false);
  const [processing, setProcessing] = useState(false);
  const id = useId();

  useEffect(() => {
    const target = mountRef.current;
    if (!target) return;
    const elements = stripe.elements({
      clientSecret,
      appearance: {
        theme: "stripe",
        variables: {
          colorPrimary: "#047857",
          colorText: "#0f172a",
          colorDanger: "#b91c1c",
          borderRadius: "8px",
          fontFamily: 'ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
        },
      },
    });
    const element: StripePaymentElement = elements.create("payment", { layout: "tabs" });
    element.on("ready", () => setReady(true));
    element.mount(target);
    elementsRef.current = elements;
    return () => {
      element.destroy();
      elementsRef.current = null;
    };
  }, [stripe, clientSecret]);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    const elements = elementsRef.current;
    if (!elements || processing) return;
    setProcessing(true);
    const { error } = await stripe.confirmPayment({
      elements,
      confirmParams: { return_url: window.location.origin },
      redirect: "if_required",
    });
    if (error) {
      notify.error(error.message ?? BILLING_MESSAGES.paymentFailed, BILLING_MESSAGES.paymentFailedTitle);
      setProcessing(false);
      return;
    }
    await waitForPremium();
    flashToast({
      kind: "success",
      title: BILLING_MESSAGES.activatedTitle,
      description: BILLING_MESSAGES.activated,
    });
    window.location.assign("/");
  }

  return (
    <form onSubmit={submit} className="card p-6 sm:p-8" aria-labelledby={`${id}-title`} noValidate>
      <h2 id={`${id}-title`} className="text-lg font-semibold text-slate-900">
        Payment details
      </h2>
      <p className="mt-1 text-sm text-slate-600">Payments are processed securely by Stripe. Cancel anytime.</p>
      <div className="mt-5 min-h-40" aria-busy={!ready}>
        {!ready && (
          <div className="flex items-center gap-3 py-6 text-sm text-slate-600">
            <Spinner />
            <span>Loading the payment form...</span>
          </div>
        )}
        <div ref={mountRef} />
      </div>
      <button type="submit" className="btn btn-premium btn-lg mt-6 w-full" disabled={!ready || processing}>
        {processing ? "Processing..." : "Subscribe to Premium"}
      </button>
      <p className="mt-3 text-center text-xs text-slate-600">
        You'll be charged {PREMIUM_PRICE} today and every month until you cancel.
      </p>
    </form>
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
    return <ErrorCard message={phase.message} retry={phase.message !== BILLING_MESSAGES.notConfigured} />;
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
