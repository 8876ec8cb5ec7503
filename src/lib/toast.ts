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

/** Shows `message` on the next page this tab loads (after a redirect). */
export function flashToast(message: ToastMessage) {
  try {
    sessionStorage.setItem(FLASH_KEY, JSON.stringify(message));
  } catch {
    // storage unavailable: the toast is lost, the navigation still happens
  }
}

export function takeFlash(): ToastMessage | null {
  try {
    const raw = sessionStorage.getItem(FLASH_KEY);
    if (!raw) return null;
    sessionStorage.removeItem(FLASH_KEY);
    return JSON.parse(raw) as ToastMessage;
  } catch {
    return null;
  }
}
