/**
 * Issue 16: the social card and the QR code, over HTTP on a real database.
 * CARD_SCREENSHOTS=dir keeps the cards drawn here as PNG files.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import jsQR from "jsqr";
import sharp from "sharp";
import { cardStore, renderCardPng, renderCardSvg } from "../../api/sharing/card";
import { cardFacts } from "../../api/sharing/card-facts";
import { drawableText, FALLBACK_CHARACTER } from "../../api/sharing/card-fonts";
import { startApi, type TestApi } from "../support/server";
import { createUser, uniqueName } from "../support/users";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

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

  test("the version changes on every edit that changes the card; the old URL still answers", async () => {
    const name = uniqueName("ver");
    const user = await createUser(api, { username: name });
    const first = await ogImage(name);
    expect((await api.fetch(first)).status).toBe(200);
    const edits: (() => Promise<unknown>)[] = [
      () => api.fetch("/api/profile", { method: "PUT", body: { bio: "New bio" }, headers: { cookie: user.cookie } }),
      () =>
        api.fetch("/api/supplements", {
          method: "POST",
          body: { name: "Magnesium", quantityType: "Capsule(s)", frequency: "daily" },
          headers: { cookie: user.cookie },
        }),
    ];
    let previous = first;
    for (const edit of edits) {
      await edit();
      const next = await ogImage(name);
      expect(next).not.toBe(previous);
      expect((await api.fetch(next)).status).toBe(200);
      // The old URL answers with the current card.
      const old = await api.fetch(previous);
      expect(old.status).toBe(302);
      expect(new URL(old.headers.get("location") ?? "", api.url).href).toBe(next);
      previous = next;
    }
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
        username: "a".repeat(25) + "_long_name_fifty_characters_",
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

  test("a warm render takes under 100 ms of CPU (median of 5)", async () => {
    const facts = cardFacts({
      user: { username: "timing", bio: "Bio 中文 😀", profileImageUrl: null },
      supplements: [{ name: "Zinc" }],
    });
    await renderCardPng(facts);
    const cpu: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = process.cpuUsage();
      await renderCardPng(facts);
      const used = process.cpuUsage(start);
      cpu.push((used.user + used.system) / 1000);
    }
    cpu.sort((a, b) => a - b);
    console.log(`card render CPU ms: ${cpu.map((t) => t.toFixed(0)).join(" ")}`);
    expect(cpu[2]).toBeLessThan(100);
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
