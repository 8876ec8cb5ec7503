/**
 * Makes the web app manifest's PNG icons (issue 19) from one SVG, once; the PNGs are committed.
 *   bun scripts/make-icons.ts
 * `icon-192.png` and `icon-512.png` are the rounded mark; `icon-maskable-512.png` fills the
 * square with the brand colour and keeps the mark inside the central 80% (the safe zone).
 */
import { join } from "node:path";
import sharp from "sharp";

const BRAND = "#047857";
const lines = (scale: number, offset: number) =>
  `<g transform="translate(${offset} ${offset}) scale(${scale})"><path d="M9 21h14M9 16h14M9 11h14" stroke="#fff" stroke-width="3" stroke-linecap="round"/></g>`;
const rounded = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="${BRAND}"/>${lines(1, 0)}</svg>`;
// The mark at 60% of the square, centred: well inside the 80% safe circle.
const maskable = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" fill="${BRAND}"/>${lines(0.6, 6.4)}</svg>`;

const out = join(import.meta.dir, "..", "public");
for (const [name, svg, size] of [
  ["icon-192.png", rounded, 192],
  ["icon-512.png", rounded, 512],
  ["icon-maskable-512.png", maskable, 512],
] as const) {
  await sharp(Buffer.from(svg), { density: (72 * size) / 32 })
    .resize(size, size)
    .png({ compressionLevel: 9 })
    .toFile(join(out, name));
  console.log(`public/${name}`);
}
