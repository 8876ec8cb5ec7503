/**
 * Today's ticks that wait on this device (issues 40, 51): kept in the queue first
 * (src/lib/offline-queue.ts), sent at once, and while any waits, sent again by themselves:
 * after 2 s, then with backoff up to every 30 s (`retryDelay`), and at once on load, on
 * `online`, on focus, when the page is shown and after any successful answer from the server.
 * Each row's note: `Pending` while its tick waits, `Saved` once a waiting tick reached the
 * server, `Not saved: …` when the server refused it. See docs/offline.md.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { errorMessage, onServerAnswer } from "../../lib/api";
import { OFFLINE_MESSAGES } from "../../lib/messages";
import { claimOfflineData, type QueuedChange, queueChange, queuedChanges } from "../../lib/offline-queue";
import { flushQueue, type SendResult, sendChange } from "../../lib/offline-sync";
import type { IntakeJson } from "../../lib/schedule";
import { notify } from "../../lib/toast";
import { retryDelay } from "../../lib/today-rules";

export type SyncState = "pending" | "saved" | "refused" | null;

export interface WaitingTicksEvents {
  /** The server has `change`; `status` is what it keeps (this change's, or a later one made elsewhere). */
  saved(change: QueuedChange, status: QueuedChange["status"], answer: IntakeJson | null): void;
  /** The server refused `change` and it was dropped (the row goes back to the server's state). */
  dropped(change: QueuedChange): void;
}

export function useWaitingTicks(userId: string, events: WaitingTicksEvents) {
  // Ticks kept on this device (by changeKey), those that waited and are now saved, and the
  // rows whose waiting tick the server refused.
  const [pending, setPending] = useState<Record<string, QueuedChange>>({});
  const [synced, setSynced] = useState<ReadonlySet<string>>(new Set());
  const [refused, setRefused] = useState<Record<string, string>>({});
  const [allSaved, setAllSaved] = useState(false);
  // The keys whose tick could not be sent at once (those the row shows as Pending).
  const waited = useRef(new Set<string>());
  const [, waitedChanged] = useReducer((n: number) => n + 1, 0);
  const eventsRef = useRef(events);
  eventsRef.current = events;

  /** What a send came to: the row saved, kept waiting, or refused. */
  // The time of the latest change made to each dose on this device: an as-needed count's answer
  // that arrives after a later change was made (two quick +1s) is not shown over it.
  const latest = useRef<Record<string, string>>({});
  const settle = useCallback((result: SendResult) => {
    const { change } = result;
    const key = change.key;
    if (result.kind === "waiting") {
      setAllSaved(false);
      waited.current.add(key);
      waitedChanged();
      return;
    }
    setPending((current) => {
      if (current[key]?.tickedAt !== change.tickedAt) return current;
      const { [key]: _sent, ...rest } = current;
      return rest;
    });
    const wasWaiting = waited.current.delete(key);
    if (result.kind === "saved") {
      if (wasWaiting) setSynced((current) => new Set(current).add(key));
      if (wasWaiting && waited.current.size === 0) setAllSaved(true);
      const { answer } = result;
      const overtaken = change.count !== undefined && (latest.current[key] ?? "") > change.tickedAt;
      if (!overtaken)
        eventsRef.current.saved(change, answer && !answer.applied ? answer.status : change.status, answer);
      return;
    }
    if (result.status === 404) notify.error(OFFLINE_MESSAGES.deleted);
    else notify.error(errorMessage(result.error, "Failed to save your change"));
    if (wasWaiting && result.status !== 404) {
      setRefused((current) => ({ ...current, [key]: errorMessage(result.error, "Failed to save your change") }));
    }
    eventsRef.current.dropped(change);
  }, []);

  // The retry timer: one at a time, its delay growing with each try that found no server.
  const attempt = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const running = useRef(false);
  const again = useRef(false);
  const flushRef = useRef<() => Promise<void>>(async () => undefined);

  const schedule = useCallback(() => {
    if (timer.current !== null) return;
    timer.current = setTimeout(
      () => {
        timer.current = null;
        void flushRef.current();
      },
      retryDelay(attempt.current++),
    );
  }, []);

  /** Sends everything waiting, oldest first; when something still waits, the next try is scheduled. */
  const flush = useCallback(async () => {
    if (running.current) {
      again.current = true;
      return;
    }
    running.current = true;
    let stillWaiting = false;
    try {
      await flushQueue(userId, (result) => {
        settle(result);
        if (result.kind === "waiting") stillWaiting = true;
      });
    } catch {
      stillWaiting = waited.current.size > 0;
    } finally {
      running.current = false;
    }
    if (again.current) {
      again.current = false;
      return flush();
    }
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
    if (stillWaiting) schedule();
    else attempt.current = 0;
  }, [userId, settle, schedule]);
  flushRef.current = flush;

  /** A sign the server may be reachable: send now, and start the backoff again. */
  const kick = useCallback(() => {
    attempt.current = 0;
    void flush();
  }, [flush]);

  // This browser's offline data is claimed for the user before anything is queued (a claim that
  // finished after a tick would delete it).
  const claimed = useRef<Promise<unknown>>(Promise.resolve());
  useEffect(() => {
    let live = true;
    const claim = claimOfflineData(userId);
    // At most 2 s: an older tab holding the database may block its upgrade; a tick is never held longer.
    claimed.current = Promise.race([claim.catch(() => undefined), new Promise((r) => setTimeout(r, 2_000))]);
    void (async () => {
      try {
        await claim;
        const waiting = await queuedChanges(userId);
        if (!live) return;
        for (const change of waiting) waited.current.add(change.key);
        setPending(Object.fromEntries(waiting.map((c) => [c.key, c])));
      } catch {
        return; // no IndexedDB here: ticks are sent at once, as before
      }
      kick();
    })();
    const onVisible = () => {
      if (document.visibilityState === "visible") kick();
    };
    // Any successful answer from the server (a read, another card's request) sends what waits.
    const stopListening = onServerAnswer(() => {
      if (waited.current.size > 0 && !running.current) kick();
    });
    window.addEventListener("online", kick);
    window.addEventListener("focus", kick);
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      live = false;
      stopListening();
      window.removeEventListener("online", kick);
      window.removeEventListener("focus", kick);
      document.removeEventListener("visibilitychange", onVisible);
      if (timer.current !== null) clearTimeout(timer.current);
      timer.current = null;
    };
  }, [userId, kick]);

  /** A new change to a dose: its old note goes. */
  const forget = (key: string) => {
    setRefused(({ [key]: _old, ...rest }) => rest);
    setSynced((current) => {
      if (!current.has(key)) return current;
      const next = new Set(current);
      next.delete(key);
      return next;
    });
  };

  /** One tick: kept on this device first (a failed send then waits), sent at once. */
  async function send(change: QueuedChange): Promise<void> {
    latest.current[change.key] = change.tickedAt;
    forget(change.key);
    // The row says Pending once it is kept (a tab closed right after the tick still has it).
    await claimed.current;
    await queueChange(change).catch(() => undefined);
    setPending((current) => ({ ...current, [change.key]: change }));
    const result = await sendChange(change);
    settle(result);
    if (result.kind === "saved") kick();
    else if (result.kind === "waiting") schedule();
  }

  /** Changes that could not be sent (Take all without a network): each waits like a single tick. */
  async function wait(changes: QueuedChange[]): Promise<void> {
    for (const change of changes) {
      forget(change.key);
      waited.current.add(change.key);
    }
    await claimed.current;
    await Promise.all(changes.map((c) => queueChange(c))).catch(() => undefined);
    setPending((current) => ({ ...current, ...Object.fromEntries(changes.map((c) => [c.key, c])) }));
    setAllSaved(false);
    schedule();
  }

  const syncOf = (key: string): SyncState =>
    pending[key] && waited.current.has(key) ? "pending" : synced.has(key) ? "saved" : refused[key] ? "refused" : null;

  return { pending, allSaved, syncOf, refusal: (key: string) => refused[key], send, wait };
}
