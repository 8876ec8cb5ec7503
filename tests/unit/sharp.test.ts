/** api/lib/sharp.ts: one sharp for the app, with libvips's operation cache off (nothing kept between operations). */
import { expect, test } from "bun:test";
import { loadSharp } from "../../api/lib/sharp";

test("the app's sharp keeps no operations, files or memory between calls", async () => {
  const sharp = await loadSharp();
  expect(await loadSharp()).toBe(sharp);
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#0f766e" } })
    .png()
    .toBuffer();
  await sharp(png).resize(4, 4).webp().toBuffer();
  const cache = sharp.cache();
  expect(cache.items).toEqual({ current: 0, max: 0 });
  expect(cache.files).toEqual({ current: 0, max: 0 });
  expect(cache.memory.max).toBe(0);
  expect(cache.memory.current).toBe(0);
});
