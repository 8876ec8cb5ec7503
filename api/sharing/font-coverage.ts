/**
 * Which characters a font file really draws, read from its `cmap` table (WOFF or TTF/OTF).
 * A font package's declared unicode-range is not enough: Noto Sans SC's slices declare Hangul
 * ranges they hold no glyphs for, and satori would draw those as empty boxes.
 */
import { inflateSync } from "node:zlib";

/** A sorted list of [first, last] code point ranges that map to a real glyph. */
export type Coverage = [number, number][];

function sfntTable(font: Uint8Array, tag: string): DataView | undefined {
  const view = new DataView(font.buffer, font.byteOffset, font.byteLength);
  const signature = String.fromCharCode(font[0] ?? 0, font[1] ?? 0, font[2] ?? 0, font[3] ?? 0);
  if (signature === "wOFF") {
    const count = view.getUint16(12);
    for (let i = 0; i < count; i++) {
      const entry = 44 + i * 20;
      const name = String.fromCharCode(...font.subarray(entry, entry + 4));
      if (name !== tag) continue;
      const offset = view.getUint32(entry + 4);
      const compressed = view.getUint32(entry + 8);
      const length = view.getUint32(entry + 12);
      const raw = font.subarray(offset, offset + compressed);
      const data = compressed < length ? new Uint8Array(inflateSync(raw)) : raw;
      return new DataView(data.buffer, data.byteOffset, data.byteLength);
    }
    return undefined;
  }
  const count = view.getUint16(4);
  for (let i = 0; i < count; i++) {
    const entry = 12 + i * 16;
    if (String.fromCharCode(...font.subarray(entry, entry + 4)) !== tag) continue;
    return new DataView(font.buffer, font.byteOffset + view.getUint32(entry + 8), view.getUint32(entry + 12));
  }
  return undefined;
}

function addRange(out: Coverage, first: number, last: number) {
  const previous = out[out.length - 1];
  if (previous && first <= previous[1] + 1) previous[1] = Math.max(previous[1], last);
  else out.push([first, last]);
}

/** The code points the font maps to a glyph other than .notdef (cmap format 12, else 4). */
export function fontCoverage(font: Uint8Array): Coverage {
  const cmap = sfntTable(font, "cmap");
  if (!cmap) return [];
  const records = cmap.getUint16(2);
  let format4: number | undefined;
  let format12: number | undefined;
  for (let i = 0; i < records; i++) {
    const platform = cmap.getUint16(4 + i * 8);
    const encoding = cmap.getUint16(6 + i * 8);
    const offset = cmap.getUint32(8 + i * 8);
    const format = cmap.getUint16(offset);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    if (format === 12) format12 ??= offset;
    if (format === 4) format4 ??= offset;
  }
  const points: [number, number][] = [];
  if (format12 !== undefined) {
    const groups = cmap.getUint32(format12 + 12);
    for (let g = 0; g < groups; g++) {
      const base = format12 + 16 + g * 12;
      const first = cmap.getUint32(base);
      const last = cmap.getUint32(base + 4);
      const glyph = cmap.getUint32(base + 8);
      points.push([glyph === 0 ? first + 1 : first, last]);
    }
  } else if (format4 !== undefined) {
    const segments = cmap.getUint16(format4 + 6) / 2;
    const ends = format4 + 14;
    const starts = ends + segments * 2 + 2;
    const deltas = starts + segments * 2;
    const rangeOffsets = deltas + segments * 2;
    for (let s = 0; s < segments; s++) {
      const end = cmap.getUint16(ends + s * 2);
      const start = cmap.getUint16(starts + s * 2);
      const delta = cmap.getInt16(deltas + s * 2);
      const rangeOffset = cmap.getUint16(rangeOffsets + s * 2);
      for (let c = start; c <= end && c !== 0xffff; c++) {
        let glyph: number;
        if (rangeOffset === 0) glyph = (c + delta) & 0xffff;
        else {
          const at = rangeOffsets + s * 2 + rangeOffset + (c - start) * 2;
          glyph = at + 2 <= cmap.byteLength ? cmap.getUint16(at) : 0;
          if (glyph !== 0) glyph = (glyph + delta) & 0xffff;
        }
        if (glyph !== 0) points.push([c, c]);
      }
    }
  }
  points.sort((a, b) => a[0] - b[0]);
  const out: Coverage = [];
  for (const [first, last] of points) if (first <= last) addRange(out, first, last);
  return out;
}

/** Whether `cp` is in the coverage (binary search). */
export function covers(coverage: Coverage, cp: number): boolean {
  let low = 0;
  let high = coverage.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const range = coverage[mid] as [number, number];
    if (cp < range[0]) high = mid - 1;
    else if (cp > range[1]) low = mid + 1;
    else return true;
  }
  return false;
}
