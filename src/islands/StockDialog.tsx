/**
 * Stock (issue 40): 'I have N left' (a count now) and the units in a pack, opened from a
 * supplement's menu through the dialog store. Units read as the supplement's quantity type.
 */
import { useStore } from "@nanostores/react";
import { useEffect, useId, useState } from "react";
import Field from "../components/Field";
import Modal from "../components/Modal";
import { ApiError, errorMessage } from "../lib/api";
import { doseNoun } from "../lib/dose";
import { STOCK_MESSAGES } from "../lib/stock";
import { type StockInput, stockInputSchema } from "../lib/stock-input";
import { notify } from "../lib/toast";
import { $dialog, saveStock } from "../stores/supplements";

type FieldName = "count" | "unitsPerPack";

const numberOrNull = (text: string) => (text.trim() === "" ? null : Number(text));

export default function StockDialog() {
  const dialog = useStore($dialog);
  const supplement = dialog?.kind === "stock" ? dialog.supplement : null;
  const [values, setValues] = useState<Record<FieldName, string>>({ count: "", unitsPerPack: "" });
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [busy, setBusy] = useState(false);
  const id = useId();

  useEffect(() => {
    if (!supplement) return;
    const left = supplement.stock?.left;
    setValues({
      count: left != null && left >= 0 ? String(left) : "",
      unitsPerPack: supplement.stock?.unitsPerPack != null ? String(supplement.stock.unitsPerPack) : "",
    });
    setErrors({});
    setBusy(false);
  }, [supplement]);

  if (!supplement) return null;
  const noun = (n: number | null) => doseNoun(n, supplement.quantityType);
  const before = supplement.stock;

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    if (!supplement) return;
    // Only what changed: an unchanged count is not a new count (the doses since stay counted).
    const input: Record<string, number | null> = {};
    const count = numberOrNull(values.count);
    const pack = numberOrNull(values.unitsPerPack);
    if (count !== (before?.left != null && before.left >= 0 ? before.left : null)) input.count = count;
    if (pack !== (before?.unitsPerPack ?? null)) input.unitsPerPack = pack;
    if (Object.keys(input).length === 0) {
      $dialog.set(null);
      return;
    }
    const parsed = stockInputSchema.safeParse(input);
    if (!parsed.success) {
      const found: Partial<Record<FieldName, string>> = {};
      for (const issue of parsed.error.issues) found[issue.path[0] as FieldName] ??= issue.message;
      setErrors(found);
      return;
    }
    setBusy(true);
    try {
      await saveStock(supplement.id, parsed.data as StockInput);
      notify.success(STOCK_MESSAGES.saved);
      $dialog.set(null);
    } catch (error) {
      setBusy(false);
      if (error instanceof ApiError && error.errors) {
        const found: Partial<Record<FieldName, string>> = {};
        for (const [key, list] of Object.entries(error.errors)) found[key as FieldName] = list[0];
        setErrors(found);
      }
      notify.error(errorMessage(error, STOCK_MESSAGES.saveFailed));
    }
  }

  const set = (field: FieldName) => (e: React.ChangeEvent<HTMLInputElement>) => {
    setValues((v) => ({ ...v, [field]: e.target.value }));
    setErrors((er) => ({ ...er, [field]: undefined }));
  };
  const unit = (field: FieldName, n: number | null) => (
    <span id={`${id}-${field}-unit`} className="min-w-0 text-sm text-slate-700">
      {noun(n)}
    </span>
  );
  const pack = numberOrNull(values.unitsPerPack);

  return (
    <Modal
      open
      onOpenChange={(next) => {
        if (!next) $dialog.set(null);
      }}
      title={`Stock: ${supplement.name}`}
      description="What is left is counted down as you tick doses taken."
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <Field
          id={`${id}-count`}
          label="I have this many left"
          hint={before?.left != null && before.left < 0 ? STOCK_MESSAGES.recount : undefined}
          type="number"
          inputMode="decimal"
          min="0"
          step="any"
          className="max-w-32"
          value={values.count}
          onChange={set("count")}
          describedBy={`${id}-count-unit`}
          error={errors.count}
          suffix={unit("count", numberOrNull(values.count))}
        />
        {pack !== null && pack > 0 && (
          <button
            type="button"
            className="btn btn-outline btn-sm"
            onClick={() => setValues((v) => ({ ...v, count: String(pack) }))}
          >
            I opened a new pack
          </button>
        )}
        <Field
          id={`${id}-unitsPerPack`}
          label="Units per pack"
          type="number"
          inputMode="decimal"
          min="0"
          step="any"
          className="max-w-32"
          placeholder="e.g., 60"
          value={values.unitsPerPack}
          onChange={set("unitsPerPack")}
          describedBy={`${id}-unitsPerPack-unit`}
          error={errors.unitsPerPack}
          suffix={unit("unitsPerPack", pack)}
        />
        <div className="flex justify-end gap-2 border-t border-slate-200 pt-3">
          <button type="button" className="btn btn-outline flex-1 sm:flex-none" onClick={() => $dialog.set(null)}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary flex-1 sm:flex-none" disabled={busy}>
            {busy ? "Saving..." : "Save"}
          </button>
        </div>
      </form>
    </Modal>
  );
}
