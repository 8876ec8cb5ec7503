/**
 * Issue 51 item 5: Today's rows are in the dashboard's server HTML (a phone sees them with the
 * first paint) and tick once the card hydrates. 360 × 740, touch.
 */
import { expect, test } from "@playwright/test";
import { gotoHydrated } from "../support/e2e-ui";
import { addSupplements, apiCall, signUpWithApi } from "../support/e2e-users";

test.use({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true });

test("the dashboard's HTML carries Today's rows; with JavaScript the first tick saves", async ({
  browser,
  page,
  baseURL,
}) => {
  await signUpWithApi(page.request, baseURL as string);
  await addSupplements(page, baseURL as string, [{ name: "Vitamin D3" }, { name: "Creatine" }]);
  await apiCall(page, baseURL as string, "PUT", "/api/profile", { timeZone: "UTC" });

  // Without JavaScript: the server's rows, their names and checkboxes, as the island renders them.
  const noJs = await browser.newContext({
    javaScriptEnabled: false,
    storageState: await page.context().storageState(),
  });
  const bare = await noJs.newPage();
  await bare.goto(`${baseURL}/dashboard`);
  const card = bare.getByTestId("today-card");
  await expect(card.getByRole("heading", { name: "Today" })).toBeVisible();
  await expect(card.getByTestId("dose-row")).toHaveCount(2);
  await expect(card.getByRole("checkbox", { name: /Vitamin D3/ })).not.toBeChecked();
  await expect(card.getByText("Loading today")).toHaveCount(0);
  await noJs.close();

  // With JavaScript: tick, and the server has it after a reload.
  await gotoHydrated(page, "/dashboard");
  await page
    .getByTestId("today-card")
    .getByRole("checkbox", { name: /Vitamin D3/ })
    .check();
  await expect(page.getByTestId("today-card").getByText("1 of 2 taken")).toBeVisible();
  await gotoHydrated(page, "/dashboard");
  await expect(page.getByTestId("today-card").getByRole("checkbox", { name: /Vitamin D3/ })).toBeChecked();
});
