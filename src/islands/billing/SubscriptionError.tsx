/** The subscribe page's error card (Subscription Error, Back to Dashboard, Try Again). */

/** `retry`: whether trying again can help (not on a server without payments, issue 38). */
export default function SubscriptionError({ message, retry }: { message: string; retry: boolean }) {
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
