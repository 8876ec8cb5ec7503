/** The platform issue: the landing page for signed-out visitors, and the not-found page. */
import { expect, test } from "@playwright/test";
import { PRODUCT_NAME } from "../../src/lib/constants";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

const LOG_IN_LINKS = ["Log In", "Start Tracking", "Get Started Free"];
const FEATURES = ["Supplement Tracking", "Public Profiles", "Premium Features"];

test.describe("landing page (signed out)", () => {
  test("shows the top bar, hero, feature cards, call to action and footer", async ({ page }) => {
    const response = await page.goto("/");
    expect(response?.status()).toBe(200);
    await expect(page).toHaveTitle(new RegExp(PRODUCT_NAME));

    const banner = page.getByRole("banner");
    await expect(banner).toContainText(PRODUCT_NAME);
    await expect(banner.getByRole("link", { name: "Log In", exact: true })).toBeVisible();

    await expect(page.getByRole("heading", { level: 1, name: "Track Your Health Journey" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Start Tracking", exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: "Get Started Free", exact: true })).toBeVisible();
    for (const title of FEATURES) {
      await expect(page.getByRole("heading", { name: title, exact: true })).toBeVisible();
    }

    const year = new Date().getFullYear();
    await expect(page.getByRole("contentinfo")).toContainText(`© ${year} ${PRODUCT_NAME}. All rights reserved.`);
  });

  test("every log-in button is a plain link to /api/login", async ({ page }) => {
    await page.goto("/");
    for (const name of LOG_IN_LINKS) {
      const links = page.getByRole("link", { name, exact: true });
      expect(await links.count(), `links named ${name}`).toBeGreaterThan(0);
      for (const link of await links.all()) await expect(link).toHaveAttribute("href", "/api/login");
    }
    // No log-in control that is a button instead of a link.
    for (const name of LOG_IN_LINKS) await expect(page.getByRole("button", { name, exact: true })).toHaveCount(0);
  });

  test("following Log In goes to the sign-in page", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("banner").getByRole("link", { name: "Log In", exact: true }).click();
    await expect(page).toHaveURL(/\/auth\/sign-in$/);
  });

  test("ships no JavaScript at all", async ({ page, request }) => {
    const raw = await request.get("/");
    expect(raw.status()).toBe(200);
    expect(await raw.text()).not.toMatch(/<script\b/i);

    await page.goto("/");
    await expect(page.locator("script")).toHaveCount(0);
  });

  test("has no accessibility violations", async ({ page }) => {
    await page.goto("/");
    await expectNoA11yViolations(page);
  });

  test("fits a phone screen (390×844) without horizontal overflow", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    const { scrolls, offenders } = await horizontalOverflow(page);
    expect(offenders, "elements wider than the screen").toEqual([]);
    expect(scrolls, "the page scrolls sideways").toBe(false);
  });
});

test.describe("not-found page", () => {
  test("an unknown path answers 404 with the not-found screen", async ({ page }) => {
    const response = await page.goto("/a/b");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "404 Page Not Found" })).toBeVisible();
    await expect(page.getByText("Did you forget to add the page to the router?")).toBeVisible();
    await expectNoA11yViolations(page);
  });
});
