import { lazy, Suspense, useEffect, useState } from "react";
import { onToastWanted, showToast, takeFlash } from "../lib/toast";

const SonnerToaster = lazy(() => import("./SonnerToaster"));

/** What counts as the visitor's first interaction: the toast library loads then. */
const FIRST_INTERACTION = ["pointerdown", "keydown", "focusin"] as const;

/**
 * The one toast region of a page; also shows a toast carried over from the previous page.
 * The toast library loads on the first interaction (or when a toast is asked for first), not
 * with the page: see src/lib/toast.ts. It draws nothing in the page's flow, so nothing shifts.
 */
export default function Toaster() {
  const [load, setLoad] = useState(false);
  useEffect(() => {
    const want = () => setLoad(true);
    const stop = onToastWanted(want);
    for (const type of FIRST_INTERACTION)
      window.addEventListener(type, want, { capture: true, passive: true, once: true });
    const flash = takeFlash();
    if (flash) showToast(flash);
    return () => {
      stop();
      for (const type of FIRST_INTERACTION) window.removeEventListener(type, want, { capture: true });
    };
  }, []);
  return load ? (
    <Suspense fallback={null}>
      <SonnerToaster />
    </Suspense>
  ) : null;
}
