/** Pieces every settings card shares: the card frame and a labelled field with its error. */
import type { ReactNode } from "react";

export function SettingsCard({
  id,
  title,
  description,
  danger = false,
  children,
}: {
  id: string;
  title: string;
  description?: ReactNode;
  danger?: boolean;
  children: ReactNode;
}) {
  return (
    <section
      aria-labelledby={`${id}-title`}
      className={`card p-5 sm:p-6 ${danger ? "border-red-300 bg-red-50/40" : ""}`}
      data-settings-card={id}
    >
      <h2 id={`${id}-title`} className={`text-lg font-semibold ${danger ? "text-red-800" : "text-slate-900"}`}>
        {title}
      </h2>
      {description && <div className="mt-1 text-sm text-slate-700">{description}</div>}
      <div className="mt-4">{children}</div>
    </section>
  );
}

export function Field({
  id,
  label,
  error,
  hint,
  ...input
}: {
  id: string;
  label: string;
  error?: string;
  hint?: string;
} & React.InputHTMLAttributes<HTMLInputElement>) {
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div>
      <label htmlFor={id} className="field-label user-text">
        {label}
      </label>
      <input
        id={id}
        className="field-input"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        {...input}
      />
      {hint && (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** The first message of each field of a 400's `errors`. */
export function firstErrors(errors: Record<string, string[]> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, list] of Object.entries(errors ?? {})) if (list[0]) out[field] = list[0];
  return out;
}
