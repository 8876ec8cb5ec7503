import * as Menu from "@radix-ui/react-dropdown-menu";
import { useStore } from "@nanostores/react";
import type { CurrentUser } from "../lib/types";
import { $user, seedUser } from "../stores/user";
import Avatar from "./Avatar";

interface Props {
  user: CurrentUser;
  /** The current path, to mark the active link. */
  path: string;
}

const itemClass =
  "flex cursor-pointer items-center gap-2 rounded-md px-3 py-2 text-sm text-slate-800 outline-none select-none data-[highlighted]:bg-slate-100 data-[highlighted]:text-slate-900";

/** The signed-in top bar: Dashboard, My Profile, the Premium badge and the avatar menu. */
export default function TopBar({ user: initial, path }: Props) {
  seedUser(initial);
  const user = useStore($user) ?? initial;
  const linkClass = (active: boolean) =>
    `rounded-lg px-3 py-2 text-sm font-medium ${active ? "bg-brand-50 text-brand-800" : "text-slate-700 hover:bg-slate-100 hover:text-slate-900"}`;

  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/95 backdrop-blur">
      <nav aria-label="Main" className="container-page flex h-16 items-center justify-between gap-3">
        <div className="flex min-w-0 items-center gap-2 sm:gap-6">
          <a href="/" className="inline-flex items-center gap-2 rounded-lg text-lg font-bold tracking-tight text-slate-900">
            <svg aria-hidden="true" viewBox="0 0 32 32" className="size-8 shrink-0">
              <rect width="32" height="32" rx="8" fill="#047857" />
              <path d="M9 21h14M9 16h14M9 11h14" stroke="#fff" strokeWidth="3" strokeLinecap="round" />
            </svg>
            <span className="hidden sm:inline">StackTrack</span>
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
        <div className="flex items-center gap-3">
          {user.isPremium && (
            <span className="badge bg-premium-100 text-premium-800">
              <svg aria-hidden="true" viewBox="0 0 24 24" className="size-3.5" fill="currentColor">
                <path d="m12 3 2.6 5.6 6.1.7-4.5 4.2 1.2 6-5.4-3-5.4 3 1.2-6-4.5-4.2 6.1-.7L12 3Z" />
              </svg>
              Premium
            </span>
          )}
          <Menu.Root modal={false}>
            <Menu.Trigger
              className="rounded-full ring-offset-2 focus-visible:ring-2 focus-visible:ring-brand-600"
              aria-label="Account menu"
            >
              <Avatar user={user} size="md" />
            </Menu.Trigger>
            <Menu.Portal>
              <Menu.Content
                align="end"
                sideOffset={8}
                className="z-50 min-w-56 rounded-xl border border-slate-200 bg-white p-1.5 shadow-lg"
              >
                <div className="px-3 py-2">
                  <p className="truncate text-sm font-semibold text-slate-900">
                    {user.username ? `@${user.username}` : user.email}
                  </p>
                  <p className="truncate text-xs text-slate-600">{user.email}</p>
                </div>
                <Menu.Separator className="my-1 h-px bg-slate-200" />
                <Menu.Item asChild className={itemClass}>
                  <a href="/profile/edit">Settings</a>
                </Menu.Item>
                {!user.isPremium && (
                  <Menu.Item asChild className={itemClass}>
                    <a href="/subscribe">Upgrade to Premium</a>
                  </Menu.Item>
                )}
                <Menu.Separator className="my-1 h-px bg-slate-200" />
                <Menu.Item asChild className={itemClass}>
                  <a href="/api/logout">Logout</a>
                </Menu.Item>
              </Menu.Content>
            </Menu.Portal>
          </Menu.Root>
        </div>
      </nav>
    </header>
  );
}
