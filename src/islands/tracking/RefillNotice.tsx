/**
 * Today's `Running low` notice (issue 40): supplements running out within the lead time (or
 * below zero), each with `+1 pack` (when the pack size is known) and, for Premium users who
 * show affiliate links, `Reorder`.
 */
import { AFFILIATE_REL } from "../../lib/insights";
import { PLUS_ONE_PACK, stockLine } from "../../lib/stock";
import type { Supplement } from "../../lib/types";
import { needsConnection } from "../../stores/network";
import { addPack } from "../../stores/supplements";

export default function RefillNotice({
  low,
  today,
  reorder,
  online,
}: {
  low: Supplement[];
  today: string;
  reorder: boolean;
  online: boolean;
}) {
  return (
    <section
      className="mt-3 rounded-xl border border-amber-200 bg-amber-50 p-3"
      aria-labelledby="refill-heading"
      data-testid="refill-notice"
    >
      <h3 id="refill-heading" className="text-sm font-semibold text-amber-900">
        Running low
      </h3>
      <ul className="mt-1.5 space-y-2">
        {low.map((s) => (
          <li key={s.id} className="flex flex-wrap items-center gap-2">
            <p className="user-text min-w-0 flex-1 basis-48 text-sm text-slate-900">
              <span className="font-medium">{s.name}</span>: {s.stock ? stockLine(s.stock, s.quantityType, today) : ""}
            </p>
            {s.stock?.unitsPerPack != null && (
              <button
                type="button"
                className="btn btn-outline btn-sm shrink-0"
                aria-label={`${PLUS_ONE_PACK}: ${s.name}`}
                {...needsConnection(online)}
                onClick={() => void addPack(s.id)}
              >
                {PLUS_ONE_PACK}
              </button>
            )}
            {reorder && s.affiliateLink && (
              <a
                href={`/go/${s.id}`}
                target="_blank"
                rel={AFFILIATE_REL}
                className="btn btn-primary btn-sm shrink-0"
                aria-label={`Reorder ${s.name}`}
              >
                Reorder
              </a>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
