/**
 * Sharing a profile (issue 16): the public URLs of a profile's social card and QR code,
 * the names of the downloaded files, and the user-facing strings. Imported by the pages,
 * the Share dialog and the server alike (no server code here).
 */

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

/**
 * Formatters by time zone (undefined: the reader's own). Made once: `toLocaleDateString` builds
 * a new one on every call, about 78 µs on the server, once per profile page rendered.
 */
const printFormats = new Map<string | undefined, Intl.DateTimeFormat>();
const MAX_PRINT_FORMATS = 16;

/** The line printed under the name: 'Printed November 23, 2026' in the reader's language. */
export function printedOn(date: Date, timeZone?: string): string {
  let format = printFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long", day: "numeric", timeZone });
    if (printFormats.size < MAX_PRINT_FORMATS) printFormats.set(timeZone, format);
  }
  return `Printed ${format.format(date)}`;
}

export const SHARING_TEXT = {
  qrHeading: "QR code",
  qrHint: "Scan to open your public profile, or download it for print.",
  downloadSvg: "Download SVG",
  downloadPng: "Download PNG",
  pngFailed: "Could not make the PNG. Please try Download SVG.",
  print: "Print",
} as const;
