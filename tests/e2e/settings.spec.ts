/**
 * Issue 15 in the browser: /settings from the avatar menu (with and without JavaScript),
 * changing the password and signing in with the new one, signing out another browser,
 * downloading both files, deleting an account end to end, and axe on the page.
 */
import { readFileSync } from "node:fs";
import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { expectErrorToast, expectToast, gotoHydrated } from "../support/e2e-ui";
import { addSupplements, apiCall, type E2eUser, signUpWithApi } from "../support/e2e-users";
import { becomePremium } from "./stripe-double";
import { expectNoA11yViolations } from "./support";

const signedIn = async (page: Page) => (await page.request.get("/api/auth/user")).status() === 200;

async function signInContext(context: BrowserContext, baseURL: string, user: E2eUser): Promise<Page> {
  const page = await context.newPage();
  const res = await page.request.post(`${baseURL}/api/auth/sign-in/email`, {
    data: { email: user.email, password: user.password },
    headers: { Origin: new URL(baseURL).origin },
  });
  expect(res.status()).toBe(200);
  return page;
}

test.describe("settings", () => {
  test("the avatar menu: Edit Profile, Settings, Upgrade to Premium, Logout; Settings opens /settings", async ({
    page,
    baseURL,
  }) => {
    await signUpWithApi(page.request, baseURL as string);
    await gotoHydrated(page, "/");
    await page.getByRole("button", { name: "Account menu" }).click();
    const menu = page.getByRole("menu", { name: "Account menu" });
    await expect(menu.getByRole("menuitem")).toHaveText(["Edit Profile", "Settings", "Upgrade to Premium", "Logout"]);
    await menu.getByRole("menuitem", { name: "Settings" }).click();
    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
    for (const card of ["Password", "E-mail", "Sessions", "Your data", "Delete account"]) {
      await expect(page.getByRole("heading", { level: 2, name: card, exact: true })).toBeVisible();
    }
    // The red card is the last one.
    const cards = page.locator("[data-settings-card]");
    await expect(cards.last()).toContainText("Delete account");
    await expect(cards.last()).toHaveClass(/border-red-300/);
  });

  test("without JavaScript the menu's disclosure has Settings, between Edit Profile and Logout", async ({
    browser,
    baseURL,
  }) => {
    const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await signUpWithApi(page.request, baseURL as string);
      await page.goto("/");
      await page.getByLabel("Account menu").click();
      const details = page.locator("details").filter({ has: page.getByRole("link", { name: "Settings" }) });
      const labels = await details.locator("a, button").allInnerTexts();
      expect(labels.map((l) => l.trim()).filter(Boolean)).toEqual([
        "Edit Profile",
        "Settings",
        "Upgrade to Premium",
        "Logout",
      ]);
      await page.getByRole("link", { name: "Settings" }).click();
      await expect(page).toHaveURL(/\/settings$/);
      await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
    } finally {
      await context.close();
    }
  });

  test("signed out, /settings goes to sign-in and back", async ({ page }) => {
    const res = await page.goto("/settings");
    expect(res?.ok()).toBe(true);
    await expect(page).toHaveURL(/\/auth\/sign-in\?redirectTo=%2Fsettings$/);
  });

  test("change the password ('Current password is incorrect' first), then sign in with the new one", async ({
    page,
    baseURL,
  }) => {
    const user = await signUpWithApi(page.request, baseURL as string);
    await gotoHydrated(page, "/settings");
    const card = page.locator("[data-settings-card]").filter({ hasText: "Change the password" });
    await expect(card.getByLabel("Sign out of other devices")).toBeChecked();
    await card.getByLabel("Current password").fill("not my password");
    await card.getByLabel("New password", { exact: true }).fill("a brand new password");
    await card.getByLabel("Confirm new password").fill("a brand new password");
    await card.getByRole("button", { name: "Change password" }).click();
    await expectErrorToast(page, "Current password is incorrect");
    await expect(card.getByText("Current password is incorrect", { exact: true })).toBeVisible();

    await card.getByLabel("Current password").fill(user.password);
    await card.getByRole("button", { name: "Change password" }).click();
    await expectToast(page, "Your password has been changed.");
    expect(await signedIn(page)).toBe(true);

    // Log out, and sign in through the form with the new password.
    await page.request.post("/api/logout", { headers: { Origin: new URL(baseURL as string).origin } });
    await gotoHydrated(page, "/auth/sign-in");
    await page.getByLabel("Email", { exact: true }).fill(user.email);
    await page.getByLabel("Password", { exact: true }).fill("a brand new password");
    await page.getByRole("button", { name: "Log In", exact: true }).click();
    await expect(page.getByRole("button", { name: "Account menu" })).toBeVisible();
    expect(await signedIn(page)).toBe(true);
  });

  test("sign out another browser from the Sessions card: it is signed out at once", async ({
    page,
    browser,
    baseURL,
  }) => {
    const user = await signUpWithApi(page.request, baseURL as string);
    const other = await browser.newContext({
      baseURL,
      userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0",
    });
    try {
      const otherPage = await signInContext(other, baseURL as string, user);
      await gotoHydrated(otherPage, "/");
      await expect(otherPage.getByRole("button", { name: "Account menu" })).toBeVisible();

      await gotoHydrated(page, "/settings");
      const list = page.getByRole("list", { name: "Signed-in devices" });
      await expect(list.getByRole("listitem")).toHaveCount(2);
      await expect(list.getByText("This device")).toHaveCount(1);
      const firefox = list.getByRole("listitem").filter({ hasText: "Firefox on Windows" });
      await firefox.getByRole("button", { name: /^Sign out Firefox on Windows/ }).click();
      await expectToast(page, "Signed out of that device.");
      await expect(list.getByRole("listitem")).toHaveCount(1);

      expect(await signedIn(otherPage)).toBe(false);
      await otherPage.reload();
      await expect(otherPage.getByRole("heading", { level: 1, name: "Track Your Health Journey" })).toBeVisible();
      expect(await signedIn(page)).toBe(true);
    } finally {
      await other.close();
    }
  });

  test("'Sign out everywhere else' ends every other browser's session", async ({ page, browser, baseURL }) => {
    const user = await signUpWithApi(page.request, baseURL as string);
    const contexts = [await browser.newContext({ baseURL }), await browser.newContext({ baseURL })];
    try {
      const others = [];
      for (const context of contexts) others.push(await signInContext(context, baseURL as string, user));
      await gotoHydrated(page, "/settings");
      await expect(page.getByRole("list", { name: "Signed-in devices" }).getByRole("listitem")).toHaveCount(3);
      await page.getByRole("button", { name: "Sign out everywhere else" }).click();
      await expectToast(page, "Signed out everywhere else.");
      await expect(page.getByRole("list", { name: "Signed-in devices" }).getByRole("listitem")).toHaveCount(1);
      for (const other of others) expect(await signedIn(other)).toBe(false);
      expect(await signedIn(page)).toBe(true);
    } finally {
      for (const context of contexts) await context.close();
    }
  });

  test("Download JSON and Download CSV: named {username}-{date}, with the user's data", async ({ page, baseURL }) => {
    const user = await signUpWithApi(page.request, baseURL as string);
    await addSupplements(page, baseURL as string, [
      { name: "=Magnesium", quantityType: "Capsule(s)", frequency: "daily" },
      { name: 'Crème, "brûlée"', quantityType: "Other", frequency: "weekly" },
    ]);
    await gotoHydrated(page, "/settings");
    const today = new Date().toISOString().slice(0, 10);

    const [json] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download JSON" }).click(),
    ]);
    expect(json.suggestedFilename()).toBe(`${user.username}-${today}.json`);
    const doc = JSON.parse(readFileSync((await json.path()) as string, "utf8")) as {
      format: string;
      account: { email: string };
      supplements: { name: string }[];
    };
    expect(doc.format).toBe("stacktrack-export/1");
    expect(doc.account.email).toBe(user.email);
    expect(doc.supplements.map((s) => s.name)).toEqual(["=Magnesium", 'Crème, "brûlée"']);

    const [csv] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download CSV" }).click(),
    ]);
    expect(csv.suggestedFilename()).toBe(`${user.username}-${today}.csv`);
    const bytes = readFileSync((await csv.path()) as string);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString("utf8");
    expect(text).toContain(",'=Magnesium,");
    expect(text).toContain(',"Crème, ""brûlée""",');
  });

  test("delete a premium account end to end: the button waits for both fields; '/' says so; everything is gone", async ({
    page,
    baseURL,
  }) => {
    const user = await signUpWithApi(page.request, baseURL as string);
    await becomePremium(page, baseURL as string);
    await addSupplements(page, baseURL as string, [{ name: "Zinc", quantityType: "Lozenge", frequency: "daily" }]);
    expect((await page.request.get(`/api/profile/${user.username}`)).status()).toBe(200);
    await gotoHydrated(page, "/settings");
    const card = page.locator("[data-settings-card]").last();
    const button = card.getByRole("button", { name: "Delete account" });
    await expect(button).toBeDisabled();
    await card.getByLabel("Password", { exact: true }).fill("wrong password");
    await expect(button).toBeDisabled();
    await card.getByLabel(`Type ${user.username} to confirm`).fill(user.username as string);
    await expect(button).toBeEnabled();
    await button.click();
    await expectErrorToast(page, "Password is incorrect");
    expect(await signedIn(page)).toBe(true);

    await card.getByLabel("Password", { exact: true }).fill(user.password);
    await button.click();
    await expect(page).toHaveURL(/\/#account-deleted$/);
    await expect(page.getByRole("status").filter({ hasText: "Your account has been deleted." })).toBeVisible();
    await expect(page.getByRole("heading", { level: 1, name: "Track Your Health Journey" })).toBeVisible();
    await expectNoA11yViolations(page);
    expect(await signedIn(page)).toBe(false);
    expect((await page.request.get(`/api/profile/${user.username}`)).status()).toBe(404);
    expect((await page.goto(`/${user.username}`))?.status()).toBe(404);
    const again = await page.request.post("/api/auth/sign-in/email", {
      data: { email: user.email, password: user.password },
      headers: { Origin: new URL(baseURL as string).origin },
    });
    expect(again.status()).toBe(401);
  });

  test("change the e-mail: the current password is asked for; a returning link says what it did (320, 360, 1280 px)", async ({
    page,
    baseURL,
  }) => {
    // A 50-character username: the longest the header and cards must hold.
    const user = await signUpWithApi(page.request, baseURL as string, {
      username: `e${"m".repeat(41)}${Date.now() % 1e8}`.slice(0, 50),
    });
    await gotoHydrated(page, "/settings");
    const card = page.getByRole("region", { name: "E-mail", exact: true });
    const newEmail = `moved-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await card.getByLabel("New e-mail address").fill(newEmail);
    await card.getByRole("button", { name: "Send confirmation link" }).click();
    await expect(card.getByText("Please enter your current password", { exact: true })).toBeVisible();
    await card.getByLabel("Current password").fill("not my password");
    await card.getByRole("button", { name: "Send confirmation link" }).click();
    await expectErrorToast(page, "Current password is incorrect");
    await expect(card.getByText("Current password is incorrect", { exact: true })).toBeVisible();
    // The card with its errors; the error toast's own red (4.34:1, the toast library's) is reported apart.
    await expectNoA11yViolations(page, { exclude: ["[data-sonner-toaster]"] });
    await card.getByLabel("Current password").fill(user.password);
    await card.getByRole("button", { name: "Send confirmation link" }).click();
    await expect(card.getByRole("status")).toContainText(newEmail);
    await expect(card.getByLabel("Current password")).toHaveValue("");

    // Back from a link that no longer works: the card says so, and the address is offered again.
    await gotoHydrated(page, "/settings?email=link-invalid");
    await expect(card.getByRole("alert")).toHaveText(/no longer works/);
    await expect(page).toHaveURL(/\/settings$/);
    await expectNoA11yViolations(page, { exclude: ["[data-sonner-toaster]"] });
    const shots = process.env.SETTINGS_SCREENSHOTS;
    for (const width of [320, 360, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const box = await card.boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(width);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      if (shots) {
        await card.screenshot({ path: `${shots}/email-card-${width}.png` });
        await page.screenshot({ path: `${shots}/settings-${width}.png`, fullPage: true });
      }
    }
  });

  test("axe: no violations on /settings (and with errors shown)", async ({ page, baseURL }) => {
    await signUpWithApi(page.request, baseURL as string);
    await apiCall(page, baseURL as string, "GET", "/api/account");
    await gotoHydrated(page, "/settings");
    await expect(page.getByText("This device", { exact: true })).toBeVisible();
    await expectNoA11yViolations(page);
    await page.getByRole("button", { name: "Change password" }).click();
    await expect(page.locator(".field-error").first()).toBeVisible();
    await expectNoA11yViolations(page);
  });
});
