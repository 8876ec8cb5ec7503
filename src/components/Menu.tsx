import { Fragment, type ReactNode, useCallback, useEffect, useId, useRef, useState } from "react";

/**
 * A small accessible menu button (WAI-ARIA menu pattern): Enter, Space or ArrowDown
 * opens it on the first item, ArrowUp on the last; arrows, Home and End move; Escape
 * closes and returns focus to the button; Tab or a click outside closes. Written here
 * rather than taken from a library to keep the dashboard's JavaScript small.
 */
export interface MenuItem {
  label: string;
  /** A link item; otherwise `action` or `onSelect`. */
  href?: string;
  /** A form item: a button that POSTs an empty form to this URL (works without JavaScript too). */
  action?: string;
  target?: string;
  rel?: string;
  onSelect?: () => void;
  danger?: boolean;
  /** Why an `onSelect` item cannot be used now (e.g. `Needs a connection`): its tooltip and description; it does nothing. */
  unavailable?: string;
}

interface Props {
  label: string;
  trigger: ReactNode;
  triggerClassName: string;
  items: MenuItem[];
  header?: ReactNode;
  /** Items after these indexes get a separator. */
  separatorsAfter?: number[];
  /**
   * Until the island runs (and so without JavaScript), render the menu as a native
   * disclosure (<details>) holding its link and form items, so that they still work.
   */
  worksWithoutScript?: boolean;
}

const menuItems = (menu: HTMLElement | null) =>
  Array.from(menu?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);

/** Focuses the item at `index` (negative counts from the end, and it wraps). */
function focusMenuItem(menu: HTMLElement | null, index: number) {
  const els = menuItems(menu);
  if (els.length === 0) return;
  els[(index + els.length) % els.length]?.focus();
}

export default function Menu({
  label,
  trigger,
  triggerClassName,
  items,
  header,
  separatorsAfter = [],
  worksWithoutScript = false,
}: Props) {
  const [open, setOpen] = useState(false);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const id = useId();

  const itemsEls = () => menuItems(list.current);
  const focusItem = (index: number) => focusMenuItem(list.current, index);

  const close = useCallback((returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) button.current?.focus();
  }, []);

  const [initialFocus, setInitialFocus] = useState<"first" | "last">("first");
  useEffect(() => {
    if (!open) return;
    focusMenuItem(list.current, initialFocus === "first" ? 0 : -1);
    const onPointer = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!list.current?.contains(target) && !button.current?.contains(target)) close(false);
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [open, initialFocus, close]);

  function onButtonKey(event: React.KeyboardEvent) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      setInitialFocus(event.key === "ArrowDown" ? "first" : "last");
      setOpen(true);
    }
  }

  function onMenuKey(event: React.KeyboardEvent) {
    const els = itemsEls();
    const index = els.indexOf(document.activeElement as HTMLElement);
    switch (event.key) {
      case "ArrowDown":
        event.preventDefault();
        focusItem(index + 1);
        break;
      case "ArrowUp":
        event.preventDefault();
        focusItem(index - 1);
        break;
      case "Home":
        event.preventDefault();
        focusItem(0);
        break;
      case "End":
        event.preventDefault();
        focusItem(-1);
        break;
      case "Escape":
        event.preventDefault();
        close(true);
        break;
      case "Tab":
        close(false);
        break;
    }
  }

  const itemClass = (danger?: boolean) =>
    `flex w-full cursor-pointer items-center rounded-md px-3 py-2 text-left text-sm outline-none select-none focus:bg-slate-100 hover:bg-slate-100 ${danger ? "text-red-700" : "text-slate-800"}`;
  const panelClass =
    "absolute top-full right-0 z-50 mt-2 min-w-48 rounded-xl border border-slate-200 bg-white p-1.5 shadow-lg";

  if (worksWithoutScript && !hydrated) {
    // Server-rendered (and what stays without JavaScript): links and forms in a native
    // disclosure. Items that need script (onSelect) are left out.
    return (
      <details className="relative">
        <summary
          className={`${triggerClassName} block cursor-pointer list-none [&::-webkit-details-marker]:hidden`}
          aria-label={label}
        >
          {trigger}
        </summary>
        <div className={panelClass}>
          {header}
          {items.map((item, i) => (
            <Fragment key={item.label}>
              {item.href ? (
                <a href={item.href} target={item.target} rel={item.rel} className={itemClass(item.danger)}>
                  {item.label}
                </a>
              ) : item.action ? (
                <form method="post" action={item.action}>
                  <button type="submit" className={itemClass(item.danger)}>
                    {item.label}
                  </button>
                </form>
              ) : null}
              {separatorsAfter.includes(i) && <hr className="my-1 border-slate-200" />}
            </Fragment>
          ))}
        </div>
      </details>
    );
  }

  return (
    <div className="relative">
      <button
        ref={button}
        type="button"
        className={triggerClassName}
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => {
          setInitialFocus("first");
          setOpen((o) => !o);
        }}
        onKeyDown={onButtonKey}
      >
        {trigger}
      </button>
      {open && (
        <div
          ref={list}
          id={id}
          role="menu"
          aria-label={label}
          tabIndex={-1}
          onKeyDown={onMenuKey}
          className={panelClass}
        >
          {header}
          {items.map((item, i) => (
            <Fragment key={item.label}>
              {item.href ? (
                <a
                  role="menuitem"
                  tabIndex={-1}
                  href={item.href}
                  target={item.target}
                  rel={item.rel}
                  className={itemClass(item.danger)}
                  onClick={() => close(false)}
                >
                  {item.label}
                </a>
              ) : item.action ? (
                // A real form: Enter or Space on the focused item submits it, with or without script.
                <form method="post" action={item.action}>
                  <button type="submit" role="menuitem" tabIndex={-1} className={itemClass(item.danger)}>
                    {item.label}
                  </button>
                </form>
              ) : (
                <button
                  type="button"
                  role="menuitem"
                  tabIndex={-1}
                  className={itemClass(item.danger)}
                  aria-disabled={item.unavailable ? true : undefined}
                  title={item.unavailable}
                  onClick={() => {
                    if (item.unavailable) return;
                    close(true);
                    item.onSelect?.();
                  }}
                >
                  {item.label}
                </button>
              )}
              {separatorsAfter.includes(i) && <hr className="my-1 border-slate-200" />}
            </Fragment>
          ))}
        </div>
      )}
    </div>
  );
}
