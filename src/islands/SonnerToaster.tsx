import { useEffect } from "react";
import { Toaster as Sonner, toast } from "sonner";
import { toasterReady } from "../lib/toast";

/** The toast library's region, loaded on demand by the Toaster island (src/lib/toast.ts). */
export default function SonnerToaster() {
  // Sonner's own effect (a child's) has subscribed by the time this one runs.
  useEffect(() => {
    toasterReady(toast);
    return () => toasterReady(undefined);
  }, []);
  return (
    <Sonner
      visibleToasts={1}
      position="bottom-right"
      closeButton
      richColors
      toastOptions={{ duration: 5000, classNames: { title: "font-semibold", description: "text-sm" } }}
    />
  );
}
