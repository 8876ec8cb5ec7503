import { useId } from "react";
import { SettingsCard } from "./parts";

/** Your data: the export as JSON (everything) or CSV (the supplements). Plain links: they work without JavaScript. */
export default function DataCard() {
  const id = useId();
  return (
    <SettingsCard
      id={`${id}-data`}
      title="Your data"
      description="Download everything we store about you: your account, profile, supplements, billing status and sessions (JSON), or your supplements as a spreadsheet (CSV)."
    >
      <div className="flex flex-wrap gap-3">
        <a className="btn btn-outline" href="/api/account/export?format=json" download>
          Download JSON
        </a>
        <a className="btn btn-outline" href="/api/account/export?format=csv" download>
          Download CSV
        </a>
      </div>
      <p className="mt-4 text-sm text-slate-700">
        For a doctor or pharmacist:{" "}
        <a href="/report" className="font-medium text-brand-800 underline">
          Report for your doctor
        </a>
        , what you took on which days, to print or save as a PDF.
      </p>
    </SettingsCard>
  );
}
