/**
 * Issue 16: the social card and the QR code, over HTTP on a real database.
 * CARD_SCREENSHOTS=dir keeps the cards drawn here as PNG files.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import jsQR from "jsqr";
import sharp from "sharp";
import { cardStore, renderCardPng, renderCardSvg } from "../../api/sharing/card";
import { cardFacts } from "../../api/sharing/card-facts";
import { drawableText, FALLBACK_CHARACTER } from "../../api/sharing/card-fonts";
import { CARD_VERSIONS_KEPT, forgetRecordedCardVersions } from "../../api/sharing/card-versions";
import { cardVersions, images } from "../../db/schema";
import { cardPath } from "../../src/lib/sharing";
import { type QueryLoggingApi, startApiWithQueryLog } from "../support/query-log";
import { createUser, insertSupplements, setAvatar, uniqueName, uploadAvatar } from "../support/users";

let api: QueryLoggingApi;
beforeAll(async () => {
  api = await startApiWithQueryLog();
});
afterAll(async () => {
  await api.close();
});

/** A statement that writes a card version (the profile read only mentions the table in a subquery). */
const writesCardVersion = (q: string) => /insert into "card_versions"|delete from "card_versions"/.test(q);

async function ogImage(name: string): Promise<string> {
  // The page is Astro's; the og:image URL is the card's current URL, made by the same code.
  const res = await api.fetch(`/api/profile/${name}`);
  const profile = await res.json();
  const { cardMeta } = await import("../../api/sharing/card-facts");
  return cardMeta(api.url, cardFacts(profile)).url;
}

async function decodeQr(svg: Uint8Array): Promise<string | undefined> {
  const { data, info } = await sharp(svg).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data), info.width, info.height)?.data;
}

describe("social card", () => {
  test("a 1200 × 630 PNG, immutable, rendered once per version", async () => {
    const name = uniqueName("card");
    await createUser(api, { username: name });
    const url = await ogImage(name);
    const store = cardStore(api.ctx);
    const before = store.renders;
    const res = await api.fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const meta = await sharp(new Uint8Array(await res.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 1200, 630]);
    expect(store.renders).toBe(before + 1);
    // The second request, and one after the profile cache was emptied: no render.
    expect((await api.fetch(url)).status).toBe(200);
    api.ctx.caches.clear();
    expect((await api.fetch(url)).status).toBe(200);
    expect(store.renders).toBe(before + 1);
  });

  test("the version changes on every edit that changes the card; the old URL keeps ITS picture (immutable)", async () => {
    const name = uniqueName("ver");
    const user = await createUser(api, { username: name });
    const store = cardStore(api.ctx);
    const edits: [string, () => Promise<Response>][] = [
      [
        "bio",
        () => api.fetch("/api/profile", { method: "PUT", body: { bio: "New bio" }, headers: { cookie: user.cookie } }),
      ],
      [
        "a supplement",
        () =>
          api.fetch("/api/supplements", {
            method: "POST",
            body: { name: "Magnesium", quantityType: "Capsule(s)", frequency: "daily" },
            headers: { cookie: user.cookie },
          }),
      ],
      [
        "the username's case",
        () =>
          api.fetch("/api/profile", {
            method: "PUT",
            body: { username: name.toUpperCase() },
            headers: { cookie: user.cookie },
          }),
      ],
    ];
    const seen: { url: string; png: Uint8Array }[] = [];
    const fetchPng = async (url: string) => {
      const res = await api.fetch(url);
      expect([url, res.status, res.headers.get("content-type")]).toEqual([url, 200, "image/png"]);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      const png = new Uint8Array(await res.arrayBuffer());
      const meta = await sharp(png).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["png", 1200, 630]);
      return png;
    };
    const firstUrl = await ogImage(name);
    seen.push({ url: firstUrl, png: await fetchPng(firstUrl) });
    for (const [what, edit] of edits) {
      expect([what, (await edit()).status]).toEqual([what, what === "a supplement" ? 201 : 200]);
      const next = await ogImage(name.toUpperCase());
      expect(seen.map((s) => s.url)).not.toContain(next);
      const png = await fetchPng(next);
      for (const old of seen) expect(Buffer.from(png).equals(Buffer.from(old.png))).toBe(false);
      seen.push({ url: next, png });
      // Every older URL answers its own picture, byte for byte: from memory here, and drawn
      // again from its stored facts once this instance has forgotten every PNG and profile.
      for (const forget of [false, true]) {
        if (forget) {
          store.clear();
          api.ctx.caches.clear();
        }
        const renders = store.renders;
        // Forgotten: the current card is asked for again too.
        for (const old of forget ? seen : seen.slice(0, -1)) {
          expect([what, forget, old.url, Buffer.from(await fetchPng(old.url)).equals(Buffer.from(old.png))]).toEqual([
            what,
            forget,
            old.url,
            true,
          ]);
        }
        // Forgotten: each version drawn once more.
        expect(store.renders - renders).toBe(forget ? seen.length : 0);
      }
    }
  });

  test("an old card whose avatar was deleted since is drawn with the initial", async () => {
    const name = uniqueName("ava");
    const user = await createUser(api, { username: name });
    const upload = async (colour: string) => {
      const imageUrl = await uploadAvatar(api, user, colour, 64);
      await setAvatar(api, user, imageUrl);
      return imageUrl;
    };
    const first = await upload("#c33");
    const profile = await (await api.fetch(`/api/profile/${name}`)).json();
    const facts = cardFacts(profile);
    expect(facts.avatar).toBe(first);
    const url = await ogImage(name);
    const withAvatar = new Uint8Array(await (await api.fetch(url)).arrayBuffer());
    await upload("#33c"); // the first picture is nobody's avatar now: deleted
    const firstId = first.replace(/^\/images\/|\.webp$/g, "");
    expect(await api.ctx.database.db.select({ id: images.id }).from(images).where(eq(images.id, firstId))).toEqual([]);
    cardStore(api.ctx).clear();
    const res = await api.fetch(url);
    expect(res.status).toBe(200);
    const redrawn = Buffer.from(await res.arrayBuffer());
    expect(redrawn.equals(Buffer.from(withAvatar))).toBe(false);
    expect(redrawn.equals(Buffer.from(await renderCardPng(facts)))).toBe(true);
  });

  test("404 for a version never recorded, another user's version, and every version once the account is deleted", async () => {
    const name = uniqueName("gone");
    const user = await createUser(api, { username: name });
    const other = uniqueName("other");
    await createUser(api, { username: other });
    const first = await ogImage(name);
    expect((await api.fetch(first)).status).toBe(200);
    await api.fetch("/api/profile", { method: "PUT", body: { bio: "edited" }, headers: { cookie: user.cookie } });
    const second = await ogImage(name);
    expect((await api.fetch(second)).status).toBe(200);
    expect((await api.fetch(first)).status).toBe(200);
    const firstVersion = first.split("/").at(-1) as string;
    for (const path of [
      `/og/${name}/AAAAAAAAAAAAAAAA.png`, // well-formed, never recorded
      `/og/${other}/${firstVersion}`, // recorded, but for another user
    ]) {
      const res = await api.fetch(path);
      expect([path, res.status, res.headers.get("cache-control")]).toEqual([path, 404, "no-cache"]);
      expect(await res.json()).toEqual({ message: "Card not found" });
    }
    const rows = () => api.ctx.database.db.select().from(cardVersions).where(eq(cardVersions.userId, user.id));
    expect((await rows()).length).toBe(2);
    const del = await api.fetch("/api/account", {
      method: "DELETE",
      headers: { cookie: user.cookie },
      body: { password: user.password, confirm: name },
    });
    expect(del.status).toBe(200);
    expect(await rows()).toEqual([]);
    for (const url of [first, second]) expect([url, (await api.fetch(url)).status]).toEqual([url, 404]);
  });

  test("after a rename, a card answers only under the name it shows while that name is the user's", async () => {
    const name = uniqueName("was");
    const user = await createUser(api, { username: name });
    const before = await ogImage(name);
    expect((await api.fetch(before)).status).toBe(200);
    const renamed = uniqueName("now");
    const put = await api.fetch("/api/profile", {
      method: "PUT",
      body: { username: renamed },
      headers: { cookie: user.cookie },
    });
    expect(put.status).toBe(200);
    const after = await ogImage(renamed);
    expect((await api.fetch(after)).status).toBe(200);
    const oldVersion = before.split("/").at(-1) as string;
    for (const path of [`/og/${name}/${oldVersion}`, `/og/${renamed}/${oldVersion}`]) {
      expect([path, (await api.fetch(path)).status]).toEqual([path, 404]);
    }
    // Back to the old name: its old card answers again (the row was kept).
    const back = await api.fetch("/api/profile", {
      method: "PUT",
      body: { username: name },
      headers: { cookie: user.cookie },
    });
    expect(back.status).toBe(200);
    expect((await api.fetch(before)).status).toBe(200);
  });

  test(`the newest ${CARD_VERSIONS_KEPT} versions of a user are kept; older ones answer 404`, async () => {
    const name = uniqueName("keep");
    const user = await createUser(api, { username: name });
    const versions: string[] = [];
    // The card drawn after each of CARD_VERSIONS_KEPT + 1 edits: as many versions recorded, plus the first.
    for (let i = 0; i <= CARD_VERSIONS_KEPT + 1; i++) {
      if (i > 0) {
        const put = await api.fetch("/api/profile", {
          method: "PUT",
          body: { bio: `Edit number ${i}` },
          headers: { cookie: user.cookie },
        });
        expect(put.status).toBe(200);
      }
      const url = await ogImage(name);
      expect((await api.fetch(url)).status).toBe(200);
      versions.push(url.split("/").at(-1)?.replace(".png", "") as string);
    }
    expect(new Set(versions).size).toBe(CARD_VERSIONS_KEPT + 2);
    const kept = await api.ctx.database.db
      .select({ version: cardVersions.version })
      .from(cardVersions)
      .where(eq(cardVersions.userId, user.id));
    expect(kept.map((r) => r.version).sort()).toEqual(versions.slice(2).sort());
    for (const [i, version] of versions.entries()) {
      const status = (await api.fetch(cardPath(name, version))).status;
      expect([i, status]).toEqual([i, i < 2 ? 404 : 200]);
    }
  });

  test("a version is written once, on the cold path only: a cached card sends no statement", async () => {
    const name = uniqueName("once");
    await createUser(api, { username: name });
    const url = await ogImage(name);
    const all: string[] = [];
    // On Postgres the sign-up's change notifications may land after a read has filled the
    // cache, and drop that copy once: read until a read sends nothing (milliseconds).
    const started = performance.now();
    let statements: string[] = [];
    do {
      api.queries.length = 0;
      expect((await api.fetch(url)).status).toBe(200);
      statements = [...api.queries];
      all.push(...statements);
      if (statements.length > 0) await Bun.sleep(10);
    } while (statements.length > 0 && performance.now() - started < 1000);
    expect(statements).toEqual([]); // warm: served from the profile cache
    // However often the card was read cold, its version was written once.
    expect(all.filter(writesCardVersion).length).toBe(1);
    api.ctx.caches.clear(); // cold again (an expired entry): the profile is read, the version is not written again
    api.queries.length = 0;
    expect((await api.fetch(url)).status).toBe(200);
    expect(api.queries.length).toBeGreaterThan(0);
    expect(api.queries.filter(writesCardVersion)).toEqual([]);
  });

  test("issue 17: a cold read of a profile is one statement, and an unchanged profile's recorded version is not written again", async () => {
    const name = uniqueName("onestmt");
    const user = await createUser(api, { username: name });
    await insertSupplements(api, user, 3);
    const url = await ogImage(name); // records the current version (this instance remembers it)
    expect((await api.fetch(url)).status).toBe(200);
    // Cold, as on an instance that never recorded it: the API, the card and the page's data
    // read the user, the list and the newest recorded version in one statement, and write nothing.
    for (const read of [`/api/profile/${name}`, url, `/api/profile/${name.toUpperCase()}`]) {
      api.ctx.caches.clear();
      forgetRecordedCardVersions(api.ctx);
      api.queries.length = 0;
      expect((await api.fetch(read)).status).toBe(200);
      expect(api.queries.length).toBe(1);
      expect(api.queries.filter(writesCardVersion)).toEqual([]);
    }
    // A profile whose card changed writes its new version once, in one statement (insert and prune).
    const edit = await api.fetch("/api/profile", {
      method: "PUT",
      body: { bio: "changed" },
      headers: { cookie: user.cookie },
    });
    expect(edit.status).toBe(200);
    const next = await ogImage(name);
    expect(next).not.toBe(url);
    api.queries.length = 0;
    expect((await api.fetch(next)).status).toBe(200);
    expect(api.queries.filter(writesCardVersion).length).toBe(1);
    expect(api.queries.length).toBe(2);
  });

  test("the same version draws the same bytes in a fresh process, whatever this one drew before", async () => {
    // Han characters and kana that Noto Sans SC has, and so have the Noto Sans KR slices of
    // some Hangul (更郎來: slice 2 with 휣; 之也二今他: slice 101 with 긔; 世事以分: 102 with 갠).
    const target = cardFacts({
      user: { username: "same_bytes", bio: "更郎來 之也二今他 世事以分 えけ · Привет 😀", profileImageUrl: null },
      supplements: [{ name: "鱼油「高」" }, { name: "홍삼。" }],
    });
    // This process first draws cards whose Hangul brings in those Korean slices.
    for (const bio of ["휣휤 긔깬 갠곶", "한국어。、「」 소개 · 홍삼"]) {
      await renderCardPng(cardFacts({ user: { username: "before", bio, profileImageUrl: null }, supplements: [] }));
    }
    const here = Buffer.from(await renderCardPng(target));
    const script = `
      import { renderCardPng } from "./api/sharing/card";
      const png = await renderCardPng(JSON.parse(process.env.FACTS));
      process.stdout.write(Buffer.from(png).toString("base64"));
    `;
    const child = Bun.spawn([process.execPath, "-e", script], {
      cwd: join(import.meta.dir, "../.."),
      env: { ...process.env, FACTS: JSON.stringify(target) },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect([code, err]).toEqual([0, ""]);
    expect(Buffer.from(out, "base64").equals(here)).toBe(true);
  });

  test("404 for a missing user, a reserved name and a malformed version", async () => {
    for (const path of ["/og/nobody_here_xyz/AAAAAAAAAAAAAAAA.png", "/og/admin/AAAAAAAAAAAAAAAA.png", "/og/a/x.png"]) {
      const res = await api.fetch(path);
      expect([path, res.status]).toEqual([path, 404]);
    }
  });

  test("user text cannot become markup; scripts without a font get the documented fallback", async () => {
    const hostile = '</svg><script>alert(1)</script><image href="https://evil.example/x.png"/>';
    const svg = await renderCardSvg(
      cardFacts({
        user: { username: "x_hostile", bio: hostile, profileImageUrl: null },
        supplements: [{ name: hostile }],
      }),
    );
    expect(svg).not.toContain("<script");
    expect(svg).not.toContain("evil.example");
    expect(svg.match(/<text/g)).toBeNull();
    expect(drawableText("Hi Привет 中文 한국어 😀")).toBe("Hi Привет 中文 한국어 😀");
    expect(drawableText("عربي ש")).toBe(`${FALLBACK_CHARACTER.repeat(4)} ${FALLBACK_CHARACTER}`);
  });

  test("screenshots: long name, emoji bio, CJK bio, no avatar", async () => {
    const dir = process.env.CARD_SCREENSHOTS;
    const cases = {
      "long-name": {
        username: `${"a".repeat(25)}_long_name_fifty_characters_`,
        bio: "Coffee first.",
        names: ["Vitamin D3"],
      },
      "emoji-bio": { username: "emoji_fan", bio: "💪 Lifting 🏋️‍♀️ and 🥦 greens 👨‍👩‍👧 🇺🇸 ❤️", names: ["Vitamin C 🍊"] },
      "cjk-bio": { username: "tanaka", bio: "毎日のサプリメント。中文简介 한국어 소개", names: ["ビタミンD", "鱼油"] },
      "no-avatar": { username: "plain", bio: null, names: [] },
    };
    for (const [key, c] of Object.entries(cases)) {
      const png = await renderCardPng(
        cardFacts({
          user: { username: c.username, bio: c.bio, profileImageUrl: null },
          supplements: c.names.map((n) => ({ name: n })),
        }),
      );
      const meta = await sharp(png).metadata();
      expect([meta.width, meta.height]).toEqual([1200, 630]);
      if (dir) await Bun.write(`${dir}/f16-card-${key}.png`, png);
    }
  });
});

/**
 * A photo-like avatar: a diagonal gradient with grain and a disc, like bench/seed.ts makes
 * (flat-colour test avatars would say nothing about a card's bytes). Deterministic.
 */
async function grainyAvatarPng(seed: number): Promise<Buffer> {
  const size = 512;
  const px = new Uint8Array(size * size * 3);
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const inside = (x - 256) ** 2 + (y - 230) ** 2 < 140 ** 2;
      const t = (x + y) / (2 * size);
      const o = (y * size + x) * 3;
      const grain = (next() % 13) - 6;
      px[o] = (inside ? 220 : 40 + 60 * t) + grain;
      px[o + 1] = (inside ? 210 : 50 + 40 * t) + grain;
      px[o + 2] = (inside ? 225 : 70 + 120 * t) + grain;
    }
  }
  return sharp(px, { raw: { width: size, height: size, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * Whether the pixel at (x, y) of a decoded card is `hex` to within `tolerance` per channel
 * (quantizing may move a flat colour by a step or two; 8 is far below what an eye can tell).
 */
function near(
  raw: { data: Buffer; info: { width: number; channels: number } },
  x: number,
  y: number,
  hex: string,
  tolerance = 8,
) {
  const o = (y * raw.info.width + x) * raw.info.channels;
  const got = [0, 1, 2].map((k) => raw.data[o + k] ?? 0);
  const want = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  const ok = got.every((v, k) => Math.abs(v - (want[k] ?? 0)) <= tolerance);
  return ok ? hex : `#${got.map((v) => v.toString(16).padStart(2, "0")).join("")} at ${x},${y}`;
}

describe("card bytes (a palette PNG: the warm card's cost is its size)", () => {
  // Measured at zlib level 9 (revision 2; bytes): long name 19,048, emoji bio 18,937, CJK bio
  // 16,753, no bio 11,528, photo-like avatar ~43,000; level 6 (revision 3) adds ~4% (five names 24,194). As truecolour PNGs (revision 1): 40,105, 38,947,
  // 35,728, 25,854 and 96,000–121,000 (the bench's cards).
  const TEXT_CARD_MAX_BYTES = 26_000;
  const AVATAR_CARD_MAX_BYTES = 56_000;
  const cases = [
    {
      key: "long-name",
      username: `${"a".repeat(22)}_long_name_fifty_characters_`,
      bio: "Coffee first.",
      names: ["Vitamin D3"],
    },
    {
      key: "emoji-bio",
      username: "emoji_fan",
      bio: "💪 Lifting 🏋️‍♀️ and 🥦 greens 👨‍👩‍👧 🇺🇸 ❤️",
      names: ["Vitamin C 🍊"],
    },
    {
      key: "cjk-bio",
      username: "tanaka",
      bio: "毎日のサプリメント。中文简介 한국어 소개",
      names: ["ビタミンD", "鱼油"],
    },
    { key: "no-bio", username: "plain", bio: null, names: [] },
    {
      key: "five-names",
      username: "maya_lee3",
      bio: "Runner. Sleeps 8h.",
      names: ["Magnesium Glycinate", "Zinc", "Omega-3 Fish Oil", "Vitamin D3 + K2", "Creatine Monohydrate"],
    },
  ];

  test.each(cases)("$key: ≤ 26 KB, a palette PNG that decodes to 1200 × 630 with the template's colours", async (c) => {
    expect(c.username.length).toBeLessThanOrEqual(50);
    const png = await renderCardPng(
      cardFacts({
        user: { username: c.username, bio: c.bio, profileImageUrl: null },
        supplements: c.names.map((n) => ({ name: n })),
      }),
    );
    expect([c.key, png.byteLength <= TEXT_CARD_MAX_BYTES, png.byteLength]).toEqual([c.key, true, png.byteLength]);
    const meta = await sharp(png).metadata();
    expect([meta.format, meta.width, meta.height, meta.isPalette]).toEqual(["png", 1200, 630, true]);
    const raw = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([raw.info.width, raw.info.height, raw.data.byteLength]).toEqual([1200, 630, 1200 * 630 * 3]);
    // The brand bar along the top, the white page, the initial's green disc (beside the letter): kept through quantizing.
    expect([near(raw, 600, 8, "#047857"), near(raw, 1150, 300, "#ffffff"), near(raw, 90, 182, "#047857")]).toEqual([
      "#047857",
      "#ffffff",
      "#047857",
    ]);
  });

  test("with a photo-like avatar, served over HTTP: ≤ 56 KB, a palette PNG of 1200 × 630 showing the avatar", async () => {
    const name = uniqueName("photo");
    const user = await createUser(api, { username: name });
    const form = new FormData();
    form.append("profileImage", new File([new Uint8Array(await grainyAvatarPng(7))], "a.png", { type: "image/png" }));
    const upload = await api.fetch("/api/upload/profile-image", {
      method: "POST",
      headers: { cookie: user.cookie },
      body: form,
    });
    expect(upload.status).toBe(201);
    await setAvatar(api, user, ((await upload.json()) as { imageUrl: string }).imageUrl);
    for (const body of [{ bio: "Runner. Sleeps 8h." }]) {
      expect((await api.fetch("/api/profile", { method: "PUT", body, headers: { cookie: user.cookie } })).status).toBe(
        200,
      );
    }
    const res = await api.fetch(await ogImage(name));
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "image/png"]);
    const png = new Uint8Array(await res.arrayBuffer());
    expect([png.byteLength <= AVATAR_CARD_MAX_BYTES, png.byteLength]).toEqual([true, png.byteLength]);
    const meta = await sharp(png).metadata();
    expect([meta.format, meta.width, meta.height, meta.isPalette]).toEqual(["png", 1200, 630, true]);
    const raw = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    // The avatar's light disc sits where the initial's green would be; the bar is still the brand's.
    expect([near(raw, 174, 180, "#dcd2e1", 24), near(raw, 600, 8, "#047857")]).toEqual(["#dcd2e1", "#047857"]);
    if (process.env.CARD_SCREENSHOTS) await Bun.write(`${process.env.CARD_SCREENSHOTS}/f16-card-avatar.png`, png);
  });
});

describe("QR code", () => {
  test("decodes to the profile's absolute URL (stored spelling), cacheable; 404 for missing", async () => {
    const name = uniqueName("Qr");
    await createUser(api, { username: name });
    for (const asked of [name, name.toLowerCase()]) {
      const res = await api.fetch(`/${asked}/qr.svg`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/svg+xml");
      expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
      expect(await decodeQr(new Uint8Array(await res.arrayBuffer()))).toBe(`${api.url}/${name}`);
    }
    for (const path of ["/nobody_here_xyz/qr.svg", "/admin/qr.svg", "/a%3Cb/qr.svg"]) {
      expect([path, (await api.fetch(path)).status]).toEqual([path, 404]);
    }
  });
});
