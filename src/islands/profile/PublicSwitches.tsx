/** Edit Profile's "Public Profile" switches: what visitors of the public page see of the supplements. */
import type { Dispatch, SetStateAction } from "react";
import { COPY_TEXT } from "../../lib/copies";
import { SHOW_AFFILIATE_LINKS_LABEL, SHOW_NOTES_LABEL } from "../../lib/insights";
import type { CurrentUser } from "../../lib/types";

/** Why a free member's premium switches are off. */
const PREMIUM_SWITCH_NOTE =
  "Premium only: notes and affiliate links show on your public page while you are a Premium member.";

export type Switch = "showNotes" | "showAffiliateLinks" | "showSchedule" | "allowCopies";
export const switchesOf = (user: CurrentUser): Record<Switch, boolean> => ({
  showNotes: user.showNotes,
  showAffiliateLinks: user.showAffiliateLinks,
  showSchedule: user.showSchedule,
  allowCopies: user.allowCopies,
});

const SWITCHES: { field: Switch; label: string; premium: boolean; hint?: string }[] = [
  { field: "showNotes", label: SHOW_NOTES_LABEL, premium: true },
  { field: "showAffiliateLinks", label: SHOW_AFFILIATE_LINKS_LABEL, premium: true },
  {
    field: "showSchedule",
    label: "Show when I take them on my public profile",
    premium: false,
    hint: "Your times of day and amounts only; what you have taken stays private.",
  },
  { field: "allowCopies", label: COPY_TEXT.setting, premium: false, hint: COPY_TEXT.settingHint },
];

interface Props {
  /** The form's id prefix. */
  id: string;
  isPremium: boolean;
  switches: Record<Switch, boolean>;
  onChange: Dispatch<SetStateAction<Record<Switch, boolean>>>;
}

export default function PublicSwitches({ id, isPremium, switches, onChange }: Props) {
  return (
    <fieldset aria-describedby={`${id}-public-hint`}>
      <legend className="font-semibold text-slate-900">Public Profile</legend>
      <p id={`${id}-public-hint`} className="mt-1 text-sm text-slate-600">
        What visitors of your public page see of your supplements.
      </p>
      {!isPremium && (
        <p id={`${id}-premium-note`} className="mt-2 rounded-lg bg-premium-50 px-3 py-2 text-sm text-premium-800">
          {PREMIUM_SWITCH_NOTE}
        </p>
      )}
      <div className="mt-4 space-y-4">
        {SWITCHES.map(({ field, label, premium, hint }) => {
          const locked = premium && !isPremium;
          const noteId = locked ? `${id}-premium-note` : hint ? `${id}-${field}-note` : undefined;
          return (
            <div key={field}>
              <label
                className={`flex items-center justify-between gap-4 ${locked ? "cursor-not-allowed" : "cursor-pointer"}`}
              >
                <span className={`min-w-0 text-sm ${locked ? "text-slate-600" : "text-slate-800"}`}>{label}</span>
                <input
                  type="checkbox"
                  role="switch"
                  aria-checked={locked ? false : switches[field]}
                  checked={locked ? false : switches[field]}
                  disabled={locked}
                  aria-describedby={noteId}
                  onChange={(e) => onChange((v) => ({ ...v, [field]: e.target.checked }))}
                  className="peer sr-only"
                />
                <span
                  aria-hidden="true"
                  className="relative inline-flex h-6 w-11 shrink-0 rounded-full bg-slate-400 transition-colors peer-checked:bg-brand-700 peer-disabled:bg-slate-200 peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-brand-600 after:absolute after:top-0.5 after:left-0.5 after:size-5 after:rounded-full after:bg-white after:shadow after:transition-transform peer-checked:after:translate-x-5"
                />
              </label>
              {hint && (
                <p id={noteId} className="mt-1 text-sm text-slate-600">
                  {hint}
                </p>
              )}
            </div>
          );
        })}
      </div>
    </fieldset>
  );
}
