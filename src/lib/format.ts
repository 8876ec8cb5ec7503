/** Small formatting rules used on both sides. */
import { PRODUCT_NAME } from "./constants";

/** A page's <title>: 'Dashboard · <product>'. */
export const pageTitle = (title: string): string => `${title} · ${PRODUCT_NAME}`;

/** The avatar's letter: username, then e-mail, then 'U'. */
export function avatarInitial(user: { username?: string | null; email?: string | null } | null | undefined): string {
  const source = user?.username?.trim() || user?.email?.trim() || "";
  return (source[0] ?? "U").toUpperCase();
}

/** 'Member Since': short month and year ('Nov 2026'), or 'N/A'. */
export function memberSince(date: string | Date | null | undefined): string {
  if (!date) return "N/A";
  const d = typeof date === "string" ? new Date(date) : date;
  if (Number.isNaN(d.getTime())) return "N/A";
  return d.toLocaleDateString("en-US", { month: "short", year: "numeric", timeZone: "UTC" });
}
