/**
 * The settings cards' one save model (docs/decisions/001-settings-save-on-change.md): every
 * control saves on change, with the card's one toast. A control that is typed or stepped
 * through (a time, a list moved with the arrow keys) saves after a pause or when it loses
 * focus; the others at once. Each save sends every change of the card not saved yet, one save
 * at a time, so touching another control never loses a change; a change still waiting when the
 * page is left is sent then. Saves are keepalive requests (`send` is told so), which outlive the page.
 */
import { useCallback, useEffect, useReducer, useRef } from "react";
import { errorMessage } from "../../lib/api";
import { notify } from "../../lib/toast";

/** How long a typed or stepped value waits for the next keystroke before it is saved. */
export const SAVE_PAUSE_MS = 800;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The keys of `draft` whose values differ from `saved`, with the draft's values. */
export function changesOf<T extends object>(draft: T, saved: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(draft) as (keyof T)[]) if (!same(draft[key], saved[key])) out[key] = draft[key];
  return out;
}

export interface SaveOnChange<T extends object> {
  /** What the card shows: the saved values with the changes not saved yet. */
  draft: T | null;
  /** A change; `later` for a typed or stepped value (saved after a pause, or by `flush`). */
  edit: (patch: Partial<T>, options?: { later?: boolean }) => void;
  /** Saves what is waiting now (a control's blur). */
  flush: () => void;
  /** The server's values (a load): changes not saved yet stay on top. */
  reset: (saved: T) => void;
}

export function useSaveOnChange<T extends object>(
  send: (changes: Partial<T>) => Promise<T>,
  messages: { saved: string; failed: string; onError?: (error: unknown) => void },
): SaveOnChange<T> {
  const saved = useRef<T | null>(null);
  const draft = useRef<T | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const busy = useRef(false);
  const [, render] = useReducer((n: number) => n + 1, 0);
  const latest = useRef({ send, messages });
  latest.current = { send, messages };

  const flush = useCallback(async (leaving = false) => {
    clearTimeout(timer.current);
    timer.current = undefined;
    const base = saved.current;
    const sent = draft.current;
    if (!base || !sent || (busy.current && !leaving)) return; // a save in flight sends the rest when it ends
    const changes = changesOf(sent, base);
    if (Object.keys(changes).length === 0) return;
    busy.current = true;
    const { send, messages } = latest.current;
    try {
      const answer = await send(changes);
      saved.current = answer;
      // The server's values, except where the user changed something while this save was on its way.
      const now = draft.current ?? sent;
      const next: T = { ...answer };
      for (const key of Object.keys(now) as (keyof T)[]) if (!same(now[key], sent[key])) next[key] = now[key];
      draft.current = next;
      notify.success(messages.saved);
    } catch (error) {
      // What this save carried was not saved: the controls show the saved values again.
      const now = { ...(draft.current ?? sent) };
      for (const key of Object.keys(changes) as (keyof T)[]) if (same(now[key], sent[key])) now[key] = base[key];
      draft.current = now;
      messages.onError?.(error);
      notify.error(errorMessage(error, messages.failed));
    } finally {
      busy.current = false;
      render();
      if (!timer.current && saved.current && draft.current) {
        if (Object.keys(changesOf(draft.current, saved.current)).length > 0) void flush();
      }
    }
  }, []);

  const edit = useCallback(
    (patch: Partial<T>, { later = false }: { later?: boolean } = {}) => {
      if (!draft.current) return;
      draft.current = { ...draft.current, ...patch };
      render();
      clearTimeout(timer.current);
      timer.current = undefined;
      if (later) timer.current = setTimeout(() => void flush(), SAVE_PAUSE_MS);
      else void flush();
    },
    [flush],
  );

  const reset = useCallback((value: T) => {
    const pending = saved.current && draft.current ? changesOf(draft.current, saved.current) : {};
    saved.current = value;
    draft.current = { ...value, ...pending };
    render();
  }, []);

  // Leaving with a change still waiting for its pause: sent now, as a request that outlives the page.
  useEffect(() => {
    const leave = () => {
      if (timer.current) void flush(true);
    };
    addEventListener("pagehide", leave);
    return () => removeEventListener("pagehide", leave);
  }, [flush]);

  return { draft: draft.current, edit, flush: () => void flush(), reset };
}
