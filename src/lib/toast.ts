/**
 * Toasts, one visible at a time (the Toaster island renders them). A toast that must
 * survive a full page navigation is stored as a "flash" and shown on the next page.
 */
import { toast } from "sonner";

const FLASH_KEY = "stacktrack.flash";

export interface ToastMessage {
  kind: "success" | "error";
  title: string;
  description?: string;
}

export function showToast(message: ToastMessage) {
  // One toast at a time: a new one replaces whatever is showing.
  toast.dismiss();
  const show = message.kind === "error" ? toast.error : toast.success;
  show(message.title, message.description ? { description: message.description } : undefined);
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
