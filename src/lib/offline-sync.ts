/**
 * Sends Today's waiting ticks (src/lib/offline-queue.ts) to the intake API, oldest first, each
 * with the time it was made; the server keeps the later change to a dose (docs/offline.md).
 * A network failure (or a signed-out session) leaves the rest waiting; any other refusal
 * drops the change, and says why.
 */
import { ApiError, api } from "./api";
import { type QueuedChange, queuedChanges, removeChange } from "./offline-queue";
import type { IntakeJson } from "./schedule";

export type SendResult =
  /** The server has it; `answer.applied` false: a later change was kept (its state in `answer`). */
  | { kind: "saved"; change: QueuedChange; answer: IntakeJson | null }
  /** Still waiting: no network, or no session. */
  | { kind: "waiting"; change: QueuedChange }
  /** Refused and dropped: 404 (the supplement is gone) or another refusal, with its message. */
  | { kind: "dropped"; change: QueuedChange; status: number; error: unknown };

export async function sendChange(change: QueuedChange): Promise<SendResult> {
  const path = `/api/intakes/${change.date}/${change.supplementId}/${change.time}`;
  try {
    const answer =
      change.count !== undefined
        ? await api.put<IntakeJson>(path, { count: change.count, tickedAt: change.tickedAt })
        : change.status === null
          ? await api.delete<IntakeJson | undefined>(`${path}?tickedAt=${encodeURIComponent(change.tickedAt)}`)
          : await api.put<IntakeJson>(path, { status: change.status, tickedAt: change.tickedAt });
    await removeChange(change).catch(() => undefined);
    return { kind: "saved", change, answer: answer ?? null };
  } catch (error) {
    const status = error instanceof ApiError ? error.status : 0;
    if (status === 0 || status === 401) return { kind: "waiting", change };
    await removeChange(change).catch(() => undefined);
    return { kind: "dropped", change, status, error };
  }
}

let running: Promise<void> | null = null;

/**
 * Sends the user's waiting changes one at a time, reporting each; stops at the first that
 * must keep waiting. One flush at a time: a call while one runs waits for it, then runs again.
 */
export function flushQueue(userId: string, report: (result: SendResult) => void): Promise<void> {
  const run = async () => {
    for (const change of await queuedChanges(userId)) {
      const result = await sendChange(change);
      report(result);
      if (result.kind === "waiting") return;
    }
  };
  const next = (running ?? Promise.resolve()).then(run);
  running = next.catch(() => undefined);
  return next;
}
