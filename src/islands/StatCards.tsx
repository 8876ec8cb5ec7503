import { useStore } from "@nanostores/react";
import { memberSince } from "../lib/format";
import type { CurrentUser, Supplement } from "../lib/types";
import { $supplements, $supplementsLoaded, seedSupplements, visibleList } from "../stores/supplements";
import { $user, seedUser } from "../stores/user";

/** Total Supplements, Member Since and Status. */
export default function StatCards({
  user: initialUser,
  supplements,
}: {
  user: CurrentUser;
  supplements: Supplement[] | null;
}) {
  seedUser(initialUser);
  seedSupplements(supplements);
  const user = useStore($user) ?? initialUser;
  const storeLoaded = useStore($supplementsLoaded);
  const count = visibleList(storeLoaded, useStore($supplements), supplements).length;
  const loaded = storeLoaded || supplements !== null;
  const cards = [
    { label: "Total Supplements", value: loaded ? String(count) : "..." },
    { label: "Member Since", value: memberSince(user.createdAt) },
    { label: "Status", value: user.isPremium ? "Premium" : "Free" },
  ];
  return (
    <div className="grid gap-4 sm:grid-cols-3">
      {cards.map((card) => (
        <div key={card.label} className="card p-5">
          <p className="text-sm font-medium text-slate-600">{card.label}</p>
          <p
            className={`mt-1 text-2xl font-bold ${card.label === "Status" && user.isPremium ? "text-premium-800" : "text-slate-900"}`}
          >
            {card.value}
          </p>
        </div>
      ))}
    </div>
  );
}
