import { useStore } from "@nanostores/react";
import type { CurrentUser, Supplement } from "../lib/types";
import { $supplements, $supplementsLoaded, seedSupplements, visibleList } from "../stores/supplements";
import { $user, seedUser } from "../stores/user";
import Avatar from "./Avatar";

/** The side 'Public Profile' card. */
export default function ProfileCard({
  user: initialUser,
  supplements,
}: {
  user: CurrentUser;
  supplements: Supplement[] | null;
}) {
  seedUser(initialUser);
  seedSupplements(supplements);
  const user = useStore($user) ?? initialUser;
  const count = visibleList(useStore($supplementsLoaded), useStore($supplements), supplements).length;
  return (
    <section className="card p-6" aria-labelledby="public-profile-heading">
      <h2 id="public-profile-heading" className="text-lg font-semibold text-slate-900">
        Public Profile
      </h2>
      <div className="mt-4 flex items-center gap-4">
        <Avatar user={user} size="lg" />
        <div className="min-w-0">
          <p className="truncate font-semibold text-slate-900">
            {user.username ? `@${user.username}` : "Anonymous User"}
          </p>
          <p className="text-sm text-slate-600">{user.isPremium ? "Premium Member" : "Free Member"}</p>
        </div>
      </div>
      <p
        className={`user-text mt-4 text-sm whitespace-pre-line ${user.bio ? "text-slate-700" : "text-slate-600 italic"}`}
      >
        {user.bio || "No bio added yet"}
      </p>
      <dl className="mt-4 grid grid-cols-2 gap-3 border-t border-slate-200 pt-4 text-sm">
        <div>
          <dt className="text-slate-600">Supplements</dt>
          <dd className="font-semibold text-slate-900">{count}</dd>
        </div>
        <div>
          <dt className="text-slate-600">Status</dt>
          <dd className="font-semibold text-slate-900">{user.isPremium ? "Premium" : "Free"}</dd>
        </div>
      </dl>
      <a href="/profile/edit" className="btn btn-outline mt-5 w-full">
        Edit Profile
      </a>
    </section>
  );
}
