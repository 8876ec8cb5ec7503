import { useStore } from "@nanostores/react";
import { lazy, Suspense, useEffect, useState } from "react";
import type { CurrentUser } from "../lib/types";
import { $dialog } from "../stores/supplements";

// The dialogs (and the form validation and dialog primitives they bring) are fetched
// the first time one opens, keeping them out of the dashboard's first load.
const SupplementDialog = lazy(() => import("./SupplementDialog"));
const SharePreview = lazy(() => import("./SharePreview"));
const StockDialog = lazy(() => import("./StockDialog"));

/** Mounts the dashboard's dialogs once one is asked for, through the dialog store. */
export default function DashboardDialogs({ user }: { user: CurrentUser }) {
  const dialog = useStore($dialog);
  const [wanted, setWanted] = useState({ form: false, share: false, stock: false });
  useEffect(() => {
    if (dialog?.kind === "share") setWanted((w) => (w.share ? w : { ...w, share: true }));
    else if (dialog?.kind === "stock") setWanted((w) => (w.stock ? w : { ...w, stock: true }));
    else if (dialog) setWanted((w) => (w.form ? w : { ...w, form: true }));
  }, [dialog]);
  return (
    <Suspense fallback={null}>
      {wanted.form && <SupplementDialog user={user} />}
      {wanted.share && <SharePreview user={user} />}
      {wanted.stock && <StockDialog />}
    </Suspense>
  );
}
