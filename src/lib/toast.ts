/**
 * Toasts, one visible at a time (the Toaster island renders them). A toast that must
 * survive a full page navigation is stored as a "flash" and shown on the next page.
 *
 * The toast library (sonner, about 10 KB gzipped) is not part of the page load (issue 17):
 * the Toaster island loads it on the visitor's first interaction, before anything they do can
 * toast, so its live region is in place for the first toast. A toast asked for before it is
 * ready (a flash, or an error while the page loads) waits here and is shown once it is.
 */
import type { toast as SonnerToast } from "sonner";

const FLASH_KEY = "stacktrack.flash";

export interface ToastMessage {
  kind: "success" | "error";
  title: string;
  description?: string;
  /** A button on the toast ('Undo'); not carried across pages. */
  action?: { label: string; onClick: () => void };
  /** How long it shows, in ms (the toaster's default otherwise). */
  duration?: number;
}

let ready: typeof SonnerToast | undefined;
let waiting: ToastMessage | undefined;
let wanted: (() => void) | undefined;

function display(toast: typeof SonnerToast, message: ToastMessage) {
  // One toast at a time: a new one replaces whatever is showing.
  toast.dismiss();
  const show = message.kind === "error" ? toast.error : toast.success;
  show(message.title, {
    description: message.description,
    action: message.action,
    duration: message.duration,
  });
}

export function showToast(message: ToastMessage) {
  if (ready) return display(ready, message);
  waiting = message; // only the latest: one toast at a time
  wanted?.();
}

/** The Toaster island: `load` is called when a toast waits for the library. */
export function onToastWanted(load: () => void): () => void {
  wanted = load;
  if (waiting) load();
  return () => {
    if (wanted === load) wanted = undefined;
  };
}

/** The Toaster island, once the library's toaster is mounted: shows the toast that waited. */
export function toasterReady(toast: typeof SonnerToast | undefined) {
  ready = toast;
  const message = waiting;
  waiting = undefined;
  if (toast && message) display(toast, message);
}

export const notify = {
  success: (title: string, description?: string) => showToast({ kind: "success", title, description }),
  /** The spec's error toast: titled 'Error' with the message. */
  error: (description: string, title = "Error") => showToast({ kind: "error", title, description }),
};

/** A flash older than this is dropped unseen (the navigation it was meant for never came). */
const FLASH_MAX_AGE_MS = 60_000;

/** Shows `message` on the next page this tab loads (after a redirect). */
export function flashToast(message: ToastMessage) {
  try {
    sessionStorage.setItem(FLASH_KEY, JSON.stringify({ ...message, at: Date.now() }));
  } catch {
    // storage unavailable: the toast is lost, the navigation still happens
  }
}

/**
 * The toast an earlier page left for this one. A flash written after this page began to
 * load belongs to the next page: islands hydrate in any order, so the page that writes a
 * flash and navigates away may mount its toaster only afterwards, and must not take it.
 */
export function takeFlash(): ToastMessage | null {
  try {
    const raw = sessionStorage.getItem(FLASH_KEY);
    if (!raw) return null;
    const { at, ...message } = JSON.parse(raw) as ToastMessage & { at?: number };
    if (typeof at === "number" && at >= performance.timeOrigin) return null;
    sessionStorage.removeItem(FLASH_KEY);
    if (typeof at !== "number" || Date.now() - at > FLASH_MAX_AGE_MS) return null;
    return message;
  } catch {
    return null;
  }
}
