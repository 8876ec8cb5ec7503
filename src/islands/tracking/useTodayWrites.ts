/**
 * Today's writes (issues 19, 38, 51): a single tick, skip or undo (through the waiting ticks),
 * and Take all or its one-step Undo for a time of day (one request; without a network each dose
 * waits like a single tick). Each is shown at once and laid over this device's copy of its day.
 */
import { useState } from "react";
import { api, errorMessage, isOffline } from "../../lib/api";
import { changeKey, type QueuedChange } from "../../lib/offline-queue";
import type { IntakeStatus, IntakeTime } from "../../lib/schedule";
import { notify } from "../../lib/toast";
import { refreshStock } from "../../stores/supplements";
import type { TodayStore } from "../../stores/today";
import { trackingChanged } from "../../stores/tracking";
import type { Row } from "./today-rows";
import type { useWaitingTicks } from "./useWaitingTicks";

/** The last Take all of a group, for its one-step Undo. */
interface TakenGroup {
  date: string;
  time: IntakeTime;
  keys: string[];
}

export function useTodayWrites(
  store: TodayStore,
  ticks: ReturnType<typeof useWaitingTicks>,
  userId: string,
  rows: Row[] | null,
) {
  const [takenGroup, setTakenGroup] = useState<TakenGroup | null>(null);

  /** One row's change, waiting like a tick until the server has it (a Take all ends its Undo). */
  function send(row: Row, change: { status: IntakeStatus | null; count?: number }) {
    setTakenGroup(null);
    const { date, supplementId, time } = row;
    return ticks.send({
      key: changeKey({ date, supplementId, time }),
      userId,
      date,
      supplementId,
      time,
      ...change,
      tickedAt: new Date().toISOString(),
    });
  }

  async function write(row: Row, status: IntakeStatus | null) {
    // The row's own day, never 'now' nor what the card may show by the time this is sent.
    store.lay(row.date, rows as Row[], new Set([row.key]), status);
    await send(row, { status });
  }

  /**
   * Issue 48: an as-needed row with its new count (+1, −1; `withCount`), shown at once and
   * waiting like a tick (the change carries the count).
   */
  async function writeCount(row: Row) {
    const count = row.count ?? 0;
    store.layRow(row.date, rows as Row[], row);
    await send(row, { status: count > 0 ? "taken" : null, count });
  }

  /** Take all (status 'taken') or its undo (null): one request for `keys`, optimistic. */
  async function writeGroup(date: string, time: IntakeTime, keys: string[], status: "taken" | null) {
    if (!rows || keys.length === 0) return;
    const before = rows;
    const chosen = new Set(keys);
    store.lay(date, rows, chosen, status);
    setTakenGroup(status === "taken" ? { date, time, keys } : null);
    // Take all and Undo take each other's place: keep the keyboard there.
    requestAnimationFrame(() => document.getElementById(`take-all-${time}`)?.focus());
    const doses = rows.filter((r) => chosen.has(r.key)).map((r) => ({ supplementId: r.supplementId, time: r.time }));
    const tickedAt = new Date().toISOString();
    try {
      await api.put(`/api/intakes/${date}`, { status, doses, tickedAt });
      trackingChanged();
      void refreshStock();
    } catch (error) {
      if (isOffline(error)) {
        // No network: each dose waits on this device like a single tick.
        const changes: QueuedChange[] = doses.map((d) => ({
          key: changeKey({ date, ...d }),
          userId,
          date,
          ...d,
          status,
          tickedAt,
        }));
        await ticks.wait(changes);
        return;
      }
      // Back as it was, on the card and in this device's copy.
      store.restore(date, before, chosen);
      setTakenGroup(null);
      notify.error(errorMessage(error, "Failed to save your change"));
    }
  }

  /** The keys the last Take all of `time` on `shown` ticked, still taken (its Undo). */
  const undoable = (shown: string, time: IntakeTime) => {
    if (!takenGroup || takenGroup.date !== shown || takenGroup.time !== time) return [];
    const keys = new Set(takenGroup.keys);
    return (rows ?? []).filter((r) => keys.has(r.key) && r.status === "taken").map((r) => r.key);
  };

  return { write, writeCount, writeGroup, undoable };
}
