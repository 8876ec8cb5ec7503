/**
 * The social card's fonts and emoji, all read from npm packages (never system fonts, never
 * the network): Noto Sans, Noto Sans SC and KR (slices read on demand), Twemoji.
 *
 * Key rules: a card is drawn with the base fonts plus exactly the slices its own text needs,
 * in one fixed order (`cardFonts`), so the same card gives the same bytes on every instance;
 * a grapheme no shipped font or emoji covers becomes U+FFFD '�', never an empty box.
 * Details: docs/features.md, "Sharing (issue 16)".
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { LRUCache } from "lru-cache";
import type { Font } from "satori";
import { type Coverage, covers, fontCoverage } from "./font-coverage";

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** Drawn instead of a character no shipped font or emoji covers. */
export const FALLBACK_CHARACTER = "\uFFFD";

type Range = [number, number];

/** `U+0000-00FF,U+0131` → [[0, 255], [305, 305]]. */
function parseRanges(list: string): Range[] {
  return list.split(",").map((part) => {
    const [from, to] = part.trim().replace(/^U\+/i, "").split("-");
    const start = Number.parseInt(from ?? "", 16);
    return [start, to ? Number.parseInt(to, 16) : start];
  });
}

const inRanges = (ranges: Range[], cp: number) => ranges.some(([a, b]) => cp >= a && cp <= b);

const NOTO_SUBSETS = [
  "latin",
  "latin-ext",
  "vietnamese",
  "greek",
  "greek-ext",
  "cyrillic",
  "cyrillic-ext",
  "devanagari",
] as const;
const WEIGHTS = [400, 700] as const;

/** The CJK families, tried in this order: Chinese and Japanese kana, then Korean Hangul. */
const CJK_FAMILIES = [
  { pkg: "@fontsource/noto-sans-sc", prefix: "noto-sans-sc", name: "Noto Sans SC" },
  { pkg: "@fontsource/noto-sans-kr", prefix: "noto-sans-kr", name: "Noto Sans KR" },
] as const;

/** One unicode-range slice of a CJK family; its real coverage is read when first needed. */
interface Slice {
  name: string;
  files: { weight: number; path: string }[];
  declared: Range[];
  coverage?: Coverage;
}

interface Shipped {
  base: Font[];
  baseCoverage: Coverage[];
  slices: Slice[];
  emojiDir: string;
  emojiFiles: Set<string>;
}

let shipped: Shipped | undefined;

/** Reads the base fonts and the lists once per process (a few MB). */
function load(): Shipped {
  if (shipped) return shipped;
  const notoDir = packageDir("@fontsource/noto-sans");
  const base: Font[] = [];
  const baseCoverage: Coverage[] = [];
  for (const subset of NOTO_SUBSETS) {
    for (const weight of WEIGHTS) {
      const data = readFileSync(join(notoDir, "files", `noto-sans-${subset}-${weight}-normal.woff`));
      if (weight === 400) baseCoverage.push(fontCoverage(data));
      base.push({ name: `Noto Sans ${subset}`, data, weight, style: "normal" });
    }
  }
  const slices: Slice[] = [];
  for (const family of CJK_FAMILIES) {
    const dir = packageDir(family.pkg);
    const ranges = JSON.parse(readFileSync(join(dir, "unicode.json"), "utf8")) as Record<string, string>;
    for (const [key, list] of Object.entries(ranges)) {
      const slice = /^\[(\d+)\]$/.exec(key)?.[1];
      if (!slice) continue;
      slices.push({
        name: `${family.name} ${slice}`,
        declared: parseRanges(list),
        files: WEIGHTS.map((weight) => ({
          weight,
          path: join(dir, "files", `${family.prefix}-${slice}-${weight}-normal.woff`),
        })),
      });
    }
  }
  const emojiDir = packageDir("@twemoji/svg");
  const emojiFiles = new Set(readdirSync(emojiDir).filter((name) => name.endsWith(".svg")));
  shipped = { base, baseCoverage, slices, emojiDir, emojiFiles };
  return shipped;
}

/** The first CJK slice whose font really has the character (its cmap read once, when first asked). */
function cjkSlice(cp: number): Slice | undefined {
  for (const slice of load().slices) {
    if (!inRanges(slice.declared, cp)) continue;
    slice.coverage ??= fontCoverage(readFileSync(slice.files[0]?.path ?? ""));
    if (covers(slice.coverage, cp)) return slice;
  }
  return undefined;
}

/** The family the card asks for; satori falls back to the other fonts glyph by glyph. */
export const CARD_FONT_FAMILY = "Noto Sans latin";

/**
 * The fonts every render starts with (one array: satori caches its parsed fonts by it). Each
 * subset has a name of its own: satori keeps one font per name and weight.
 */
export function baseFonts(): Font[] {
  return load().base;
}

const EMOJI = /^\p{RGI_Emoji}$/v;
const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });

/** Twemoji's file for an emoji: code points in hex, U+FE0F dropped unless it is a ZWJ sequence. */
function emojiFile(emoji: string): string | undefined {
  const { emojiFiles } = load();
  const points = [...emoji].map((c) => (c.codePointAt(0) ?? 0).toString(16));
  const candidates = [
    (emoji.includes("\u200d") ? points : points.filter((p) => p !== "fe0f")).join("-"),
    points.filter((p) => p !== "fe0f").join("-"),
    points.join("-"),
  ];
  return candidates.map((name) => `${name}.svg`).find((name) => emojiFiles.has(name));
}

const emojiImages = new Map<string, string>();

/** The emoji as a data: URI of its Twemoji SVG, or undefined when the set lacks it. */
export function emojiImage(emoji: string): string | undefined {
  const hit = emojiImages.get(emoji);
  if (hit) return hit;
  const file = emojiFile(emoji);
  if (!file) return undefined;
  const uri = `data:image/svg+xml;base64,${readFileSync(join(load().emojiDir, file)).toString("base64")}`;
  emojiImages.set(emoji, uri);
  return uri;
}

/** Characters that take no glyph of their own: joiners, variation selectors, spaces, tabs. */
const invisible = (cp: number, char: string) =>
  /^\s$/u.test(char) || (cp >= 0x200b && cp <= 0x200d) || cp === 0x2060 || (cp >= 0xfe00 && cp <= 0xfe0f);

function drawable(cp: number): boolean {
  if (invisible(cp, String.fromCodePoint(cp))) return true;
  return load().baseCoverage.some((coverage) => covers(coverage, cp)) || cjkSlice(cp) !== undefined;
}

/**
 * The text as the card draws it: every grapheme that a shipped font or emoji covers kept,
 * every other one replaced by FALLBACK_CHARACTER (whole: a base letter with a mark no font
 * has is one '�', not a letter and a box). Line breaks become spaces (the card clamps lines).
 */
export function drawableText(text: string): string {
  let out = "";
  for (const { segment } of graphemes.segment(text)) {
    if (segment === "\n" || segment === "\r\n" || segment === "\r") {
      out += " ";
    } else if (EMOJI.test(segment)) {
      out += emojiFile(segment) ? segment : FALLBACK_CHARACTER;
    } else {
      const points = [...segment].map((c) => c.codePointAt(0) ?? 0);
      out += points.every(drawable) ? segment : FALLBACK_CHARACTER;
    }
  }
  return out;
}

/** The Font entries of a CJK slice (its files read once per process and kept). */
const sliceFonts = new Map<Slice, Font[]>();
function fontsOfSlice(slice: Slice): Font[] {
  let fonts = sliceFonts.get(slice);
  if (!fonts) {
    fonts = slice.files
      .filter((file) => existsSync(file.path))
      .map((file) => ({
        name: slice.name,
        data: readFileSync(file.path),
        weight: file.weight as 400 | 700,
        style: "normal" as const,
      }));
    sliceFonts.set(slice, fonts);
  }
  return fonts;
}

/** Font lists by the slices they add to the base fonts (the same list object each time: satori keeps its loader by it). */
const fontLists = new LRUCache<string, Font[]>({ max: 32 });

/**
 * The fonts a card with these (drawable) texts is drawn with: the base fonts, then the CJK
 * slices its characters need, in the one fixed order of `load().slices`. Only the card's own
 * text decides them, never what the process drew before: satori draws each character with the
 * first font in its list that has it, and fonts handed over through loadAdditionalAsset would
 * be added to a loader every card shares, in the order earlier cards needed them (a '。' drawn
 * from a Korean slice on one instance and a Chinese one on another).
 */
export function cardFonts(texts: string[]): Font[] {
  const { base, baseCoverage, slices } = load();
  const needed = new Set<Slice>();
  for (const text of texts) {
    for (const char of text) {
      const cp = char.codePointAt(0) ?? 0;
      if (baseCoverage.some((coverage) => covers(coverage, cp))) continue;
      const slice = cjkSlice(cp);
      if (slice) needed.add(slice);
    }
  }
  if (needed.size === 0) return base;
  const ordered = slices.filter((slice) => needed.has(slice));
  const key = ordered.map((slice) => slice.name).join("|");
  let list = fontLists.get(key);
  if (!list) {
    list = [...base, ...ordered.flatMap(fontsOfSlice)];
    fontLists.set(key, list);
  }
  return list;
}

/**
 * satori's `loadAdditionalAsset`: an emoji's picture. No font is ever handed over here (see
 * cardFonts): anything else has no asset, and drawableText has already replaced what no
 * shipped font covers.
 */
export async function loadAdditionalAsset(code: string, segment: string): Promise<string | Font[]> {
  if (code === "emoji") return emojiImage(segment) ?? [];
  return [];
}
