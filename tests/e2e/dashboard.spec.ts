/**
 * Issue 4 in the browser: the dashboard of a free user (add, edit, reorder by mouse and by
 * keyboard, delete; what survives a reload), failures the server answers (the list goes
 * back, the error toast shows), the dialogs' accessibility, and a premium user's affiliate
 * link and notes (on an app whose database the test can reach: tests/support/e2e-app.ts).
 */
import { expect, type Locator, type Page, test } from "@playwright/test";
import { memberSince } from "../../src/lib/format";
import { startControlledApp } from "../support/e2e-app";
import { expectErrorToast, expectToast, gotoHydrated } from "../support/e2e-ui";
import { addSupplements, apiCall, signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

const rows = (page: Page) => page.getByTestId("supplement-row");
const rowNames = (page: Page) => rows(page).locator("h3");
const row = (page: Page, name: string) => rows(page).filter({ has: page.locator("h3", { hasText: name }) });
const handle = (page: Page, name: string) => page.getByRole("button", { name: new RegExp(`^Reorder ${name} `) });
const dialog = (page: Page) => page.getByRole("dialog");
/** A stat card at the top (the side card repeats 'Status' further down). */
const statCard = (page: Page, label: string) => page.getByText(label, { exact: true }).first().locator("xpath=..");

async function openRowMenu(page: Page, name: string): Promise<Locator> {
  await page.getByRole("button", { name: `Actions for ${name}` }).click();
  const menu = page.getByRole("menu", { name: `Actions for ${name}` });
  await expect(menu).toBeVisible();
  return menu;
}

async function addThroughDialog(page: Page, fields: { name: string; quantityType?: string; frequency: string }) {
  await page.getByRole("button", { name: "Add Item" }).click();
  const d = dialog(page);
  await expect(d.getByRole("heading", { name: "Add New Supplement" })).toBeVisible();
  await d.getByLabel("Name").fill(fields.name);
  if (fields.quantityType) await d.getByLabel("Quantity Type").selectOption(fields.quantityType);
  await d.getByLabel("Frequency").fill(fields.frequency);
  await d.getByRole("button", { name: "Add Supplement" }).click();
  await expect(d).toHaveCount(0);
  await expectToast(page, "Supplement added successfully!");
}

/** Drags the row of `name` by its handle with the mouse onto the row of `onto`. */
async function dragWithMouse(page: Page, name: string, onto: string) {
  await row(page, onto).scrollIntoViewIfNeeded();
  await row(page, name).scrollIntoViewIfNeeded();
  const from = await handle(page, name).boundingBox();
  const to = await row(page, onto).boundingBox();
  if (!from || !to) throw new Error("rows not on screen");
  const startX = from.x + from.width / 2;
  const startY = from.y + from.height / 2;
  const targetY = to.y + to.height / 2 + (to.y < from.y ? -to.height / 4 : to.height / 4);
  await page.mouse.move(startX, startY);
  await page.mouse.down();
  const steps = 12;
  for (let i = 1; i <= steps; i++) await page.mouse.move(startX, startY + ((targetY - startY) * i) / steps);
  await page.mouse.up();
}

const reorderSaved = (page: Page) =>
  page.waitForResponse((r) => r.url().endsWith("/api/supplements/reorder") && r.request().method() === "PUT");

test.describe("dashboard as a free user", () => {
  test("add three, edit one, reorder by mouse and keyboard, reload, delete", async ({ page, baseURL }) => {
    test.slow();
    const user = await signUpWithApi(page.request, baseURL as string);
    await gotoHydrated(page, "/");

    await expect(page.getByRole("heading", { name: `Welcome back, @${user.username}` })).toBeVisible();
    await expect(page.getByText("No supplements added yet")).toBeVisible();
    await expect(page.getByText("Start tracking your health journey by adding your first supplement.")).toBeVisible();
    await expect(statCard(page, "Total Supplements")).toContainText("0");
    await expect(statCard(page, "Member Since")).toContainText(memberSince(new Date()));
    await expect(statCard(page, "Status")).toContainText("Free");

    // The dialog as a free user: the spec's fields, no premium fields, the notice instead.
    await page.getByRole("button", { name: "Add Item" }).click();
    const d = dialog(page);
    await expect(d.getByRole("heading", { name: "Add New Supplement" })).toBeVisible();
    await expect(d.getByLabel("Quantity Type")).toHaveValue("Capsule(s)");
    const options = await d.getByLabel("Quantity Type").locator("option").allTextContents();
    expect(options).toEqual([
      "Capsule(s)",
      "Tablet(s)",
      "Gummy(ies)",
      "Soft Gel",
      "Lozenge",
      "Teaspoon(s)",
      "Tablespoon(s)",
      "Drop(s)",
      "Spray",
      "Other",
    ]);
    await expect(d.getByLabel("Frequency")).toHaveAttribute("placeholder", "e.g., 2 capsules daily");
    await expect(d.getByLabel("Affiliate Link")).toHaveCount(0);
    await expect(d.getByLabel("Notes")).toHaveCount(0);
    await expect(d.getByText("Premium Features")).toBeVisible();
    await expect(d.getByRole("link", { name: "Upgrade Now" })).toHaveAttribute("href", "/subscribe");
    await d.getByRole("button", { name: "Cancel" }).click();
    await expect(d).toHaveCount(0);

    await addThroughDialog(page, { name: "Vitamin D3", frequency: "1 every morning" });
    await addThroughDialog(page, { name: "Magnesium", quantityType: "Tablet(s)", frequency: "2 at night" });
    await addThroughDialog(page, { name: "Zinc", quantityType: "Lozenge", frequency: "1 daily" });
    await expect(rowNames(page)).toHaveText(["Vitamin D3", "Magnesium", "Zinc"]);
    await expect(row(page, "Magnesium")).toContainText("Tablet(s) • 2 at night");
    await expect(row(page, "Magnesium")).toContainText("2 at night");
    await expect(page.getByText("Drag and drop to reorder your supplement routine")).toBeVisible();
    // The stat card, the list's badge and the side card agree.
    await expect(statCard(page, "Total Supplements")).toContainText("3");
    await expect(page.getByRole("heading", { name: "My Supplements 3" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Public Profile" })).toContainText("3");

    // Edit one through its menu: the dialog comes prefilled.
    await (await openRowMenu(page, "Magnesium")).getByRole("menuitem", { name: "Edit" }).click();
    await expect(d.getByLabel("Name")).toHaveValue("Magnesium");
    await expect(d.getByLabel("Quantity Type")).toHaveValue("Tablet(s)");
    await expect(d.getByLabel("Frequency")).toHaveValue("2 at night");
    await d.getByLabel("Name").fill("Magnesium Glycinate");
    await d.getByRole("button", { name: "Update Supplement" }).click();
    await expectToast(page, "Supplement updated successfully!");
    await expect(rowNames(page)).toHaveText(["Vitamin D3", "Magnesium Glycinate", "Zinc"]);

    // Reorder with the mouse: Zinc to the top.
    let saved = reorderSaved(page);
    await dragWithMouse(page, "Zinc", "Vitamin D3");
    expect((await saved).status()).toBe(200);
    await expect(rowNames(page)).toHaveText(["Zinc", "Vitamin D3", "Magnesium Glycinate"]);

    // Reorder with the keyboard: pick Magnesium up with Space, two up, drop with Space.
    // First let the rows finish sliding into place after the drop: dnd-kit measures them
    // when an item is picked up (a person cannot act within those 200 ms; a test can).
    await expect.poll(() => page.evaluate(() => document.getAnimations().length)).toBe(0);
    const live = page.locator("[id^='DndLiveRegion']");
    const grip = handle(page, "Magnesium Glycinate");
    await grip.focus();
    await expect(grip).toHaveAttribute("aria-describedby", /.+/);
    await page.keyboard.press("Space");
    await expect(grip).toHaveAttribute("aria-pressed", "true");
    // dnd-kit's keyboard sensor listens for arrows from a setTimeout after the pick-up: a
    // timer queued now runs after it (a CI run lost the first ArrowUp pressed sooner).
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
    await page.keyboard.press("ArrowUp");
    await expect(live).toContainText("Magnesium Glycinate moved to position 2 of 3.");
    await page.keyboard.press("ArrowUp");
    await expect(live).toContainText("Magnesium Glycinate moved to position 1 of 3.");
    saved = reorderSaved(page);
    await page.keyboard.press("Space");
    expect((await saved).status()).toBe(200);
    await expect(live).toContainText("Magnesium Glycinate dropped at position 1 of 3.");
    await expect(rowNames(page)).toHaveText(["Magnesium Glycinate", "Zinc", "Vitamin D3"]);

    // The order holds after a reload.
    await gotoHydrated(page, "/");
    await expect(rowNames(page)).toHaveText(["Magnesium Glycinate", "Zinc", "Vitamin D3"]);

    // Delete (no confirmation): gone at once and after a reload.
    const deleted = page.waitForResponse((r) => r.request().method() === "DELETE");
    await (await openRowMenu(page, "Zinc")).getByRole("menuitem", { name: "Delete" }).click();
    await expect(rowNames(page)).toHaveText(["Magnesium Glycinate", "Vitamin D3"]);
    expect((await deleted).status()).toBe(204);
    await expect(statCard(page, "Total Supplements")).toContainText("2");
    await gotoHydrated(page, "/");
    await expect(rowNames(page)).toHaveText(["Magnesium Glycinate", "Vitamin D3"]);

    // No premium extras for a free user; the banner leads to /subscribe.
    await expect(page.getByText("Affiliate", { exact: true })).toHaveCount(0);
    const menu = await openRowMenu(page, "Vitamin D3");
    await expect(menu.getByRole("menuitem")).toHaveText(["Edit", "Stock", "Delete"]);
    await page.keyboard.press("Escape");
    await expect(page.getByText("Unlock Premium Features")).toBeVisible();
    await expect(page.getByRole("link", { name: "Upgrade", exact: true })).toHaveAttribute("href", "/subscribe");
    await page.getByRole("link", { name: "Upgrade", exact: true }).click();
    await expect(page).toHaveURL(/\/subscribe$/);
  });

  test("a reorder the server refuses puts the list back and toasts 'Failed to reorder supplements'", async ({
    page,
    baseURL,
  }) => {
    await signUpWithApi(page.request, baseURL as string);
    await addSupplements(page, baseURL as string, [{ name: "Alpha" }, { name: "Beta" }, { name: "Gamma" }]);
    await gotoHydrated(page, "/");
    await expect(rowNames(page)).toHaveText(["Alpha", "Beta", "Gamma"]);
    await page.route("**/api/supplements/reorder", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: '{"message":"Something went wrong."}' }),
    );
    const refused = reorderSaved(page);
    await dragWithMouse(page, "Gamma", "Alpha");
    expect((await refused).status()).toBe(500);
    await expectErrorToast(page, "Failed to reorder supplements");
    await expect(rowNames(page)).toHaveText(["Alpha", "Beta", "Gamma"]);
    await gotoHydrated(page, "/");
    await expect(rowNames(page)).toHaveText(["Alpha", "Beta", "Gamma"]);
  });

  test("a delete the server refuses brings the row back and toasts 'Failed to delete supplement'", async ({
    page,
    baseURL,
  }) => {
    await signUpWithApi(page.request, baseURL as string);
    await addSupplements(page, baseURL as string, [{ name: "Keep One" }, { name: "Keep Two" }]);
    await gotoHydrated(page, "/");
    await page.route("**/api/supplements/*", (route) =>
      route.request().method() === "DELETE"
        ? route.fulfill({ status: 400, contentType: "application/json", body: '{"message":"Not allowed"}' })
        : route.fallback(),
    );
    await (await openRowMenu(page, "Keep One")).getByRole("menuitem", { name: "Delete" }).click();
    await expectErrorToast(page, "Failed to delete supplement");
    await expect(rowNames(page)).toHaveText(["Keep One", "Keep Two"]);
    await expect(statCard(page, "Total Supplements")).toContainText("2");
  });

  test("the dialog: inline field errors, the server's message in the error toast, Escape and focus", async ({
    page,
    baseURL,
  }) => {
    await signUpWithApi(page.request, baseURL as string);
    await gotoHydrated(page, "/");
    const addItem = page.getByRole("button", { name: "Add Item" });
    await addItem.click();
    const d = dialog(page);
    await expect(d.getByLabel("Name")).toBeVisible();
    // Focus is inside the dialog and stays there (trapped).
    expect(await d.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    for (let i = 0; i < 12; i++) await page.keyboard.press("Tab");
    expect(await d.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    await d.getByRole("button", { name: "Add Supplement" }).click();
    await expect(d.getByText("Name is required")).toBeVisible();
    await expect(d.getByText("Frequency is required")).toBeVisible();
    await expect(d.getByLabel("Name")).toHaveAttribute("aria-invalid", "true");
    await expectNoA11yViolations(page);

    // The server's own message reaches the toast (not the raw '400: {...}').
    await page.route("**/api/supplements", (route) =>
      route.request().method() === "POST"
        ? route.fulfill({
            status: 400,
            contentType: "application/json",
            body: JSON.stringify({ message: "You can track at most 200 supplements" }),
          })
        : route.fallback(),
    );
    await d.getByLabel("Name").fill("One more");
    await d.getByLabel("Frequency").fill("daily");
    await d.getByRole("button", { name: "Add Supplement" }).click();
    await expectErrorToast(page, "You can track at most 200 supplements");
    await expect(d).toBeVisible();

    // Escape closes and gives focus back to the button that opened it.
    await page.keyboard.press("Escape");
    await expect(d).toHaveCount(0);
    await expect(addItem).toBeFocused();
  });

  test("the toast library is not part of the page load: it loads on the first interaction, its live region before any toast", async ({
    page,
    baseURL,
  }) => {
    await signUpWithApi(page.request, baseURL as string);
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    });
    await gotoHydrated(page, "/");
    await page.waitForLoadState("networkidle");
    const region = page.locator("section[aria-live='polite'][aria-label^='Notifications']");
    await expect(region).toHaveCount(0);
    expect(scripts.filter((path) => path.includes("SonnerToaster"))).toEqual([]);
    // The first key press loads it: the (empty) live region is there before anything can toast.
    await page.keyboard.press("Tab");
    await expect(region).toHaveCount(1);
    await expect(page.locator("[data-sonner-toast]")).toHaveCount(0);
    expect(scripts.filter((path) => path.includes("SonnerToaster"))).toHaveLength(1);
    // And toasts work as before.
    await addThroughDialog(page, { name: "Vitamin C", frequency: "1 daily" });
  });

  test("the dashboard has no accessibility violations and fits a phone", async ({ page, baseURL }) => {
    await signUpWithApi(page.request, baseURL as string);
    await gotoHydrated(page, "/");
    await expectNoA11yViolations(page);
    await addSupplements(page, baseURL as string, [
      { name: "A supplement with a rather long name to wrap on a phone", frequency: "twice a day with meals" },
      { name: "Creatine", quantityType: "Teaspoon(s)" },
    ]);
    await gotoHydrated(page, "/");
    await expect(rows(page)).toHaveCount(2);
    await expectNoA11yViolations(page);
    await openRowMenu(page, "Creatine");
    await expectNoA11yViolations(page);
    await page.keyboard.press("Escape");

    await page.setViewportSize({ width: 390, height: 844 });
    await gotoHydrated(page, "/");
    await expect(rows(page)).toHaveCount(2);
    const { scrolls, offenders } = await horizontalOverflow(page);
    expect(offenders, "elements wider than the screen").toEqual([]);
    expect(scrolls, "the dashboard scrolls sideways").toBe(false);
    await page.getByRole("button", { name: "Add Item" }).click();
    await expect(dialog(page)).toBeVisible();
    const inDialog = await horizontalOverflow(page);
    expect(inDialog.offenders, "dialog wider than the screen").toEqual([]);
  });
});

test.describe("dashboard as a premium user", () => {
  test("add one with an affiliate link and notes: notes, 'Affiliate' badge, 'View Product' in a new tab", async ({
    page,
    context,
  }) => {
    test.slow();
    const app = await startControlledApp();
    try {
      const user = await signUpWithApi(page.request, app.url);
      await app.setPremium(user.email);
      await context.route("https://shop.example/**", (route) =>
        route.fulfill({ status: 200, contentType: "text/html", body: "<title>Product</title><h1>Product</h1>" }),
      );
      await gotoHydrated(page, `${app.url}/`);

      await expect(statCard(page, "Status")).toContainText("Premium");
      await expect(page.getByRole("navigation", { name: "Main" }).getByText("Premium", { exact: true })).toBeVisible();
      await expect(page.getByText("Unlock Premium Features")).toHaveCount(0);

      await page.getByRole("button", { name: "Add Item" }).click();
      const d = dialog(page);
      await expect(d.getByText("Premium Features")).toHaveCount(0);
      await d.getByLabel("Name").fill("Fish Oil");
      await d.getByLabel("Quantity Type").selectOption("Soft Gel");
      await d.getByLabel("Frequency").fill("2 with lunch");
      // A bad link is caught in the form.
      await d.getByLabel("Affiliate Link").fill("javascript:alert(1)");
      await d.getByRole("button", { name: "Add Supplement" }).click();
      await expect(d.getByText("Please enter a valid URL")).toBeVisible();
      await d.getByLabel("Affiliate Link").fill("https://shop.example/fish-oil?ref=me");
      await d.getByLabel("Notes").fill("Helps my joints.\nBuy the lemon one.");
      await d.getByRole("button", { name: "Add Supplement" }).click();
      await expectToast(page, "Supplement added successfully!");

      const added = row(page, "Fish Oil");
      await expect(added).toContainText("Soft Gel • ");
      await expect(added).toContainText("Helps my joints.");
      await expect(added.getByText("Affiliate", { exact: true })).toBeVisible();

      const menu = await openRowMenu(page, "Fish Oil");
      await expect(menu.getByRole("menuitem")).toHaveText(["Edit", "Stock", "View Product", "Delete"]);
      const view = menu.getByRole("menuitem", { name: "View Product" });
      await expect(view).toHaveAttribute("href", "https://shop.example/fish-oil?ref=me");
      await expect(view).toHaveAttribute("target", "_blank");
      await expect(view).toHaveAttribute("rel", "noopener noreferrer");
      const [tab] = await Promise.all([context.waitForEvent("page"), view.click()]);
      await tab.waitForLoadState();
      expect(tab.url()).toBe("https://shop.example/fish-oil?ref=me");
      await tab.close();
      expect(page.url()).toBe(`${app.url}/`);

      // The avatar menu of a premium user has no upgrade item.
      await page.getByRole("button", { name: "Account menu" }).click();
      await expect(page.getByRole("menu", { name: "Account menu" }).getByRole("menuitem")).toHaveText([
        "Edit Profile",
        "Settings",
        "Logout",
      ]);
      await page.keyboard.press("Escape");

      // Stored as entered, and still there after a reload.
      const list = await apiCall<{ affiliateLink: string; notes: string }[]>(page, app.url, "GET", "/api/supplements");
      expect(list[0]).toMatchObject({
        affiliateLink: "https://shop.example/fish-oil?ref=me",
        notes: "Helps my joints.\nBuy the lemon one.",
      });
      await gotoHydrated(page, `${app.url}/`);
      await expect(row(page, "Fish Oil")).toContainText("Buy the lemon one.");
      await expectNoA11yViolations(page);
    } finally {
      await app.stop();
    }
  });
});
