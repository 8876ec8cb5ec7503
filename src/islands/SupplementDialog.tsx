import { useStore } from "@nanostores/react";
import { useEffect, useId, useState } from "react";
import Field from "../components/Field";
import Modal from "../components/Modal";
import { ApiError, errorMessage } from "../lib/api";
import { DEFAULT_QUANTITY_TYPE, NOTES_MAX, QUANTITY_TYPES, SUPPLEMENT_TEXT_MAX } from "../lib/constants";
import { scheduleSentence } from "../lib/dose";
import { SUPPLEMENT_MESSAGES } from "../lib/messages";
import type { Schedule } from "../lib/schedule";
import { notify } from "../lib/toast";
import type { CurrentUser, Supplement } from "../lib/types";
import { supplementInputSchema } from "../lib/validation";
import { $dialog, addSupplement, updateSupplement } from "../stores/supplements";
import { $user, seedUser } from "../stores/user";
import IngredientsFields, {
  type IngredientsValue,
  ingredientsPayload,
  ingredientsValueOf,
} from "./ingredients/IngredientsFields";
import ScheduleFields, { type ScheduleValue, schedulePayload, scheduleValueOf } from "./tracking/ScheduleFields";

type FieldName = "name" | "quantityType" | "frequency" | "affiliateLink" | "notes";
type Values = Record<FieldName, string>;

const empty = (): Values => ({
  name: "",
  quantityType: DEFAULT_QUANTITY_TYPE,
  frequency: "",
  affiliateLink: "",
  notes: "",
});
const fromSupplement = (s: Supplement): Values => ({
  name: s.name,
  quantityType: s.quantityType,
  frequency: s.frequency,
  affiliateLink: s.affiliateLink ?? "",
  notes: s.notes ?? "",
});

/** The Frequency a schedule suggests (issue 38): 'Morning and evening, weekdays', 'As needed'. */
const suggestion = (value: ScheduleValue) => scheduleSentence(schedulePayload(value).schedule as Schedule | null);

/**
 * 'Add New Supplement' and 'Edit Supplement': one form, opened through the dialog store. Frequency
 * follows the schedule as it is chosen while it is empty or still the previous suggestion (a
 * typed one is kept); the actions stay in a sticky footer (Modal keeps toasts' room free).
 */
export default function SupplementDialog({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  const dialog = useStore($dialog);
  const open = dialog?.kind === "add" || dialog?.kind === "edit";
  const editing = dialog?.kind === "edit" ? dialog.supplement : null;
  const [values, setValues] = useState<Values>(empty);
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  // Issue 19: the schedule and amount (their errors are keyed `schedule.times`, `doseAmount`…).
  const [track, setTrack] = useState<ScheduleValue>(() => scheduleValueOf(null));
  const [trackErrors, setTrackErrors] = useState<Record<string, string | undefined>>({});
  // Issue 47: what is in a serving (errors keyed `servingSize`, `ingredients.0.amount`…).
  const [ingredients, setIngredients] = useState<IngredientsValue>(() => ingredientsValueOf(null));
  const [busy, setBusy] = useState(false);
  const id = useId();

  useEffect(() => {
    if (!open) return;
    setValues(editing ? fromSupplement(editing) : empty());
    setTrack(scheduleValueOf(editing));
    setIngredients(ingredientsValueOf(editing));
    for (const clear of [setTrackErrors, setErrors]) clear({});
    setBusy(false);
  }, [open, editing]);

  const set =
    (field: FieldName) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) => {
      setValues((v) => ({ ...v, [field]: e.target.value }));
      setErrors((er) => ({ ...er, [field]: undefined }));
    };

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    // Free users: the premium-only fields are removed before sending.
    const payload = {
      ...(user.isPremium
        ? values
        : { name: values.name, quantityType: values.quantityType, frequency: values.frequency }),
      ...schedulePayload(track),
      ...ingredientsPayload(ingredients),
    };
    const parsed = supplementInputSchema.safeParse(payload);
    if (!parsed.success) {
      const found: Partial<Record<FieldName, string>> = {};
      const foundTrack: Record<string, string> = {};
      for (const issue of parsed.error.issues) {
        const key = issue.path.slice(0, 2).join(".");
        if (issue.path[0] === "ingredients" || issue.path[0] === "servingSize") {
          foundTrack[issue.path.slice(0, 3).join(".")] ??= issue.message;
        } else if (issue.path[0] === "schedule" || issue.path[0] === "doseAmount" || issue.path[0] === "asNeeded")
          foundTrack[key] ??= issue.message;
        else found[issue.path[0] as FieldName] ??= issue.message;
      }
      setErrors(found);
      setTrackErrors(foundTrack);
      return;
    }
    setBusy(true);
    // The lines go as typed: the server converts them and keeps what was typed beside.
    const body = { ...parsed.data, ...ingredientsPayload(ingredients) };
    try {
      if (editing) {
        await updateSupplement(editing.id, body);
        notify.success(SUPPLEMENT_MESSAGES.updated);
      } else {
        await addSupplement(body);
        notify.success(SUPPLEMENT_MESSAGES.added);
      }
      $dialog.set(null);
    } catch (error) {
      setBusy(false);
      if (error instanceof ApiError && error.errors) {
        const found: Partial<Record<FieldName, string>> = {};
        const foundTrack: Record<string, string | undefined> = {};
        for (const [key, list] of Object.entries(error.errors)) {
          if (key.startsWith("ingredients") || key === "servingSize") foundTrack[key] = list[0];
          else if (key.startsWith("schedule") || key === "doseAmount" || key.startsWith("asNeeded"))
            foundTrack[key.split(".").slice(0, 2).join(".")] = list[0];
          else found[key as FieldName] = list[0];
        }
        setErrors(found);
        setTrackErrors(foundTrack);
      }
      notify.error(errorMessage(error, editing ? SUPPLEMENT_MESSAGES.updateFailed : SUPPLEMENT_MESSAGES.addFailed));
    }
  }

  return (
    <Modal
      open={open}
      onOpenChange={(next) => {
        if (!next) $dialog.set(null);
      }}
      title={editing ? "Edit Supplement" : "Add New Supplement"}
      description={editing ? "Change the details of this supplement." : "Add a supplement to your routine."}
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <Field
          id={`${id}-name`}
          label="Name"
          placeholder="e.g., Vitamin D3"
          value={values.name}
          onChange={set("name")}
          maxLength={SUPPLEMENT_TEXT_MAX}
          error={errors.name}
        />
        <Field
          select
          id={`${id}-quantityType`}
          label="Quantity Type"
          value={values.quantityType}
          onChange={set("quantityType")}
          error={errors.quantityType}
        >
          {QUANTITY_TYPES.map((q) => (
            <option key={q} value={q}>
              {q}
            </option>
          ))}
        </Field>
        <Field
          id={`${id}-frequency`}
          label="Frequency"
          placeholder="e.g., 2 capsules daily"
          value={values.frequency}
          onChange={set("frequency")}
          maxLength={SUPPLEMENT_TEXT_MAX}
          error={errors.frequency}
        />
        <ScheduleFields
          value={track}
          onChange={(next) => {
            const frequency = values.frequency.trim();
            if (frequency === "" || frequency === suggestion(track)) {
              setValues((v) => ({ ...v, frequency: suggestion(next) }));
              setErrors((er) => ({ ...er, frequency: undefined }));
            }
            setTrack(next);
            setTrackErrors({});
          }}
          quantityType={values.quantityType}
          errors={trackErrors}
        />
        <IngredientsFields
          value={ingredients}
          onChange={(next) => {
            setIngredients(next);
            setTrackErrors({});
          }}
          name={values.name}
          errors={trackErrors}
        />
        {user.isPremium ? (
          <>
            <Field
              id={`${id}-affiliateLink`}
              type="url"
              label="Affiliate Link"
              placeholder="https://example.com/product"
              value={values.affiliateLink}
              onChange={set("affiliateLink")}
              error={errors.affiliateLink}
            />
            <Field
              multiline
              id={`${id}-notes`}
              label="Notes"
              className="min-h-20"
              placeholder="Why you take it, how it works for you..."
              value={values.notes}
              onChange={set("notes")}
              maxLength={NOTES_MAX}
              error={errors.notes}
            />
          </>
        ) : (
          <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-2 rounded-xl border border-premium-100 bg-premium-50 px-3 py-2.5">
            <p className="min-w-0 flex-1 basis-48 text-sm text-slate-700">
              <span className="font-semibold text-premium-800">Premium Features</span>: affiliate links and notes.
            </p>
            <a href="/subscribe" className="btn btn-premium btn-sm">
              Upgrade Now
            </a>
          </div>
        )}
        {/* Sticky inside the dialog's scroll area: the actions stay on screen at any height. */}
        <div
          className="sticky -bottom-6 -mx-6 -mb-6 border-t border-slate-200 bg-white px-6 pt-3 pb-5"
          data-testid="dialog-actions"
        >
          <div className="flex justify-end gap-2">
            <button type="button" className="btn btn-outline flex-1 sm:flex-none" onClick={() => $dialog.set(null)}>
              Cancel
            </button>
            <button type="submit" className="btn btn-primary flex-1 sm:flex-none" disabled={busy}>
              {editing ? (busy ? "Updating..." : "Update Supplement") : busy ? "Adding..." : "Add Supplement"}
            </button>
          </div>
        </div>
      </form>
    </Modal>
  );
}
