/**
 * Issue 50 §3, "Copy this stack" in Chromium on a phone: a signed-out visitor on a public profile
 * (its owner's name 50 characters) taps `Copy this stack`, signs up, chooses a username, and is
 * back on the copy page: every supplement checked, `Add 2 supplements`, then the dashboard with
 * `Added 2 supplements from @…` and each copy saying `From @…'s stack`. `Add to my stack` on
 * one row leads to that row alone, with a name the visitor has unchecked and `Already in your
 * stack`. The owner's switch takes the links away. axe clean; no sideways scroll at 320 and 360 px.
 * COPY_SCREENSHOTS=<folder> keeps screenshots.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, type Page, request, test } from "@playwright/test";
import { expectToast, waitForHydration } from "../support/e2e-ui";
import { newCredentials, signUpWithApi, uniqueUsername } from "../support/e2e-users";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

async function fits(page: Page, shot: string) {
  const folder = process.env.COPY_SCREENSHOTS;
  if (folder) mkdirSync(folder, { recursive: true });
  for (const width of [320, 360]) {
    await page.setViewportSize({ width, height: 760 });
    expect((await horizontalOverflow(page)).offenders, `${shot} at ${width} px`).toEqual([]);
    if (folder) await page.screenshot({ path: join(folder, `${shot}-${width}.png`), fullPage: true });
  }
}

test("a signed-out visitor copies a stack: sign up, choose a name, Add 2 supplements, the dashboard's toast", async ({
  page,
  baseURL,
}) => {
  test.slow();
  const origin = new URL(baseURL as string).origin;
  // The owner, in a context of their own: a 50-character name and two supplements.
  const ownerName = `o${"w".repeat(45)}${crypto.randomUUID().slice(0, 4).replace(/-/g, "x")}`;
  const ownerContext = await request.newContext({ baseURL });
  await signUpWithApi(ownerContext, baseURL as string, { username: ownerName });
  for (const name of ["Vitamin D3", "Magnesium Glycinate"]) {
    const made = await ownerContext.post("/api/supplements", {
      data: { name, quantityType: "Capsule(s)", frequency: "Once daily" },
      headers: { Origin: origin },
    });
    expect(made.status()).toBe(201);
  }

  await page.setViewportSize({ width: 360, height: 760 });
  await page.goto(`/${ownerName}`);
  await expect(page.getByRole("link", { name: "Add to my stack: Vitamin D3" })).toBeVisible();
  await expectNoA11yViolations(page);
  await fits(page, "copy-profile");
  await page.getByRole("link", { name: "Copy this stack" }).click();
  await expect(page).toHaveURL(/\/auth\/sign-up\?redirectTo=%2Fcopy%2F/);
  await waitForHydration(page);
  const credentials = newCredentials();
  await page.getByLabel("Name", { exact: true }).fill(credentials.name);
  await page.getByLabel("Email", { exact: true }).fill(credentials.email);
  await page.getByLabel("Password", { exact: true }).fill(credentials.password);
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page.getByRole("heading", { level: 1, name: /^Welcome to / })).toBeVisible();
  await page.getByLabel("Username").fill(uniqueUsername("copier"));
  await expect(page.getByText("Username is available")).toBeVisible();
  await page.getByRole("button", { name: "Complete Setup" }).click();

  // Back on the copy page: both checked, the count in the button.
  await expect(page).toHaveURL(new RegExp(`/copy/${ownerName}$`));
  await expect(page.getByRole("heading", { level: 1, name: `Copy @${ownerName}'s stack` })).toBeVisible();
  await waitForHydration(page);
  await expect(page.getByRole("checkbox", { name: /Vitamin D3/ })).toBeChecked();
  await expect(page.getByRole("checkbox", { name: /Magnesium Glycinate/ })).toBeChecked();
  await page.getByRole("checkbox", { name: /Magnesium Glycinate/ }).uncheck();
  await expect(page.getByRole("button", { name: "Add 1 supplement" })).toBeVisible();
  await page.getByRole("checkbox", { name: /Magnesium Glycinate/ }).check();
  await expectNoA11yViolations(page);
  await fits(page, "copy-confirm");
  await page.getByRole("button", { name: "Add 2 supplements" }).click();

  await expect(page).toHaveURL(/\/dashboard$/);
  await expectToast(page, `Added 2 supplements from @${ownerName}`);
  const rows = page.getByTestId("supplement-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.first().getByTestId("row-source")).toHaveText(`From @${ownerName}'s stack`);
  await expect(rows.first().getByRole("link", { name: "Buy again" })).toHaveCount(0);
  await expectNoA11yViolations(page);
  await fits(page, "copy-dashboard");

  // One row from the profile: that row alone; a name already in the list is unchecked and says so.
  await page.goto(`/${ownerName}`);
  await page.getByRole("link", { name: "Add to my stack: Vitamin D3" }).click();
  await expect(page.getByRole("heading", { level: 1, name: `Add to your stack from @${ownerName}` })).toBeVisible();
  await waitForHydration(page);
  await expect(page.getByRole("checkbox")).toHaveCount(1);
  await expect(page.getByRole("checkbox", { name: /Vitamin D3/ })).not.toBeChecked();
  await expect(page.getByText("Already in your stack")).toBeVisible();
  await expect(page.getByRole("button", { name: "Add 0 supplements" })).toBeDisabled();

  // The owner turns copying off: no links on the profile, and the copy page is a 404.
  const off = await ownerContext.put("/api/profile", { data: { allowCopies: false }, headers: { Origin: origin } });
  expect(off.status()).toBe(200);
  await page.goto(`/${ownerName}`);
  await expect(page.getByRole("link", { name: "Copy this stack" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: /Add to my stack/ })).toHaveCount(0);
  expect((await page.goto(`/copy/${ownerName}`))?.status()).toBe(404);
  await ownerContext.dispose();
});
