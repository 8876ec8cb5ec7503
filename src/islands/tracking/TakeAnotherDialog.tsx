/**
 * Issue 48: the question before an as-needed dose over a limit, `Take another anyway?`, with what
 * the dose would break. The app's dialog (focus kept inside and given back, Escape cancels);
 * Cancel comes first, so Enter right away takes nothing.
 */
import Modal from "../../components/Modal";
import { AS_NEEDED_MESSAGES } from "../../lib/as-needed-input";

export default function TakeAnotherDialog({
  open,
  name,
  warning,
  onCancel,
  onConfirm,
}: {
  open: boolean;
  name: string;
  warning: string;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <Modal
      open={open}
      onOpenChange={(next) => {
        if (!next) onCancel();
      }}
      title={AS_NEEDED_MESSAGES.confirm}
      description={`${name}: ${warning}.`}
    >
      <div className="flex flex-wrap justify-end gap-2">
        <button type="button" className="btn btn-outline" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary" onClick={onConfirm}>
          Take another
        </button>
      </div>
    </Modal>
  );
}
