/**
 * The web app manifest (issue 19): the fields a phone needs to put the app on its home screen,
 * icons that exist at their stated sizes, and the link from the one layout every page uses.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";

const ROOT = join(import.meta.dir, "..", "..");
const manifest = JSON.parse(readFileSync(join(ROOT, "public", "manifest.webmanifest"), "utf8")) as {
  name: string;
  short_name: string;
  start_url: string;
  display: string;
  theme_color: string;
  background_color: string;
  icons: { src: string; sizes: string; type: string; purpose: string }[];
};

describe("manifest.webmanifest", () => {
  test("name, short name, start URL /, standalone, colours", () => {
    expect(manifest).toMatchObject({
      name: "StackTrack",
      short_name: "StackTrack",
      start_url: "/",
      display: "standalone",
    });
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/i);
    expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/i);
  });

  test("PNG icons of 192 and 512 px and a maskable one, each the size it says", async () => {
    const sizes = manifest.icons.map((icon) => `${icon.sizes} ${icon.purpose}`);
    expect(sizes).toEqual(expect.arrayContaining(["192x192 any", "512x512 any", "512x512 maskable"]));
    for (const icon of manifest.icons) {
      const meta = await sharp(join(ROOT, "public", icon.src)).metadata();
      expect(`${meta.format} ${meta.width}x${meta.height}`).toBe(`png ${icon.sizes}`);
    }
  });

  test("linked from the layout every page renders through", () => {
    const layout = readFileSync(join(ROOT, "src", "layouts", "Base.astro"), "utf8");
    expect(layout).toContain('<link rel="manifest" href="/manifest.webmanifest" />');
  });
});
