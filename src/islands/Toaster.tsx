import { lazy, Suspense, useEffect, useState } from "react";
import { onToastWanted, showToast, takeFlash } from "../lib/toast";

const SonnerToaster = lazy(() => import("./SonnerToaster"));

/** What counts as the visitor's first interaction: the toast library loads then. */
const FIRST_INTERACTION = ["pointerdown", "keydown", "focusin"] as const;

/**
 * The first interaction is watched from when this module loads, before the island renders:
 * listeners added in an effect would miss a key pressed between the island's hydration and
 * that effect (an end-to-end test did, now and then), and the library would then wait for
 * the first toast, its live region made together with that toast.
 */
let interacted = false;
const onInteraction = new Set<() => void>();
if (typeof window !== "undefined") {
  const seen = () => {
    interacted = true;
    for (const type of FIRST_INTERACTION) window.removeEventListener(type, seen, { capture: true });
    for (const call of onInteraction) call();
  };
  for (const type of FIRST_INTERACTION) window.addEventListener(type, seen, { capture: true, passive: true });
}

/**
 * The one toast region of a page; also shows a toast carried over from the previous page.
 * The toast library loads on the first interaction (or when a toast is asked for first), not
 * with the page: see src/lib/toast.ts. It draws nothing in the page's flow, so nothing shifts.
 */
export default function Toaster() {
  const [load, setLoad] = useState(interacted);
  useEffect(() => {
    const want = () => setLoad(true);
    if (interacted) want();
    onInteraction.add(want);
    const stop = onToastWanted(want);
    const flash = takeFlash();
    if (flash) showToast(flash);
    return () => {
      stop();
      onInteraction.delete(want);
    };
  }, []);
  return load ? (
    <Suspense fallback={null}>
      <SonnerToaster />
    </Suspense>
  ) : null;
}
