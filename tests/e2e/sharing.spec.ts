/**
 * Issue 16 in the browser: the profile page's social card tags, the Share dialog's QR code
 * and its downloads (decoded with jsqr), and printing the profile and the dashboard.
 * Screenshots go to SHARING_SCREENSHOTS (a folder) when set.
 */
import { readFile } from "node:fs/promises";
import { expect, type Page, test } from "@playwright/test";
import jsQR from "jsqr";
import sharp from "sharp";
import { gotoHydrated } from "../support/e2e-ui";
import { addSupplements, apiCall, signUpWithApi, uniqueUsername } from "../support/e2e-users";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

const shots = process.env.SHARING_SCREENSHOTS;

async function decode(bytes: Buffer): Promise<string | undefined> {
  const { data, info } = await sharp(bytes).resize(512, 512).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data), info.width, info.height)?.data;
}

const meta = (page: Page, key: string) =>
  page.locator(`meta[property="${key}"], meta[name="${key}"]`).first().getAttribute("content");

test("the profile page's og:image is the 1200 × 630 card; printing gives one clean column", async ({
  page,
  browser,
  baseURL,
}) => {
  const user = await signUpWithApi(page.request, baseURL as string, { username: uniqueUsername("Og") });
  await addSupplements(page, baseURL as string, [{ name: "Vitamin D3", frequency: "1 every morning" }]);
  const visitorContext = await browser.newContext({ baseURL });
  const visitor = await visitorContext.newPage();
  await visitor.goto(`/${user.username}`);
  const image = await meta(visitor, "og:image");
  expect(image).toMatch(new RegExp(`^${baseURL}/og/${user.username}/[A-Za-z0-9_-]{16}\\.png$`));
  expect(await meta(visitor, "twitter:image")).toBe(image);
  expect(await meta(visitor, "og:image:width")).toBe("1200");
  expect(await meta(visitor, "og:image:height")).toBe("630");
  expect(await meta(visitor, "og:image:alt")).toContain(`@${user.username}`);
  expect(await meta(visitor, "twitter:card")).toBe("summary_large_image");
  const png = await visitor.request.get(image as string);
  expect(png.status()).toBe(200);
  const size = await sharp(await png.body()).metadata();
  expect([size.width, size.height]).toEqual([1200, 630]);

  // Print: navigation and buttons gone, the date shown, no background colour.
  const print = visitor.getByRole("button", { name: "Print" });
  await expect(print).toBeVisible();
  await visitor.emulateMedia({ media: "print" });
  await expect(visitor.getByRole("navigation")).toBeHidden();
  await expect(print).toBeHidden();
  await expect(visitor.getByText(/^Printed /)).toBeVisible();
  await expect(visitor.getByText("Vitamin D3")).toBeVisible();
  const background = await visitor
    .locator("li")
    .first()
    .evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(background).toBe("rgba(0, 0, 0, 0)");
  if (shots) await visitor.screenshot({ path: `${shots}/f16-print-profile.png`, fullPage: true });
  await visitorContext.close();

  // Without JavaScript there is no Print button (Ctrl+P still prints the same page).
  const noJs = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const plain = await noJs.newPage();
  await plain.goto(`/${user.username}`);
  await expect(plain.getByRole("heading", { level: 1, name: `@${user.username}` })).toBeVisible();
  await expect(plain.getByRole("button", { name: "Print" })).toHaveCount(0);
  await noJs.close();

  // The dashboard prints the private list without the stat cards, profile card, the Today,
  // History and Insights cards (issues 14 and 19) or buttons.
  await gotoHydrated(page, "/");
  await expect(page.getByRole("button", { name: "Print" })).toBeVisible();
  await expect(page.getByTestId("dose-row").first()).toBeVisible();
  await expect(page.getByRole("heading", { name: "Insights" })).toBeVisible();
  await page.emulateMedia({ media: "print" });
  await expect(page.getByText("Total Supplements")).toBeHidden();
  await expect(page.getByRole("button", { name: "Share Profile" })).toBeHidden();
  await expect(page.getByText(/^Printed /)).toBeVisible();
  await expect(page.getByRole("heading", { name: "Vitamin D3" })).toBeVisible();
  await expect(page.getByTestId("dose-row").first()).toBeHidden();
  await expect(page.getByRole("heading", { name: "Insights" })).toBeHidden();
  if (shots) await page.screenshot({ path: `${shots}/f16-print-dashboard.png`, fullPage: true });
});

test("the card version a page showed keeps its picture after an edit (recorded by the page, immutable)", async ({
  page,
  browser,
  baseURL,
}) => {
  const user = await signUpWithApi(page.request, baseURL as string, { username: uniqueUsername("Old") });
  await apiCall(page, baseURL as string, "PUT", "/api/profile", { bio: "Before the edit" });
  const visitorContext = await browser.newContext({ baseURL });
  const visitor = await visitorContext.newPage();
  await visitor.goto(`/${user.username}`);
  const before = (await meta(visitor, "og:image")) as string;
  // Nobody fetched the card yet: only the page has seen this version. Then the owner edits.
  await apiCall(page, baseURL as string, "PUT", "/api/profile", { bio: "After the edit" });
  await visitor.goto(`/${user.username}`);
  const after = (await meta(visitor, "og:image")) as string;
  expect(after).not.toBe(before);
  const pictures: Buffer[] = [];
  for (const url of [before, after]) {
    const res = await visitor.request.get(url, { maxRedirects: 0 });
    expect([url, res.status(), res.headers()["content-type"], res.headers()["cache-control"]]).toEqual([
      url,
      200,
      "image/png",
      "public, max-age=31536000, immutable",
    ]);
    const png = await res.body();
    const size = await sharp(png).metadata();
    expect([size.width, size.height]).toEqual([1200, 630]);
    pictures.push(png);
  }
  expect(pictures[0]?.equals(pictures[1] as Buffer)).toBe(false);
  // The old URL again: the same bytes.
  expect((await (await visitor.request.get(before, { maxRedirects: 0 })).body()).equals(pictures[0] as Buffer)).toBe(
    true,
  );
  await visitorContext.close();
});

test("Share dialog: a QR code of the profile URL, Download SVG and Download PNG decode to it", async ({
  page,
  baseURL,
}) => {
  const user = await signUpWithApi(page.request, baseURL as string, { username: uniqueUsername("Qr") });
  await gotoHydrated(page, "/");
  await page.getByRole("button", { name: "Share Profile" }).click();
  const dialog = page.getByRole("dialog");
  const url = `${baseURL}/${user.username}`;
  const qr = dialog.getByRole("img", { name: `QR code for ${url}` });
  await expect.poll(() => qr.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
  for (const [button, file] of [
    ["Download SVG", `${user.username}-qr.svg`],
    ["Download PNG", `${user.username}-qr.png`],
  ] as const) {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      dialog.getByRole(button === "Download SVG" ? "link" : "button", { name: button }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(file);
    expect(await decode(await readFile((await download.path()) as string))).toBe(url);
  }
  await expectNoA11yViolations(page);
  if (shots) await page.screenshot({ path: `${shots}/f16-share-dialog-1280.png` });
});

for (const width of [320, 360]) {
  test(`Share dialog at ${width} px with a 50-character username: nothing scrolls sideways`, async ({
    page,
    baseURL,
  }) => {
    await page.setViewportSize({ width, height: 800 });
    const username = `q${"w".repeat(41)}${Date.now().toString(36).slice(-8)}`.slice(0, 50);
    await signUpWithApi(page.request, baseURL as string, { username });
    await gotoHydrated(page, "/");
    await page.getByRole("button", { name: "Share Profile" }).click();
    await expect(page.getByRole("button", { name: "Download PNG" })).toBeVisible();
    const overflow = await horizontalOverflow(page);
    expect(overflow.scrolls, overflow.offenders.join("\n")).toBe(false);
    expect(overflow.offenders).toEqual([]);
    if (shots) await page.screenshot({ path: `${shots}/f16-share-dialog-${width}.png`, fullPage: true });
  });
}
