/**
 * An ingredient line's name (issue 47): a combobox over the nutrient table, searched by name,
 * letter or form (`d3`, `cholecalciferol` find Vitamin D); text that names no nutrient is a line
 * of its own (`Creatine`). Arrow keys move, Enter chooses, Escape closes.
 */
import { useId, useState } from "react";
import { searchNutrients } from "../../lib/ingredients";
import { NUTRIENTS } from "../../lib/nutrients";

export interface PickedName {
  /** The table's id, or null for a name of the user's own. */
  nutrient: string | null;
  name: string;
}

interface Props {
  id: string;
  label: string;
  value: PickedName;
  onChange: (next: PickedName) => void;
  invalid?: boolean;
  describedBy?: string;
}

const SHOWN = 8;

/** The nutrient a typed text names exactly (its name or id, any case), else a name of one's own. */
function typed(text: string): PickedName {
  const t = text.trim().toLowerCase();
  const exact = NUTRIENTS.find((n) => n.name.toLowerCase() === t || n.id === t);
  return exact ? { nutrient: exact.id, name: exact.name } : { nutrient: null, name: text };
}

export default function NutrientPicker({ id, label, value, onChange, invalid, describedBy }: Props) {
  const listId = useId();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const options = open ? searchNutrients(value.name).slice(0, SHOWN) : [];
  const choose = (index: number) => {
    const n = options[index];
    if (n) onChange({ nutrient: n.id, name: n.name });
    setOpen(false);
  };
  return (
    <div className="relative">
      <input
        id={id}
        className="field-input"
        role="combobox"
        aria-label={label}
        aria-autocomplete="list"
        aria-expanded={options.length > 0}
        aria-controls={listId}
        aria-activedescendant={options.length > 0 ? `${listId}-${active}` : undefined}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        autoComplete="off"
        maxLength={60}
        placeholder="e.g., Vitamin D"
        value={value.name}
        onChange={(e) => {
          onChange(typed(e.target.value));
          setOpen(true);
          setActive(0);
        }}
        onFocus={() => setOpen(value.nutrient === null)}
        onBlur={() => setOpen(false)}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" || e.key === "ArrowUp") {
            e.preventDefault();
            if (!open) setOpen(true);
            const step = e.key === "ArrowDown" ? 1 : -1;
            setActive((a) => Math.max(0, Math.min(Math.max(options.length - 1, 0), a + step)));
          } else if (e.key === "Enter" && options.length > 0) {
            e.preventDefault();
            choose(active);
          } else if (e.key === "Escape") {
            setOpen(false);
          }
        }}
      />
      <div
        id={listId}
        role="listbox"
        aria-label={label}
        hidden={options.length === 0}
        className="absolute z-20 mt-1 max-h-60 w-full overflow-auto rounded-xl border border-slate-200 bg-white py-1 shadow-lg"
      >
        {options.map((n, index) => (
          <div
            key={n.id}
            id={`${listId}-${index}`}
            role="option"
            tabIndex={-1}
            aria-selected={index === active}
            className={`cursor-pointer px-3 py-1.5 text-sm ${index === active ? "bg-brand-50 text-brand-900" : "text-slate-900"}`}
            onMouseDown={(e) => {
              e.preventDefault();
              choose(index);
            }}
          >
            {n.name} <span className="text-slate-700">({n.unit})</span>
          </div>
        ))}
      </div>
    </div>
  );
}
