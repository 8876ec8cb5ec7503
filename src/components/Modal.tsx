import * as Dialog from "@radix-ui/react-dialog";
import { type ReactNode, useLayoutEffect, useRef } from "react";

interface Props {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: string;
  children: ReactNode;
  size?: "md" | "lg";
}

/**
 * Our dialogs open from a store, not from a Radix trigger, so Radix has nowhere to return
 * focus on close (it would land on <body>): remember what had focus when the dialog opened
 * and give it back once it closes.
 */
function useReturnFocus(open: boolean) {
  const opener = useRef<HTMLElement | null>(null);
  // A layout effect runs before the dialog moves focus inside itself.
  useLayoutEffect(() => {
    if (open) {
      const active = document.activeElement;
      opener.current = active instanceof HTMLElement && active !== document.body ? active : null;
      return;
    }
    const target = opener.current;
    opener.current = null;
    if (!target) return;
    const timer = setTimeout(() => {
      const active = document.activeElement;
      if (target.isConnected && (!active || active === document.body)) target.focus();
    });
    return () => clearTimeout(timer);
  }, [open]);
}

/**
 * An accessible dialog: focus trapped and returned to its opener, Escape closes, titled and
 * described. It leaves 6.5rem free at the bottom of the screen, where a toast shows (issue 38:
 * toasts never cover an open dialog's controls).
 */
export default function Modal({ open, onOpenChange, title, description, children, size = "md" }: Props) {
  useReturnFocus(open);
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-slate-900/50" />
        <Dialog.Content
          className={`fixed top-[calc(50%-2.75rem)] left-1/2 z-50 max-h-[calc(100dvh-7.5rem)] w-[calc(100vw-2rem)] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-2xl bg-white p-6 shadow-xl focus:outline-none ${size === "lg" ? "max-w-xl" : "max-w-lg"}`}
        >
          <div className="mb-5 pr-8">
            <Dialog.Title className="text-lg font-semibold text-slate-900">{title}</Dialog.Title>
            {description ? (
              <Dialog.Description className="mt-1 text-sm text-slate-600">{description}</Dialog.Description>
            ) : (
              <Dialog.Description className="sr-only">{title}</Dialog.Description>
            )}
          </div>
          {children}
          <Dialog.Close
            className="absolute top-4 right-4 inline-flex size-8 items-center justify-center rounded-lg text-slate-600 hover:bg-slate-100 hover:text-slate-900"
            aria-label="Close"
          >
            <svg
              aria-hidden="true"
              viewBox="0 0 24 24"
              className="size-5"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              strokeLinecap="round"
            >
              <path d="M6 6l12 12M18 6 6 18" />
            </svg>
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
