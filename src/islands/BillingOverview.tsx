import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import { api } from "../lib/api";
import { PREMIUM_PRICE, PRODUCT_NAME } from "../lib/constants";
import { formatLong } from "../lib/date-format";
import type { BillingSummary, CurrentUser } from "../lib/types";
import { $user, refreshUser, seedUser } from "../stores/user";
import { openBillingPortal } from "./BillingPortal";

/** Loaded in the browser (after the summary arrives): the reader's own zone. */
const formatBillingDate = (iso: string) => formatLong(iso, Intl.DateTimeFormat().resolvedOptions().timeZone);

type Portal = "methods" | "history";

function Star({ className = "size-5" }: { className?: string }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className={className} fill="currentColor">
      <path d="m12 3 2.6 5.6 6.1.7-4.5 4.2 1.2 6-5.4-3-5.4 3 1.2-6-4.5-4.2 6.1-.7L12 3Z" />
    </svg>
  );
}

function PremiumCard() {
  const [summary, setSummary] = useState<BillingSummary | null>(null);
  const [failed, setFailed] = useState(false);
  const [opening, setOpening] = useState<Portal | null>(null);

  useEffect(() => {
    let cancelled = false;
    api
      .get<BillingSummary>("/api/billing")
      .then(async (data) => {
        if (cancelled) return;
        setSummary(data);
        // Cancelled in the portal since this page was rendered: show the free state.
        if (!data.isPremium) await refreshUser().catch(() => null);
      })
      .catch(() => {
        if (!cancelled) setFailed(true);
      });
    return () => {
      cancelled = true;
    };
  }, []);

  async function open(which: Portal) {
    setOpening(which);
    if (!(await openBillingPortal())) setOpening(null);
  }

  const dateLabel = summary?.cancelAtPeriodEnd ? "Access ends on" : "Next billing date";
  const price = summary?.amountFormatted ?? PREMIUM_PRICE;

  return (
    <section className="card overflow-hidden" aria-labelledby="billing-status">
      <div className="border-b border-premium-100 bg-premium-50 p-6 sm:p-8">
        <div className="flex flex-wrap items-center gap-3">
          <span className="inline-flex size-10 items-center justify-center rounded-full bg-premium-100 text-premium-800">
            <Star />
          </span>
          <div>
            <h2 id="billing-status" className="text-xl font-bold text-slate-900">
              Premium Active
            </h2>
            <p className="text-sm text-slate-700">You're billed monthly at {price}.</p>
          </div>
        </div>
      </div>
      <div className="p-6 sm:p-8">
        <dl className="grid gap-4 sm:grid-cols-3">
          <div>
            <dt className="text-sm text-slate-600">Plan</dt>
            <dd className="mt-1 font-semibold text-slate-900">Premium</dd>
          </div>
          <div>
            <dt className="text-sm text-slate-600">Price</dt>
            <dd className="mt-1 font-semibold text-slate-900">{price} per month</dd>
          </div>
          <div>
            <dt className="text-sm text-slate-600">{dateLabel}</dt>
            <dd className="mt-1 font-semibold text-slate-900" aria-live="polite">
              {summary?.nextBillingDate ? (
                formatBillingDate(summary.nextBillingDate)
              ) : failed || summary ? (
                <span className="font-normal text-slate-600">Not available</span>
              ) : (
                <>
                  <span className="inline-block h-5 w-32 animate-pulse rounded bg-slate-200" aria-hidden="true" />
                  <span className="sr-only">Loading</span>
                </>
              )}
            </dd>
          </div>
        </dl>
        <div className="mt-6 flex flex-col gap-3 sm:flex-row">
          <button type="button" className="btn btn-primary" disabled={opening !== null} onClick={() => open("methods")}>
            {opening === "methods" ? "Opening..." : "Manage Payment Methods"}
          </button>
          <button type="button" className="btn btn-outline" disabled={opening !== null} onClick={() => open("history")}>
            {opening === "history" ? "Opening..." : "View Billing History"}
          </button>
        </div>
        <div className="mt-6 rounded-xl bg-slate-50 p-4 text-sm text-slate-700">
          <p className="font-medium text-slate-900">Need help with billing?</p>
          <p className="mt-1">
            Update your card, download invoices and receipts in Stripe's secure billing portal. Changes you make there
            show up here when you come back. To stop your subscription, use Cancel Subscription under{" "}
            <a href="/profile/edit#premium" className="font-medium text-brand-800 underline underline-offset-2">
              Edit Profile → Premium Subscription
            </a>
            .
          </p>
        </div>
      </div>
    </section>
  );
}

function FreeCard() {
  return (
    <section className="card p-6 text-center sm:p-10" aria-labelledby="billing-status">
      <span className="mx-auto inline-flex size-12 items-center justify-center rounded-full bg-slate-100 text-slate-600">
        <Star className="size-6" />
      </span>
      <h2 id="billing-status" className="mt-4 text-xl font-bold text-slate-900">
        No Active Subscription
      </h2>
      <p className="mx-auto mt-2 max-w-md text-slate-700">
        You're on the free plan. Upgrade to Premium for {PREMIUM_PRICE} a month to add affiliate links and detailed
        notes to your supplements.
      </p>
      <a href="/subscribe" className="btn btn-premium mt-6">
        Upgrade to Premium
      </a>
    </section>
  );
}

/** The billing page: the premium subscription and the portal, or the way to upgrade. */
export default function BillingOverview({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  return (
    <div className="mx-auto max-w-3xl py-8">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">Billing</h1>
      <p className="mt-1 text-slate-700">{`Your ${PRODUCT_NAME} subscription and payments.`}</p>
      <div className="mt-6">{user.isPremium ? <PremiumCard /> : <FreeCard />}</div>
    </div>
  );
}
