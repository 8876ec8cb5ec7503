/** One row of 'My Supplements': drag handle, name, dose and schedule lines, stock, clicks and its menu. */
import { useSortable } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { useStore } from "@nanostores/react";
import Menu from "../../components/Menu";
import { COPY_MESSAGES, COPY_TEXT } from "../../lib/copies";
import { OFFLINE_MESSAGES } from "../../lib/messages";
import { PLUS_ONE_PACK, stockLine } from "../../lib/stock";
import type { Supplement } from "../../lib/types";
import { $online } from "../../stores/network";
import { $dialog, addPack, deleteSupplement } from "../../stores/supplements";
import DoseLine from "../DoseLine";
import ScheduleStatusLine from "../ScheduleStatusLine";

export default function SupplementRow({
  supplement,
  premium,
  position,
  clicks,
  today,
}: {
  supplement: Supplement;
  premium: boolean;
  position: number;
  /** The user's date: a run-out date in another year shows its year. */
  today: string;
  /** Clicks on its 'View Product' link over the last 30 days (issue 14), once loaded. */
  clicks: number | undefined;
}) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: supplement.id,
  });
  const style = { transform: CSS.Transform.toString(transform), transition };
  const unavailable = useStore($online) ? undefined : OFFLINE_MESSAGES.needsConnection;
  return (
    <li
      ref={setNodeRef}
      style={style}
      className={`flex items-start gap-3 rounded-xl border bg-white p-3 sm:p-4 ${isDragging ? "z-10 border-brand-500 shadow-lg" : "border-slate-200"}`}
      data-testid="supplement-row"
    >
      <button
        type="button"
        ref={setActivatorNodeRef}
        className="mt-0.5 inline-flex size-9 shrink-0 cursor-grab touch-none items-center justify-center rounded-lg text-slate-600 hover:bg-slate-100 active:cursor-grabbing"
        aria-label={`Reorder ${supplement.name} (position ${position})`}
        {...attributes}
        {...listeners}
      >
        <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5" fill="currentColor">
          <circle cx="9" cy="6" r="1.6" />
          <circle cx="15" cy="6" r="1.6" />
          <circle cx="9" cy="12" r="1.6" />
          <circle cx="15" cy="12" r="1.6" />
          <circle cx="9" cy="18" r="1.6" />
          <circle cx="15" cy="18" r="1.6" />
        </svg>
      </button>
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-2">
          <h3 className="user-text font-semibold text-slate-900">{supplement.name}</h3>
          {premium && supplement.affiliateLink && (
            <span className="badge bg-premium-100 text-premium-800">Affiliate</span>
          )}
        </div>
        <p className="user-text mt-0.5 text-sm text-slate-700">
          <DoseLine
            doseAmount={supplement.doseAmount}
            quantityType={supplement.quantityType}
            servingSize={supplement.servingSize}
            ingredients={supplement.ingredients}
          />
          {supplement.frequency}
        </p>
        <ScheduleStatusLine schedule={supplement.schedule} status={supplement.status} today={today} />
        {supplement.stock?.left != null && (
          <p
            className={`mt-1 text-sm ${supplement.stock.left < 0 ? "font-medium text-amber-800" : "text-slate-700"}`}
            data-testid="row-stock"
          >
            {stockLine(supplement.stock, supplement.quantityType, today)}
          </p>
        )}
        {supplement.source && (
          <p className="user-text mt-1 text-sm text-slate-700" data-testid="row-source">
            <a href={`/${supplement.source.username}`} className="underline">
              {COPY_MESSAGES.source(supplement.source.username)}
            </a>
            {supplement.source.buyUrl && (
              <>
                {" · "}
                <a
                  href={supplement.source.buyUrl}
                  target="_blank"
                  rel="sponsored noopener noreferrer"
                  className="font-medium text-brand-800 underline"
                >
                  {COPY_TEXT.buyAgain}
                  <span className="sr-only">: {supplement.name}</span>
                </a>
              </>
            )}
          </p>
        )}
        {premium && supplement.affiliateLink && clicks !== undefined && (
          <p className="mt-1 text-sm text-slate-600" data-testid="row-clicks">
            {clicks} {clicks === 1 ? "click" : "clicks"} in the last 30 days
          </p>
        )}
        {premium && supplement.notes && (
          <p className="user-text mt-2 text-sm whitespace-pre-line text-slate-600">{supplement.notes}</p>
        )}
      </div>
      <Menu
        label={`Actions for ${supplement.name}`}
        triggerClassName="inline-flex size-9 shrink-0 items-center justify-center rounded-lg text-slate-600 hover:bg-slate-100"
        trigger={
          <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5" fill="currentColor">
            <circle cx="12" cy="5" r="1.8" />
            <circle cx="12" cy="12" r="1.8" />
            <circle cx="12" cy="19" r="1.8" />
          </svg>
        }
        items={[
          { label: "Edit", unavailable, onSelect: () => $dialog.set({ kind: "edit", supplement }) },
          { label: "Stock", unavailable, onSelect: () => $dialog.set({ kind: "stock", supplement }) },
          ...(supplement.stock?.unitsPerPack != null
            ? [{ label: PLUS_ONE_PACK, unavailable, onSelect: () => void addPack(supplement.id) }]
            : []),
          ...(premium && supplement.affiliateLink
            ? [{ label: "View Product", href: supplement.affiliateLink, target: "_blank", rel: "noopener noreferrer" }]
            : []),
          { label: "Delete", danger: true, unavailable, onSelect: () => void deleteSupplement(supplement.id) },
        ]}
      />
    </li>
  );
}
