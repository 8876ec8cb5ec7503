import { useStore } from "@nanostores/react";
import Menu from "../components/Menu";
import { PRODUCT_NAME } from "../lib/constants";
import type { CurrentUser } from "../lib/types";
import { $user, seedUser } from "../stores/user";
import Avatar from "./Avatar";

interface Props {
  user: CurrentUser;
  /** The current path, to mark the active link. */
  path: string;
}

/** The signed-in top bar: Dashboard, My Profile, the Premium badge and the avatar menu. */
export default function TopBar({ user: initial, path }: Props) {
  seedUser(initial);
  const user = useStore($user) ?? initial;
  const linkClass = (active: boolean) =>
    `rounded-lg px-2 py-2 text-sm font-medium sm:px-3 ${active ? "bg-brand-50 text-brand-800" : "text-slate-700 hover:bg-slate-100 hover:text-slate-900"}`;

  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/95 backdrop-blur">
      <nav aria-label="Main" className="container-page flex h-16 items-center justify-between gap-3">
        <div className="flex min-w-0 items-center gap-2 sm:gap-6">
          <a
            href="/"
            className="inline-flex items-center gap-2 rounded-lg text-lg font-bold tracking-tight text-slate-900"
          >
            <svg aria-hidden="true" viewBox="0 0 32 32" className="size-8 shrink-0">
              <rect width="32" height="32" rx="8" fill="#047857" />
              <path d="M9 21h14M9 16h14M9 11h14" stroke="#fff" strokeWidth="3" strokeLinecap="round" />
            </svg>
            <span className="max-sm:sr-only">{PRODUCT_NAME}</span>
          </a>
          <div className="flex items-center gap-1">
            <a href="/" className={linkClass(path === "/")} aria-current={path === "/" ? "page" : undefined}>
              Dashboard
            </a>
            {user.username && (
              <a
                href={`/${user.username}`}
                className={linkClass(path.toLowerCase() === `/${user.username.toLowerCase()}`)}
              >
                My Profile
              </a>
            )}
          </div>
        </div>
        {/* Below sm the links take the room: the Premium badge shrinks to its star on the avatar's corner. */}
        <div className="relative flex shrink-0 items-center gap-3">
          {user.isPremium && (
            <span className="badge bg-premium-100 text-premium-800 max-sm:pointer-events-none max-sm:absolute max-sm:-right-1 max-sm:-bottom-1 max-sm:z-10 max-sm:p-1 max-sm:ring-2 max-sm:ring-white">
              <svg aria-hidden="true" viewBox="0 0 24 24" className="size-3.5" fill="currentColor">
                <path d="m12 3 2.6 5.6 6.1.7-4.5 4.2 1.2 6-5.4-3-5.4 3 1.2-6-4.5-4.2 6.1-.7L12 3Z" />
              </svg>
              <span className="max-sm:sr-only">Premium</span>
            </span>
          )}
          <Menu
            label="Account menu"
            triggerClassName="rounded-full ring-offset-2 focus-visible:ring-2 focus-visible:ring-brand-600"
            trigger={<Avatar user={user} size="md" />}
            separatorsAfter={user.isPremium ? [1] : [2]}
            worksWithoutScript
            items={[
              { label: "Edit Profile", href: "/profile/edit" },
              { label: "Settings", href: "/settings" },
              ...(user.isPremium ? [] : [{ label: "Upgrade to Premium", href: "/subscribe" }]),
              // A POST (origin-checked): a link or an <img> pointing at the URL cannot sign anyone out.
              { label: "Logout", action: "/api/logout" },
            ]}
          />
        </div>
      </nav>
    </header>
  );
}
