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
  verticalListSortingStrategy,
} from "@dnd-kit/sortable";
import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import { dateIn } from "../lib/dates";
import type { CurrentUser, Supplement } from "../lib/types";
import { $linkClicks30, loadLinkClicks } from "../stores/insights";
import {
  $supplements,
  $supplementsLoaded,
  reorderSupplements,
  seedSupplements,
  visibleList,
} from "../stores/supplements";
import { $user, seedUser } from "../stores/user";
import SupplementRow from "./list/SupplementRow";

interface Props {
  user: CurrentUser;
  supplements: Supplement[] | null;
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
                  <SupplementRow
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
