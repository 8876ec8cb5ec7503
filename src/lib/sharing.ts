/**
 * Sharing a profile (issue 16): the public URLs of a profile's social card and QR code,
 * the names of the downloaded files, and the user-facing strings. Imported by the pages,
 * the Share dialog and the server alike (no server code here).
 */
import { formatLong } from "./date-format";

/** The social card's size: the one Open Graph and X's `summary_large_image` expect. */
export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;

/** `/og/{username}/{version}.png`: immutable, `version` changes whenever the card does. */
export const cardPath = (username: string, version: string) =>
  `/og/${encodeURIComponent(username)}/${encodeURIComponent(version)}.png`;

/** `/{username}/qr.svg`: a QR code of the profile's absolute URL. */
export const qrPath = (username: string) => `/${encodeURIComponent(username)}/qr.svg`;

/** The file a Download button saves: `{username}-qr.svg` / `{username}-qr.png`. */
export const qrFileName = (username: string, kind: "svg" | "png") => `${username}-qr.${kind}`;

/** The card's alternative text (og:image:alt). */
export const cardAlt = (username: string, count: number, product: string) =>
  `@${username}'s supplement stack on ${product}: ${count} ${count === 1 ? "supplement" : "supplements"}`;

/** The line printed under the name: 'Printed 23 November 2026', the day in `timeZone` (the reader's own by default). */
export function printedOn(date: Date, timeZone?: string): string {
  const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  return `Printed ${formatLong(date, zone)}`;
}

export const SHARING_TEXT = {
  qrHeading: "QR code",
  qrHint: "Scan to open your public profile, or download it for print.",
  downloadSvg: "Download SVG",
  downloadPng: "Download PNG",
  pngFailed: "Could not make the PNG. Please try Download SVG.",
  print: "Print",
} as const;
