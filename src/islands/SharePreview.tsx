import { useStore } from "@nanostores/react";
import Modal from "../components/Modal";
import { notify } from "../lib/toast";
import type { CurrentUser } from "../lib/types";
import { $dialog, $supplements } from "../stores/supplements";
import { $user, seedUser } from "../stores/user";
import Avatar from "./Avatar";
import DoseLine from "./DoseLine";
import ShareQr from "./ShareQr";

/** The Public Profile Preview: what visitors see, with Copy Link and View Live. */
export default function SharePreview({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  const dialog = useStore($dialog);
  const list = useStore($supplements);
  const url = user.username ? `${window.location.origin}/${user.username}` : null;

  async function copy() {
    if (!url) {
      notify.error("You need to set a username to share your profile", "Set up username first");
      return;
    }
    try {
      await navigator.clipboard.writeText(url);
      notify.success("Link copied!");
    } catch {
      notify.error("Could not copy the link. Please copy it from the address shown.");
    }
  }

  return (
    <Modal
      open={dialog?.kind === "share"}
      onOpenChange={(next) => {
        if (!next) $dialog.set(null);
      }}
      title="Public Profile Preview"
      description="This is how your profile looks to visitors."
      size="lg"
    >
      <div className="flex flex-wrap gap-2">
        <button type="button" className="btn btn-primary" onClick={copy}>
          Copy Link
        </button>
        {url ? (
          <a href={url} target="_blank" rel="noopener noreferrer" className="btn btn-outline">
            View Live
          </a>
        ) : (
          <button type="button" className="btn btn-outline" disabled>
            View Live
          </button>
        )}
      </div>
      {url && <p className="mt-2 truncate text-sm text-slate-600">{url}</p>}
      {user.username && url && <ShareQr username={user.username} url={url} />}
      {!user.username && (
        <div className="mt-4 rounded-xl border border-premium-100 bg-premium-50 p-4">
          <p className="font-semibold text-premium-800">Set Up Your Username</p>
          <p className="mt-1 text-sm text-slate-700">Choose a username to get a public profile link you can share.</p>
          <a href="/profile/edit" className="btn btn-outline btn-sm mt-3">
            Set Up Username
          </a>
        </div>
      )}
      <div className="mt-5 rounded-xl border border-slate-200 bg-slate-50 p-5">
        <div className="flex flex-col items-center text-center">
          <Avatar user={user} size="lg" />
          <p className="user-text mt-3 text-lg font-semibold text-slate-900">
            {user.username ? `@${user.username}` : "Anonymous User"}
          </p>
          {user.bio && <p className="user-text mt-1 text-sm whitespace-pre-line text-slate-700">{user.bio}</p>}
        </div>
        <ul className="mt-4 space-y-2">
          {list.length === 0 ? (
            <li className="text-center text-sm text-slate-600">No supplements added yet</li>
          ) : (
            list.map((s) => (
              <li key={s.id} className="rounded-lg bg-white px-4 py-2.5 shadow-sm">
                <p className="user-text font-medium text-slate-900">{s.name}</p>
                <p className="user-text text-sm text-slate-700">
                  <DoseLine doseAmount={user.showSchedule ? s.doseAmount : null} quantityType={s.quantityType} />
                  {s.frequency}
                </p>
              </li>
            ))
          )}
        </ul>
      </div>
    </Modal>
  );
}
