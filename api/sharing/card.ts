/**
 * The social card: a 1200 × 630 PNG of a public profile, at `/og/{username}/{version}.png`.
 *
 * Drawn on the server: satori lays out plain objects (user text is only ever a text child:
 * it cannot become markup) into an SVG; sharp rasterises it, lays the avatar on it and
 * writes a palette PNG (CARD_PNG_OPTIONS). Each version is drawn once per instance
 * (`CardStore`); an old version is drawn again, to the same bytes, from its facts in
 * Postgres (card-versions.ts). Details: docs/features.md, "Sharing (issue 16)".
 */
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import type { ReactNode } from "react";
import type { Db } from "../../db/client";
import { images } from "../../db/schema";
import { UPLOADED_IMAGE_PATH } from "../../src/lib/constants";
import { isReservedUsername } from "../../src/lib/reserved-usernames";
import { CARD_HEIGHT, CARD_WIDTH, cardPath } from "../../src/lib/sharing";
import { isValidUsername } from "../../src/lib/validation";
import { kept, profileTags, Store } from "../lib/cache";
import type { AppContext } from "../lib/context";
import type { AppEnv } from "../lib/env";
import { loadSharp } from "../lib/sharp";
import { findPublicProfile } from "../profile/queries";
import { CARD_VERSION_PATTERN, type CardFacts, cardFacts, cardVersion } from "./card-facts";
import { CARD_FONT_FAMILY, cardFonts, drawableText, loadAdditionalAsset } from "./card-fonts";
import { recordCardVersion, storedCardFacts } from "./card-versions";

const IMMUTABLE = "public, max-age=31536000, immutable";
/** The PNGs one instance keeps (least recently used dropped first). */
export const CARD_STORE_BYTES = 8 * 1024 * 1024;

const BRAND = "#047857";
const BRAND_DARK = "#065f46";
const BRAND_LIGHT = "#ecfdf5";
const INK = "#0f172a";
const MUTED = "#334155";

interface El {
  type: string;
  props: Record<string, unknown>;
}

const el = (
  type: string,
  style: Record<string, unknown>,
  children?: unknown,
  extra: Record<string, unknown> = {},
): El => ({
  type,
  props: { style, children, ...extra },
});

/** The username's size: a 50-character name still fits in two lines. */
function nameSize(username: string): number {
  const length = username.length + 1;
  if (length <= 14) return 72;
  if (length <= 22) return 60;
  if (length <= 32) return 48;
  return 40;
}

/** A chip holds about this many Latin letters at its size; wide characters count twice. */
const CHIP_UNITS = 42;

/**
 * The text cut to about `units` (a CJK character or an emoji counts 2) with '…': cut in
 * code, not by CSS overflow, which satori draws as masks that take sharp ~100 ms each.
 */
export function shorten(text: string, units: number): string {
  let used = 0;
  let out = "";
  for (const { segment } of new Intl.Segmenter("en", { granularity: "grapheme" }).segment(text)) {
    const width = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60]|\p{Extended_Pictographic}/u.test(
      segment,
    )
      ? 2
      : 1;
    if (used + width > units - 1) return `${out.trimEnd()}…`;
    used += width;
    out += segment;
  }
  return out;
}

function initialOf(username: string): string {
  return (username[0] ?? "?").toUpperCase();
}

/** Where the avatar is drawn on the card (the left column's top: its padding), and its size. */
export const AVATAR_BOX = { left: 64, top: 72, size: 220 } as const;

/**
 * The card's tree. Every user string passes drawableText and is a text child, nothing else.
 * With `withAvatar`, the avatar's place (AVATAR_BOX) is left empty: the avatar is laid on the
 * raster there (renderCardPng), which costs librsvg far less than an image in the SVG.
 */
export function cardTree(facts: CardFacts, withAvatar = false): El {
  const avatar = withAvatar
    ? el("div", { width: AVATAR_BOX.size, height: AVATAR_BOX.size })
    : el(
        "div",
        {
          width: AVATAR_BOX.size,
          height: AVATAR_BOX.size,
          borderRadius: AVATAR_BOX.size / 2,
          backgroundColor: BRAND,
          color: "#ffffff",
          fontSize: 110,
          fontWeight: 700,
          display: "flex",
          alignItems: "center",
          justifyContent: "center",
        },
        initialOf(facts.username),
      );
  const bar = (top: number) =>
    el("div", { position: "absolute", left: 12, top, width: 32, height: 6, borderRadius: 3, backgroundColor: "#fff" });
  const logo = el(
    "div",
    { display: "flex", position: "relative", width: 56, height: 56, borderRadius: 14, backgroundColor: BRAND },
    [bar(15), bar(25), bar(35)],
  );
  const more = facts.count - facts.names.length;
  const chips = facts.names.map((name) =>
    el(
      "div",
      {
        display: "block",
        maxWidth: 700,
        padding: "8px 20px",
        borderRadius: 999,
        backgroundColor: BRAND_LIGHT,
        color: BRAND_DARK,
        fontSize: 26,
        whiteSpace: "nowrap",
      },
      shorten(drawableText(name), CHIP_UNITS),
    ),
  );
  if (more > 0) {
    chips.push(el("div", { display: "block", padding: "8px 4px", color: MUTED, fontSize: 26 }, `+${more} more`));
  }
  const countLine =
    facts.count === 0
      ? "No supplements added yet"
      : `${facts.count} ${facts.count === 1 ? "supplement" : "supplements"}`;
  return el(
    "div",
    {
      width: CARD_WIDTH,
      height: CARD_HEIGHT,
      display: "flex",
      backgroundColor: "#ffffff",
      fontFamily: CARD_FONT_FAMILY,
      color: INK,
      boxSizing: "border-box",
      padding: "72px 64px 48px 64px",
      position: "relative",
    },
    [
      el("div", { position: "absolute", left: 0, top: 0, width: CARD_WIDTH, height: 16, backgroundColor: BRAND }),
      el(
        "div",
        { display: "flex", flexDirection: "column", justifyContent: "space-between", width: 240, flexShrink: 0 },
        [
          avatar,
          el("div", { display: "flex", alignItems: "center" }, [
            logo,
            el("div", { marginLeft: 14, fontSize: 32, fontWeight: 700, color: INK }, drawableText(facts.product)),
          ]),
        ],
      ),
      el("div", { display: "flex", flexDirection: "column", marginLeft: 56, flexGrow: 1, flexShrink: 1, minWidth: 0 }, [
        el(
          "div",
          {
            display: "block",
            fontSize: nameSize(facts.username),
            fontWeight: 700,
            lineHeight: 1.15,
            lineClamp: 2,
            wordBreak: "break-all",
          },
          `@${facts.username}`,
        ),
        facts.bio
          ? el(
              "div",
              {
                display: "block",
                marginTop: 18,
                fontSize: 30,
                lineHeight: 1.4,
                color: MUTED,
                lineClamp: 2,
                wordBreak: "break-word",
              },
              drawableText(facts.bio),
            )
          : el("div", { display: "flex" }),
        el("div", { display: "flex", marginTop: "auto", fontSize: 30, fontWeight: 700, color: BRAND_DARK }, countLine),
        el("div", { display: "flex", flexWrap: "wrap", gap: 12, marginTop: 16 }, chips),
      ]),
    ],
  );
}

/**
 * The card as SVG (glyphs as paths: no text, no font, no markup from the user in it); with
 * `withAvatar`, the avatar's circle is left empty for renderCardPng to fill.
 */
export async function renderCardSvg(facts: CardFacts, withAvatar = false): Promise<string> {
  // Loaded on the first card, not at start (issue 17: start-up time).
  const { default: satori } = await import("satori");
  return satori(cardTree(facts, withAvatar) as unknown as ReactNode, {
    width: CARD_WIDTH,
    height: CARD_HEIGHT,
    fonts: cardFonts([facts.username, facts.product, facts.bio ?? "", ...facts.names].map(drawableText)),
    loadAdditionalAsset,
  });
}

/**
 * How the card is written: a palette PNG (at most 256 colours, chosen per card by libimagequant
 * at its best quality, dithered so an avatar's gradients do not band): less than half the bytes
 * of a truecolour PNG (a text card ~19 KB instead of ~40 KB; the bench's cards, with photo-like
 * avatars, 50.5 KB instead of 120.4 KB on average), and a warm card's cost is mostly its bytes. tests/api/sharing.test.ts
 * holds cards to byte budgets. Effort 1 is the quantizer's fastest setting, within a few per
 * cent of its slowest in size. zlib at its default level 6: level 9 saves ~4% of the bytes but
 * costs 10–25 ms more per render, and a render must stay under issue 16's 100 ms with a
 * photo-like avatar (the bench times it).
 */
export const CARD_PNG_OPTIONS = { palette: true, quality: 100, effort: 1, compressionLevel: 6 } as const;

/** An avatar ready to lay on the card: AVATAR_BOX.size square RGBA pixels, transparent outside its circle. */
export interface AvatarLayer {
  data: Buffer;
  size: number;
}

/**
 * The card as a PNG. `avatar` may still be on its way (read and cut while satori lays out the
 * card, which takes the main thread while sharp works on its own threads); when it turns out
 * to be missing, the card is laid out again with the initial.
 */
export async function renderCardPng(
  facts: CardFacts,
  pendingAvatar?: AvatarLayer | Promise<AvatarLayer | undefined>,
): Promise<Uint8Array<ArrayBuffer>> {
  const expected = pendingAvatar !== undefined;
  // Its failure is the render's, reported when awaited below, not as an unhandled rejection meanwhile.
  if (pendingAvatar instanceof Promise) pendingAvatar.catch(() => undefined);
  let svg = await renderCardSvg(facts, expected);
  const avatar = await pendingAvatar;
  if (expected && !avatar) svg = await renderCardSvg(facts, false);
  const sharp = await loadSharp();
  let card = sharp(Buffer.from(svg));
  if (avatar) {
    card = card.composite([
      {
        input: avatar.data,
        raw: { width: avatar.size, height: avatar.size, channels: 4 },
        left: AVATAR_BOX.left,
        top: AVATAR_BOX.top,
      },
    ]);
  }
  return new Uint8Array(await card.png(CARD_PNG_OPTIONS).toBuffer());
}

/** The circle an avatar is cut to (white inside: `dest-in` keeps the avatar's pixels there). */
const AVATAR_CIRCLE = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="${AVATAR_BOX.size}" height="${AVATAR_BOX.size}"><circle cx="${AVATAR_BOX.size / 2}" cy="${AVATAR_BOX.size / 2}" r="${AVATAR_BOX.size / 2}" fill="#fff"/></svg>`,
);

/** Image bytes as an avatar layer: covered to the avatar's square and cut to its circle. */
export async function avatarLayer(image: Uint8Array): Promise<AvatarLayer> {
  const sharp = await loadSharp();
  const data = await sharp(image)
    .resize(AVATAR_BOX.size, AVATAR_BOX.size, { fit: "cover" })
    .ensureAlpha()
    .composite([{ input: AVATAR_CIRCLE, blend: "dest-in" }])
    .raw()
    .toBuffer();
  return { data, size: AVATAR_BOX.size };
}

/**
 * An uploaded avatar (`/images/<id>.webp`) as a layer, on its way (undefined when it is gone);
 * other avatars show the initial (no promise).
 */
function storedAvatar(db: Db, avatar: string | null): Promise<AvatarLayer | undefined> | undefined {
  const id = avatar ? UPLOADED_IMAGE_PATH.exec(avatar)?.[1] : undefined;
  if (!id) return undefined;
  return db
    .select({ data: images.data })
    .from(images)
    .where(eq(images.id, id))
    .limit(1)
    .then(([row]) => (row ? avatarLayer(new Uint8Array(row.data)) : undefined));
}

/** Rendered cards by version (a content hash: never stale), byte-capped, with the number of renders (tests and logs). */
export class CardStore {
  private readonly pngs = new Store<Uint8Array<ArrayBuffer>>(CARD_STORE_BYTES, 0);
  private readonly pending = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
  renders = 0;
  /** How long each render took, in ms (the last 100). */
  readonly timings: number[] = [];

  get size() {
    return this.pngs.size;
  }

  /** Forgets every PNG (tests: the next request for any version renders it again). */
  clear() {
    this.pngs.clear();
  }

  /** The version's PNG: from memory, or rendered once however many ask at the same time. */
  async get(version: string, render: () => Promise<Uint8Array<ArrayBuffer>>): Promise<Uint8Array<ArrayBuffer>> {
    const hit = this.pngs.get(version);
    if (hit) return hit;
    let job = this.pending.get(version);
    if (!job) {
      const since = this.pngs.begin();
      job = (async () => {
        const started = performance.now();
        this.renders++;
        const png = await render();
        this.timings.push(performance.now() - started);
        if (this.timings.length > 100) this.timings.shift();
        this.pngs.set(version, png, { tags: [], size: png.byteLength, since });
        return png;
      })().finally(() => this.pending.delete(version));
      this.pending.set(version, job);
    }
    return job;
  }
}

/** This instance's card store. */
export const cardStore = (ctx: AppContext): CardStore => ctx.instance("card-store", () => new CardStore());

const cardNotFound = () =>
  Response.json({ message: "Card not found" }, { status: 404, headers: { "Cache-Control": "no-cache" } });

/** The PNG of `facts` (drawn once per instance and version), as an immutable answer. */
async function cardResponse(ctx: AppContext, facts: CardFacts, version: string): Promise<Response> {
  const png = await cardStore(ctx).get(version, async () =>
    renderCardPng(facts, storedAvatar(ctx.database.db, facts.avatar)),
  );
  return new Response(png, {
    headers: {
      "Content-Type": "image/png",
      "Cache-Control": IMMUTABLE,
      "Content-Location": cardPath(facts.username, version),
      ETag: `"${version}"`,
    },
  });
}

/**
 * GET /og/:username/:version.png. The current version: the PNG, immutable. An older version
 * of the user's card that is still kept (api/sharing/card-versions.ts): ITS picture, drawn from
 * its stored facts, immutable too (an avatar deleted since is drawn as the initial). Any other
 * version, an unknown or reserved name, or a malformed version: 404. Declared keepable, tagged
 * with the name and its user (the host's cache, server/cache.ts).
 */
export const cardRoutes = new Hono<AppEnv>().on(["GET", "HEAD"], "/:username/:file", async (c) => {
  const name = c.req.param("username");
  const version = /^(.+)\.png$/.exec(c.req.param("file"))?.[1] ?? "";
  if (!isValidUsername(name) || isReservedUsername(name) || !CARD_VERSION_PATTERN.test(version)) return cardNotFound();
  const ctx = c.get("ctx");
  const profile = await findPublicProfile(ctx.database.db, name, ctx.config.origin);
  const keep = { tags: profileTags(name, profile?.userId) };
  if (!profile) return kept(cardNotFound(), keep);
  const facts = cardFacts(profile);
  const current = cardVersion(facts);
  if (version === current) {
    if (profile.userId) await recordCardVersion(ctx, profile.userId, facts, current, profile.recordedCardVersion);
    return kept(await cardResponse(ctx, facts, current), keep);
  }
  const old = await storedCardFacts(ctx.database.db, name, version);
  return kept(old ? await cardResponse(ctx, old, version) : cardNotFound(), keep);
});
