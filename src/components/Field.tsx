/**
 * One form field: label, input (or textarea, or select), hint, error, and the aria wiring between them
 * (`aria-invalid`, `aria-describedby` naming the hint and the error). Every form uses it
 * (issue 37), so a field looks and reads the same everywhere.
 */
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";

interface Common {
  /** The control's id; the hint and error get `${id}-hint` and `${id}-error`. */
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: string;
  /** Beside the label, on its line (a 'Forgot password?' link). */
  labelAside?: ReactNode;
  /** More ids the control is described by (a counter). */
  describedBy?: string;
  /** Below the hint, above the error (a status line, a character counter). */
  after?: ReactNode;
  /** Announce the error as it appears (a check made while typing, not on submit). */
  alertError?: boolean;
  /** On the control's line, after it (a unit: 'capsules'). */
  suffix?: ReactNode;
}

type InputProps = Common & { multiline?: false; select?: false } & Omit<InputHTMLAttributes<HTMLInputElement>, "id">;
type TextareaProps = Common & { multiline: true; select?: false } & Omit<
    TextareaHTMLAttributes<HTMLTextAreaElement>,
    "id"
  >;
/** A select: its options are the children. */
type SelectProps = Common & { select: true; multiline?: false } & Omit<SelectHTMLAttributes<HTMLSelectElement>, "id">;

export default function Field(props: InputProps | TextareaProps | SelectProps) {
  const {
    id,
    label,
    hint,
    error,
    labelAside,
    describedBy: extra,
    after,
    alertError,
    multiline,
    select,
    suffix,
    className,
    ...control
  } = props;
  const describedBy =
    [hint ? `${id}-hint` : "", extra ?? "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const shared = {
    id,
    className: `field-input ${className ?? ""}`.trim(),
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
  } as const;
  const labelEl = (
    <label htmlFor={id} className="field-label user-text">
      {label}
    </label>
  );
  const controlEl = select ? (
    <select {...(control as SelectHTMLAttributes<HTMLSelectElement>)} {...shared} />
  ) : multiline ? (
    <textarea {...(control as TextareaHTMLAttributes<HTMLTextAreaElement>)} {...shared} />
  ) : (
    <input {...(control as InputHTMLAttributes<HTMLInputElement>)} {...shared} />
  );
  return (
    <div>
      {labelAside ? (
        <div className="flex flex-wrap items-center justify-between gap-x-3">
          {labelEl}
          {labelAside}
        </div>
      ) : (
        labelEl
      )}
      {suffix ? (
        <div className="flex items-center gap-2">
          {controlEl}
          {suffix}
        </div>
      ) : (
        controlEl
      )}
      {hint && (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      )}
      {after}
      {error && (
        <p id={`${id}-error`} className="field-error" role={alertError ? "alert" : undefined}>
          {error}
        </p>
      )}
    </div>
  );
}
