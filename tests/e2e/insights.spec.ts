/**
 * Issue 14 in the browser: a visitor opens a premium member's 'View Product' (a new tab on the
 * affiliate URL, a shop served by the test), with 'Paid link' and the disclosure on the page; the owner sees
 * the click and the view in the Insights card within a flush (5 s) and a reload, and the click
 * on the supplement's row; the notes switch in Edit Profile; a free member's card invites to
 * premium. axe on the card (free and premium) and on Edit Profile.
 */
import { expect, type Page, test } from "@playwright/test";
import { startControlledApp } from "../support/e2e-app";
import { expectToast, gotoHydrated, scrolledHydrated } from "../support/e2e-ui";
import { addSupplements, signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations } from "./support";

/**
 * The affiliate shop: a server of the test's own (Playwright's routing does not see the request
 * a redirect leads to, so /go's 302 could not be routed to a fake host).
 */
let shop: ReturnType<typeof Bun.serve> | undefined;
const affiliate = () => {
  shop ??= Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response("<!doctype html><title>Shop</title><h1>Omega-3</h1>", {
        headers: { "content-type": "text/html" },
      }),
  });
  return `http://127.0.0.1:${shop.port}/omega-3?ref=qa`;
};
test.afterAll(() => shop?.stop(true));
const insightsCard = (page: Page) => page.getByRole("region", { name: "Insights" });

test("a visitor's click on View Product opens the shop in a new tab and reaches the owner's Insights", async ({
  page,
  browser,
}) => {
  test.slow();
  const app = await startControlledApp();
  try {
    const owner = await signUpWithApi(page.request, app.url);
    await app.setPremium(owner.email);
    await addSupplements(page, app.url, [
      { name: "Omega-3", affiliateLink: affiliate(), notes: "With breakfast" },
      { name: "Zinc" },
    ]);

    const visitorContext = await browser.newContext();
    try {
      const visitor = await visitorContext.newPage();
      expect((await visitor.goto(`${app.url}/${owner.username}`))?.status()).toBe(200);
      await expect(
        visitor.getByText(
          `Some links on this page are affiliate links: @${owner.username} may earn a commission from purchases made through them.`,
          { exact: true },
        ),
      ).toBeVisible();
      await expect(visitor.getByText("Paid link", { exact: true })).toHaveCount(1);
      await expect(visitor.getByText("With breakfast")).toHaveCount(0); // notes are off by default
      const link = visitor.getByRole("link", { name: /View Product/ });
      await expect(link).toHaveAttribute("rel", "sponsored nofollow noopener");
      const [tab] = await Promise.all([visitorContext.waitForEvent("page"), link.click()]);
      await tab.waitForLoadState();
      expect(tab.url()).toBe(affiliate());
      await expect(tab.getByRole("heading", { name: "Omega-3" })).toBeVisible();
    } finally {
      await visitorContext.close();
    }

    // The owner: the click and the view within a flush (every 5 s) and a reload.
    await gotoHydrated(page, `${app.url}/`);
    const card = insightsCard(page);
    await expect(card).toBeVisible();
    await expect
      .poll(
        async () => {
          await gotoHydrated(page, `${app.url}/`);
          // The card loads when scrolled to (client:visible).
          await scrolledHydrated(insightsCard(page));
          return insightsCard(page).getByTestId("insights-clicks").textContent();
        },
        { timeout: 12_000, intervals: [1000] },
      )
      .toBe("1");
    await expect(card.getByTestId("insights-views")).toHaveText("1");
    await expect(card.getByTestId("insights-visitors")).toHaveText("1");
    await expect(card.getByTestId("insights-links").getByRole("listitem")).toHaveText(["Omega-31 click"]);
    await expect(page.getByTestId("row-clicks")).toHaveText(["1 click in the last 30 days"]);
    await expect(card.getByText(/^1 profile view from 1 visitor in the last 30 days, 1 link click\./)).toBeVisible();
    // The rows' clicks come without the card, which loads only once scrolled to.
    await gotoHydrated(page, `${app.url}/`);
    await expect(page.getByTestId("row-clicks")).toHaveText(["1 click in the last 30 days"]);
    await expect(insightsCard(page).locator("xpath=ancestor::astro-island[1]")).toHaveAttribute("ssr", "");
    await scrolledHydrated(insightsCard(page));
    // The table screen readers reach, and the range switch by keyboard.
    await card.getByText("Daily numbers").click();
    await expect(card.getByRole("table")).toBeVisible();
    await card.getByRole("radio", { name: "30 days" }).focus();
    await page.keyboard.press("ArrowLeft");
    await expect(card.getByRole("radio", { name: "7 days" })).toBeChecked();
    await expect(card.getByRole("table").getByRole("row")).toHaveCount(8);
    await expectNoA11yViolations(page);

    // Edit Profile: notes on, by keyboard; the public page shows them.
    await gotoHydrated(page, `${app.url}/profile/edit`);
    const notesSwitch = page.getByRole("switch", { name: "Show notes on my public profile" });
    await expect(notesSwitch).not.toBeChecked();
    await expect(page.getByRole("switch", { name: "Show affiliate links on my public profile" })).toBeChecked();
    await notesSwitch.focus();
    await page.keyboard.press("Space");
    await expect(notesSwitch).toBeChecked();
    await expectNoA11yViolations(page);
    await page.getByRole("button", { name: "Update Profile" }).click();
    await expectToast(page, "Profile updated successfully!");
    const publicPage = await browser.newPage();
    await publicPage.goto(`${app.url}/${owner.username}`);
    await expect(publicPage.getByText("With breakfast")).toBeVisible();
    await publicPage.close();
  } finally {
    await app.stop();
  }
});

test("a free member's Insights: views and visitors, and an invitation to premium for clicks", async ({
  page,
  baseURL,
}) => {
  await signUpWithApi(page.request, baseURL as string);
  await gotoHydrated(page, "/");
  const card = insightsCard(page);
  await scrolledHydrated(card);
  await expect(card.getByTestId("insights-views")).toHaveText("0");
  await expect(card.getByTestId("insights-visitors")).toHaveText("0");
  await expect(card.getByTestId("insights-clicks")).toHaveCount(0);
  await expect(card.getByRole("link", { name: "Upgrade to Premium" })).toHaveAttribute("href", "/subscribe");
  await expectNoA11yViolations(page);
});
