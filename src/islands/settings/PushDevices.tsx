/** Settings → Reminders: the devices that receive push, each with its Remove button. */
import type { ReminderSettingsJson } from "../../lib/reminders";

type Device = ReminderSettingsJson["devices"][number];

const dateOnly = (iso: string) => new Intl.DateTimeFormat("en-US", { dateStyle: "medium" }).format(new Date(iso));

interface Props {
  devices: Device[];
  /** Another action runs: the buttons wait. */
  busy: boolean;
  onRemove: (device: Device) => void;
}

export default function PushDevices({ devices, busy, onRemove }: Props) {
  return (
    <div>
      <h3 className="font-medium text-slate-900">Devices that receive push</h3>
      {devices.length === 0 ? (
        <p className="text-sm text-slate-600">None yet.</p>
      ) : (
        <ul
          className="mt-2 divide-y divide-slate-200 rounded-lg border border-slate-200"
          aria-label="Devices that receive push"
        >
          {devices.map((device) => (
            <li key={device.id} className="flex flex-wrap items-center justify-between gap-3 p-3 sm:p-4">
              <div className="min-w-0">
                <p className="font-medium text-slate-900">{device.label}</p>
                <p className="text-sm text-slate-600">
                  Added {dateOnly(device.createdAt)} · Last used{" "}
                  {device.lastUsedAt ? dateOnly(device.lastUsedAt) : "never"}
                </p>
              </div>
              <button
                type="button"
                className="btn btn-outline btn-sm"
                aria-label={`Remove ${device.label}, added ${dateOnly(device.createdAt)}`}
                disabled={busy}
                onClick={() => onRemove(device)}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
