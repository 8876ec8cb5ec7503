/** The subscribe page's payment step (issue 9): Stripe's Payment Element, then Premium once the server sees it. */
import type { Stripe, StripeElements, StripePaymentElement } from "@stripe/stripe-js";
import { useEffect, useId, useRef, useState } from "react";
import { BILLING_MESSAGES } from "../../lib/account-messages";
import { PREMIUM_PRICE } from "../../lib/constants";
import { flashToast, notify } from "../../lib/toast";
import { refreshUser } from "../../stores/user";

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

export function Spinner() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="size-8 animate-spin text-brand-700" fill="none">
      <circle cx="12" cy="12" r="10" stroke="currentColor" strokeWidth="3" className="opacity-20" />
      <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
    </svg>
  );
}

export default function PaymentForm({ stripe, clientSecret }: { stripe: Stripe; clientSecret: string }) {
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
