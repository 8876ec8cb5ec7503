/**
 * Issue 5 in the browser: Edit Profile (bio, the eight links, an avatar uploaded with a
 * preview first), the public /{username} page as a signed-out visitor (with and without
 * JavaScript), the Public Profile Preview's Copy Link, the not-found page, client-side
 * checks, and accessibility.
 */

import { type Browser, expect, type Page, test } from "@playwright/test";
import sharp from "sharp";
import { PRODUCT_NAME } from "../../src/lib/constants";
import { dosePhrase } from "../../src/lib/dose";
import { expectErrorToast, expectToast, gotoHydrated } from "../support/e2e-ui";
import { addSupplements, apiCall, signUpWithApi, uniqueUsername } from "../support/e2e-users";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

/** The eight links: form label, button text on the public page, a URL. */
const LINKS = [
  ["Instagram", "Instagram", "https://instagram.com/qa_person"],
  ["X (Twitter)", "X", "https://x.com/qa_person"],
  ["Facebook", "Facebook", "https://facebook.com/qa.person"],
  ["YouTube", "YouTube", "https://youtube.com/@qa_person"],
  ["TikTok", "TikTok", "https://tiktok.com/@qa_person"],
  ["LinkedIn", "LinkedIn", "https://linkedin.com/in/qa-person"],
  ["Etsy Shop", "Etsy", "https://etsy.com/shop/qaperson"],
  ["Website", "Website", "http://qa-person.example/about?x=1"],
] as const;

const BIO = 'Morning runner. <b>Not bold</b> & "quoted".';

async function photo(): Promise<Buffer> {
  return sharp({ create: { width: 600, height: 400, channels: 3, background: { r: 220, g: 80, b: 40 } } })
    .jpeg()
    .withExif({ IFD0: { Make: "QA-Camera" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "51/1 30/1 0/1" } })
    .toBuffer();
}

const uploadInput = (page: Page) => page.getByLabel("Upload profile photo");

/** A signed-out browser on the same server. */
async function visitor(browser: Browser, baseURL: string, javaScriptEnabled = true) {
  const context = await browser.newContext({ baseURL, javaScriptEnabled });
  return { context, page: await context.newPage() };
}

/** What a visitor must see on /{username}. */
async function expectPublicProfile(
  page: Page,
  username: string,
  bio: string,
  supplements: [string, string, string][],
  avatar?: string,
) {
  await expect(page).toHaveTitle(`@${username} · ${PRODUCT_NAME}`);
  await expect(page.getByRole("heading", { level: 1, name: `@${username}` })).toBeVisible();
  await expect(page.getByText(bio, { exact: true })).toBeVisible();
  if (avatar) {
    const img = page.getByRole("img", { name: `@${username}` });
    await expect(img).toHaveAttribute("src", avatar);
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
  }
  const social = page.getByRole("list", { name: "Social links" }).getByRole("link");
  await expect(social).toHaveText(LINKS.map(([, button]) => button));
  for (const [, button, href] of LINKS) {
    const link = social.filter({ hasText: new RegExp(`^${button}$`) });
    await expect(link).toHaveAttribute("href", href);
    await expect(link).toHaveAttribute("target", "_blank");
    await expect(link).toHaveAttribute("rel", "noopener noreferrer me");
  }
  // The supplements' items: those of the Supplements section (each has its 'Add to my stack' link, issue 50).
  const items = page.getByRole("region", { name: /^Supplements/ }).getByRole("listitem");
  await expect(items).toHaveCount(supplements.length);
  for (const [i, [name, quantityType, frequency]] of supplements.entries()) {
    await expect(items.nth(i)).toContainText(name);
    // Without the schedule shown, the type's plural stands for the dose (issue 38).
    await expect(items.nth(i)).toContainText(`${dosePhrase(null, quantityType)} • ${frequency}`);
  }
  await expect(page.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/");
}

test.describe("profiles", () => {
  test("edit bio, links and avatar; a signed-out visitor sees them; a second edit shows on the next load", async ({
    page,
    browser,
    baseURL,
  }) => {
    test.slow();
    const user = await signUpWithApi(page.request, baseURL as string, { username: uniqueUsername("Pat") });
    const username = user.username as string;
    const ids = await addSupplements(page, baseURL as string, [
      { name: "Vitamin C", quantityType: "Tablet(s)", frequency: "1 daily" },
      { name: "Creatine", quantityType: "Teaspoon(s)", frequency: "1 after training" },
      { name: "Melatonin", quantityType: "Drop(s)", frequency: "3 at bedtime", notes: "ignored for free users" },
    ]);
    // The dashboard's order: Melatonin, Vitamin C, Creatine.
    await apiCall(page, baseURL as string, "PUT", "/api/supplements/reorder", {
      supplementIds: [ids[2], ids[0], ids[1]],
    });

    await gotoHydrated(page, "/profile/edit");
    await expect(page.getByRole("heading", { name: "Edit Profile" })).toBeVisible();
    await expect(page.getByLabel("Username")).toHaveValue(username);
    await page.getByLabel("Bio").fill(BIO);
    await expect(page.getByText(`${BIO.length}/500`)).toBeVisible();
    for (const [label, , href] of LINKS) await page.getByLabel(label, { exact: true }).fill(href);

    // The avatar: a local preview at once, then the saved image.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/api/upload/profile-image", async (route) => {
      await gate;
      await route.continue();
    });
    await uploadInput(page).setInputFiles({ name: "me.jpg", mimeType: "image/jpeg", buffer: await photo() });
    const preview = page.getByRole("img", { name: "Your new avatar, not yet saved" });
    await expect(preview).toBeVisible();
    await expect(preview).toHaveAttribute("src", /^blob:/);
    await expect(page.getByRole("button", { name: "Uploading..." })).toBeDisabled();
    release();
    await expectToast(page, "Profile image updated successfully!");
    await expect(preview).toHaveCount(0);
    const me = await apiCall<{ profileImageUrl: string }>(page, baseURL as string, "GET", "/api/auth/user");
    expect(me.profileImageUrl).toMatch(/^\/images\/[A-Za-z0-9_-]+\.webp$/);
    const avatar = me.profileImageUrl;
    await expect(page.locator(`img[src="${avatar}"]`).first()).toBeVisible();
    // The top bar's avatar follows at once (one shared user store).
    await expect(page.getByRole("button", { name: "Account menu" }).locator("img")).toHaveAttribute("src", avatar);

    await page.getByRole("button", { name: "Update Profile" }).click();
    await expectToast(page, "Profile updated successfully!");
    // The form still holds what was saved (the avatar upload did not reset the typed fields).
    const saved = await apiCall<Record<string, string>>(page, baseURL as string, "GET", "/api/auth/user");
    expect(saved.bio).toBe(BIO);
    expect(saved.instagramUrl).toBe(LINKS[0][2]);
    expect(saved.websiteUrl).toBe(LINKS[7][2]);

    // A signed-out visitor.
    const guest = await visitor(browser, baseURL as string);
    try {
      const response = await guest.page.goto(`/${username}`);
      expect(response?.status()).toBe(200);
      await expectPublicProfile(
        guest.page,
        username,
        BIO,
        [
          ["Melatonin", "Drop(s)", "3 at bedtime"],
          ["Vitamin C", "Tablet(s)", "1 daily"],
          ["Creatine", "Teaspoon(s)", "1 after training"],
        ],
        avatar,
      );
      await expect(guest.page.getByText("ignored for free users")).toHaveCount(0);
      await expect(guest.page.getByText(user.email)).toHaveCount(0);

      // A second edit shows on the next load.
      await page.getByLabel("Bio").fill("Second version of the bio.");
      await page.getByLabel("Website", { exact: true }).fill("");
      await page.getByRole("button", { name: "Update Profile" }).click();
      await expectToast(page, "Profile updated successfully!");
      await guest.page.reload();
      await expect(guest.page.getByText("Second version of the bio.", { exact: true })).toBeVisible();
      await expect(guest.page.getByText(BIO)).toHaveCount(0);
      await expect(guest.page.getByRole("list", { name: "Social links" }).getByRole("link")).toHaveText(
        LINKS.slice(0, 7).map(([, button]) => button),
      );
    } finally {
      await guest.context.close();
    }
  });

  test("changing the username moves the profile URL and frees the old name", async ({ page, request, baseURL }) => {
    const user = await signUpWithApi(page.request, baseURL as string);
    const next = uniqueUsername("Moved");
    await gotoHydrated(page, "/profile/edit");
    await page.getByLabel("Username").fill(next);
    await expect(page.getByText(`Your public profile: /${next}`)).toBeVisible();
    await page.getByRole("button", { name: "Update Profile" }).click();
    await expectToast(page, "Profile updated successfully!");
    await expect(page.getByRole("link", { name: "My Profile" })).toHaveAttribute("href", `/${next}`);
    expect((await request.get(`/${next}`)).status()).toBe(200);
    expect((await request.get(`/${user.username}`)).status()).toBe(404);
    // The old name can be taken by someone else.
    await signUpWithApi(request, baseURL as string, { username: user.username });
  });

  test("client-side checks: username, bio and URL rules inline; image type and size before any upload", async ({
    page,
    request,
    baseURL,
  }) => {
    const taken = await signUpWithApi(request, baseURL as string);
    await signUpWithApi(page.request, baseURL as string);
    await gotoHydrated(page, "/profile/edit");
    const writes: string[] = [];
    page.on("request", (r) => {
      if (r.method() !== "GET" && r.url().includes("/api/")) writes.push(`${r.method()} ${r.url()}`);
    });

    await page.getByLabel("Username").fill("ab");
    await page.getByLabel("Bio").fill("x".repeat(501));
    await expect(page.getByText("501/500")).toBeVisible();
    await page.getByLabel("Instagram").fill("javascript:alert(1)");
    await page.getByLabel("Website", { exact: true }).fill("not a url");
    await page.getByRole("button", { name: "Update Profile" }).click();
    await expect(page.getByText("Username must be at least 3 characters")).toBeVisible();
    await expect(page.getByText("Bio must be at most 500 characters")).toBeVisible();
    await expect(page.getByText("Please enter a valid URL")).toHaveCount(2);
    await expect(page.getByLabel("Instagram")).toHaveAttribute("aria-invalid", "true");
    await expectNoA11yViolations(page);

    await uploadInput(page).setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hi") });
    await expectErrorToast(page, "Please select a valid image file");
    await uploadInput(page).setInputFiles({
      name: "huge.jpg",
      mimeType: "image/jpeg",
      buffer: Buffer.alloc(5 * 1024 * 1024 + 1, 0xff),
    });
    await expectErrorToast(page, "Image must be smaller than 5MB");
    expect(writes).toEqual([]);

    // The server's answer for a taken name shows on the field and in the toast.
    await page.getByLabel("Username").fill(taken.username?.toUpperCase() as string);
    await page.getByLabel("Bio").fill("fine");
    await page.getByLabel("Instagram").fill("");
    await page.getByLabel("Website", { exact: true }).fill("");
    await page.getByRole("button", { name: "Update Profile" }).click();
    await expectErrorToast(page, "Username is already taken");
    await expect(page.getByLabel("Username")).toHaveAttribute("aria-invalid", "true");
    expect(writes).toEqual([`PUT ${baseURL}/api/profile`]);
  });

  test("Share Profile: the preview, Copy Link puts the profile URL on the clipboard, View Live", async ({
    page,
    context,
    baseURL,
  }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
    const user = await signUpWithApi(page.request, baseURL as string);
    await apiCall(page, baseURL as string, "PUT", "/api/profile", { bio: "Shared bio" });
    await addSupplements(page, baseURL as string, [
      { name: "Iron", quantityType: "Tablet(s)", frequency: "every other day" },
      { name: "B12", quantityType: "Spray", frequency: "1 daily" },
    ]);
    await gotoHydrated(page, "/");
    const share = page.getByRole("button", { name: "Share Profile" });
    await share.click();
    const d = page.getByRole("dialog", { name: "Public Profile Preview" });
    await expect(d).toBeVisible();
    await expect(d).toContainText(`@${user.username}`);
    await expect(d).toContainText("Shared bio");
    await expect(d.getByRole("listitem")).toHaveText([/Iron.*Tablet\(s\) • every other day/, /B12.*Spray • 1 daily/]);
    const url = `${baseURL}/${user.username}`;
    const live = d.getByRole("link", { name: "View Live" });
    await expect(live).toHaveAttribute("href", url);
    await expect(live).toHaveAttribute("target", "_blank");
    await expectNoA11yViolations(page);

    await d.getByRole("button", { name: "Copy Link" }).click();
    await expectToast(page, "Link copied!");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);

    const [tab] = await Promise.all([context.waitForEvent("page"), live.click()]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(url);
    await expect(tab.getByRole("heading", { level: 1, name: `@${user.username}` })).toBeVisible();
    await tab.close();

    await page.keyboard.press("Escape");
    await expect(d).toHaveCount(0);
    await expect(share).toBeFocused();
  });

  test("an unknown name: HTTP 404 with the not-found screen", async ({ page }) => {
    const response = await page.goto("/no_such_person_here");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Profile Not Found" })).toBeVisible();
    await expect(
      page.getByText("The user @no_such_person_here doesn't exist or their profile is private"),
    ).toBeVisible();
    await expect(page.getByRole("link", { name: "Go Home" })).toHaveAttribute("href", "/");
    await expectNoA11yViolations(page);
  });

  test("with JavaScript disabled the page still shows everything; its one script is the Print button's", async ({
    page,
    browser,
    baseURL,
  }) => {
    const user = await signUpWithApi(page.request, baseURL as string);
    const bio = "Plain HTML works.";
    const update = Object.fromEntries(
      [
        "instagramUrl",
        "twitterUrl",
        "facebookUrl",
        "youtubeUrl",
        "tiktokUrl",
        "linkedinUrl",
        "etsyUrl",
        "websiteUrl",
      ].map((field, i) => [field, LINKS[i]?.[2]]),
    );
    await apiCall(page, baseURL as string, "PUT", "/api/profile", { bio, ...update });
    await addSupplements(page, baseURL as string, [
      { name: "Omega 3", quantityType: "Soft Gel", frequency: "2 daily" },
      { name: "Zinc", quantityType: "Lozenge", frequency: "as needed" },
    ]);
    const res = await page.request.post(`${baseURL}/api/upload/profile-image`, {
      multipart: { profileImage: { name: "me.jpg", mimeType: "image/jpeg", buffer: await photo() } },
      headers: { Origin: baseURL as string },
    });
    expect(res.status()).toBe(201);
    const { imageUrl } = (await res.json()) as { imageUrl: string };
    await apiCall(page, baseURL as string, "PUT", "/api/profile", { profileImageUrl: imageUrl });

    const guest = await visitor(browser, baseURL as string, false);
    try {
      const response = await guest.page.goto(`/${user.username}`);
      expect(response?.status()).toBe(200);
      await expectPublicProfile(
        guest.page,
        user.username as string,
        bio,
        [
          ["Omega 3", "Soft Gel", "2 daily"],
          ["Zinc", "Lozenge", "as needed"],
        ],
        imageUrl,
      );
      // Issue 16: the only script is the module that shows the Print button (nothing else runs).
      await expect(guest.page.locator("script")).toHaveCount(1);
      await expect(guest.page.locator("script")).toHaveAttribute("type", "module");
    } finally {
      await guest.context.close();
    }

    // axe needs JavaScript: the same page in a normal browser, also at phone width.
    await page.goto(`/${user.username}`);
    await expect(page.getByRole("heading", { level: 1, name: `@${user.username}` })).toBeVisible();
    await expectNoA11yViolations(page);
    await page.setViewportSize({ width: 390, height: 844 });
    const { scrolls, offenders } = await horizontalOverflow(page);
    expect(offenders, "elements wider than the screen").toEqual([]);
    expect(scrolls, "the profile scrolls sideways").toBe(false);
  });

  test("the edit page has no accessibility violations and fits a phone", async ({ page, baseURL }) => {
    await signUpWithApi(page.request, baseURL as string);
    await gotoHydrated(page, "/profile/edit");
    await expect(page.getByRole("heading", { name: "Edit Profile" })).toBeVisible();
    await expectNoA11yViolations(page);
    await page.setViewportSize({ width: 390, height: 844 });
    await gotoHydrated(page, "/profile/edit");
    const { scrolls, offenders } = await horizontalOverflow(page);
    expect(offenders, "elements wider than the screen").toEqual([]);
    expect(scrolls, "the edit page scrolls sideways").toBe(false);
  });
});
