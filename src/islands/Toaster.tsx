import { useEffect } from "react";
import { Toaster as Sonner } from "sonner";
import { showToast, takeFlash } from "../lib/toast";

/** The one toast region of a page; also shows a toast carried over from the previous page. */
export default function Toaster() {
  useEffect(() => {
    const flash = takeFlash();
    if (flash) showToast(flash);
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
