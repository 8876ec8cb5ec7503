import {
  type Announcements,
  closestCenter,
  DndContext,
  type DragEndEvent,
  KeyboardSensor,
  PointerSensor,
  TouchSensor,
  useSensor,
  useSensors,
} from "@dnd-kit/core";
import {
  arrayMove,
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import Menu from "../components/Menu";
import { dateIn } from "../lib/dates";
import { OFFLINE_MESSAGES } from "../lib/messages";
import { PLUS_ONE_PACK, stockLine } from "../lib/stock";
import type { CurrentUser, Supplement } from "../lib/types";
import { $linkClicks30, loadLinkClicks } from "../stores/insights";
import { $online } from "../stores/network";
import {
  $dialog,
  $supplements,
  $supplementsLoaded,
  addPack,
  deleteSupplement,
  reorderSupplements,
  seedSupplements,
  visibleList,
} from "../stores/supplements";
import { $user, seedUser } from "../stores/user";
import DoseLine from "./DoseLine";
import ScheduleStatusLine from "./ScheduleStatusLine";

interface Props {
  user: CurrentUser;
  supplements: Supplement[] | null;
}

function Row({
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

/** 'My Supplements': the ordered list, draggable by mouse, touch and keyboard. */
export default function SupplementList({ user: initialUser, supplements: initial }: Props) {
  seedUser(initialUser);
  seedSupplements(initial);
  const user = useStore($user) ?? initialUser;
  // The clicks come from the Insights card's request, which may finish before this island
  // hydrates: shown only once it has, so the first render matches the server's (React #418).
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const loadedClicks = useStore($linkClicks30);
  const clicks = hydrated ? loadedClicks : undefined;
  const loaded = useStore($supplementsLoaded) || initial !== null;
  const today = dateIn(user.timeZone ?? "UTC", Date.now());
  const list = visibleList(useStore($supplementsLoaded), useStore($supplements), initial);
  // A row's clicks need the insights, whose card loads only when scrolled to.
  const withLinks = user.isPremium && list.some((s) => s.affiliateLink);
  useEffect(() => {
    if (withLinks) loadLinkClicks();
  }, [withLinks]);
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(TouchSensor, { activationConstraint: { delay: 150, tolerance: 6 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const nameOf = (id: unknown) => list.find((s) => s.id === id)?.name ?? "supplement";
  const positionOf = (id: unknown) => list.findIndex((s) => s.id === id) + 1;
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${nameOf(active.id)}, position ${positionOf(active.id)} of ${list.length}.`,
    onDragOver: ({ active, over }) =>
      over ? `${nameOf(active.id)} moved to position ${positionOf(over.id)} of ${list.length}.` : undefined,
    onDragEnd: ({ active, over }) =>
      over
        ? `${nameOf(active.id)} dropped at position ${positionOf(over.id)} of ${list.length}.`
        : `${nameOf(active.id)} dropped.`,
    onDragCancel: ({ active }) => `Reordering cancelled. ${nameOf(active.id)} returned to its place.`,
  };

  function onDragEnd({ active, over }: DragEndEvent) {
    if (!over || active.id === over.id) return;
    const from = list.findIndex((s) => s.id === active.id);
    const to = list.findIndex((s) => s.id === over.id);
    if (from < 0 || to < 0) return;
    void reorderSupplements(arrayMove(list, from, to));
  }

  return (
    <section className="card p-4 sm:p-6" aria-labelledby="my-supplements-heading">
      <div className="flex items-center justify-between gap-3">
        <h2 id="my-supplements-heading" className="flex items-center gap-2 text-lg font-semibold text-slate-900">
          My Supplements
          <span className="badge bg-slate-100 text-slate-800">{loaded ? list.length : "..."}</span>
        </h2>
      </div>
      {!loaded ? (
        <ul className="mt-4 space-y-3" aria-busy="true" aria-label="Loading supplements">
          {[0, 1, 2].map((i) => (
            <li
              key={i}
              className="h-[74px] animate-pulse rounded-xl bg-slate-100"
              data-testid="supplement-placeholder"
            />
          ))}
        </ul>
      ) : list.length === 0 ? (
        <div className="mt-4 rounded-xl border border-dashed border-slate-300 px-6 py-12 text-center">
          <p className="font-semibold text-slate-900">No supplements added yet</p>
          <p className="mt-1 text-sm text-slate-600">
            Start tracking your health journey by adding your first supplement.
          </p>
        </div>
      ) : (
        <>
          <p className="mt-1 text-sm text-slate-600" data-print="hide">
            Drag and drop to reorder your supplement routine
          </p>
          <DndContext
            sensors={sensors}
            collisionDetection={closestCenter}
            onDragEnd={onDragEnd}
            accessibility={{
              announcements,
              screenReaderInstructions: {
                draggable:
                  "To pick up a supplement, press Space or Enter. Use the arrow keys to move it, Space or Enter to drop it, or Escape to cancel.",
              },
            }}
          >
            <SortableContext items={list.map((s) => s.id)} strategy={verticalListSortingStrategy}>
              <ul className="mt-4 space-y-3">
                {list.map((s, i) => (
                  <Row
                    key={s.id}
                    supplement={s}
                    premium={user.isPremium}
                    position={i + 1}
                    clicks={clicks?.[s.id] ?? (clicks ? 0 : undefined)}
                    today={today}
                  />
                ))}
              </ul>
            </SortableContext>
          </DndContext>
        </>
      )}
    </section>
  );
}
