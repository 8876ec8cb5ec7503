/** Pieces every settings card shares: the card frame and the field errors of a 400. */
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

/** The first message of each field of a 400's `errors`. */
export function firstErrors(errors: Record<string, string[]> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, list] of Object.entries(errors ?? {})) if (list[0]) out[field] = list[0];
  return out;
}
