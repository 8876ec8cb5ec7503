/**
 * Issue 47 in Chromium: add `Vitamin D3` (its Vitamin D line prefilled from the name), a
 * multivitamin with vitamin D and zinc (picked by `d3` and by name), see the day's totals, push
 * vitamin D over 100 mcg and see the exact warning on the card and on Today; axe clean with the
 * dialog open and on the dashboard; no sideways scroll at 320 and 360 px with a 50-character
 * username. INGREDIENTS_SCREENSHOTS=<folder> keeps screenshots at 320 and 360 px.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { expectToast, gotoHydrated } from "../support/e2e-ui";
import { signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

const WARNING = "Vitamin D: 175 mcg a day, above the 100 mcg upper limit for adults";
const DISCLAIMER =
  "Upper limits are for healthy adults (NIH Office of Dietary Supplements). Not medical advice: ask your doctor or pharmacist.";

const dialog = (page: Page) => page.getByRole("dialog");
const card = (page: Page) => page.getByTestId("totals-card");

async function openAdd(page: Page, name: string) {
  await page.getByRole("button", { name: "Add Item" }).click();
  const d = dialog(page);
  await expect(d.getByRole("heading", { name: "Add New Supplement" })).toBeVisible();
  await d.getByLabel("Name").fill(name);
  await d.getByLabel("Frequency").fill("daily");
  return d;
}

async function save(page: Page) {
  await dialog(page).getByRole("button", { name: "Add Supplement" }).click();
  await expect(dialog(page)).toHaveCount(0);
  await expectToast(page, "Supplement added successfully!");
}

test("ingredients from the name and the picker, the day's totals, the warning on the card and on Today", async ({
  page,
  baseURL,
}) => {
  test.slow();
  const username = `W${"a".repeat(45)}${crypto.randomUUID().slice(0, 4).replace(/-/g, "b")}`;
  await signUpWithApi(page.request, baseURL as string, { username });
  await gotoHydrated(page, "/dashboard");
  await card(page).scrollIntoViewIfNeeded();
  await expect(card(page).getByTestId("totals-empty")).toHaveText(
    "Add what's in each supplement to see your daily totals.",
  );
  await expect(card(page).getByTestId("totals-disclaimer")).toHaveText(DISCLAIMER);

  // Vitamin D3: the name offers its first line, Vitamin D; the amount typed in IU.
  let d = await openAdd(page, "Vitamin D3");
  await expect(d.getByRole("combobox", { name: "Ingredient 1" })).toHaveValue("Vitamin D");
  await d.getByLabel("Amount 1").fill("2000");
  await d.getByLabel("Unit 1").selectOption("IU");
  await expectNoA11yViolations(page);
  await save(page);
  await expect(page.getByTestId("supplement-row").filter({ hasText: "Vitamin D3" })).toContainText("50 mcg vitamin D");

  // A multivitamin: vitamin D found by `d3`, zinc by name with Enter.
  d = await openAdd(page, "Daily Multi");
  await expect(d.getByRole("combobox", { name: "Ingredient 1" })).toHaveCount(0);
  await d.getByRole("button", { name: "Add ingredient" }).click();
  await d.getByRole("combobox", { name: "Ingredient 1" }).fill("d3");
  await d.getByRole("option", { name: /Vitamin D/ }).click();
  await expect(d.getByRole("combobox", { name: "Ingredient 1" })).toHaveValue("Vitamin D");
  await d.getByLabel("Amount 1").fill("25");
  await d.getByLabel("Unit 1").selectOption("mcg");
  await d.getByRole("button", { name: "Add ingredient" }).click();
  await d.getByRole("combobox", { name: "Ingredient 2" }).fill("zinc");
  await d.getByRole("combobox", { name: "Ingredient 2" }).press("Enter");
  await expect(d.getByRole("combobox", { name: "Ingredient 2" })).toHaveValue("Zinc");
  await d.getByLabel("Amount 2").fill("15");
  await save(page);

  const rows = card(page).getByTestId("totals-rows");
  await expect(rows.getByRole("listitem").filter({ hasText: "Vitamin D" }).first()).toContainText("75 mcg a day");
  await expect(rows.getByRole("listitem").filter({ hasText: "Zinc" }).first()).toContainText("15 mg a day");
  await expect(card(page).getByTestId("totals-over-limit")).toHaveCount(0);

  // Over the limit: another 4,000 IU (100 mcg) of vitamin D, its amount read from the name.
  d = await openAdd(page, "Vitamin D3 4000 IU");
  await expect(d.getByLabel("Amount 1")).toHaveValue("4000");
  await expect(d.getByLabel("Unit 1")).toHaveValue("IU");
  await save(page);
  await expect(card(page).getByTestId("totals-over-limit")).toHaveText(WARNING);
  await expect(page.getByTestId("today-over-limit")).toHaveText(WARNING);
  await expect(page.getByTestId("today-over-limit")).toHaveCount(1);
  // The sources on tap.
  await rows.getByText("Vitamin D", { exact: true }).click();
  await expect(rows.getByText("Vitamin D3 4000 IU: 100 mcg")).toBeVisible();
  await expectNoA11yViolations(page);

  const folder = process.env.INGREDIENTS_SCREENSHOTS;
  if (folder) mkdirSync(folder, { recursive: true });
  for (const width of [320, 360]) {
    await page.setViewportSize({ width, height: 740 });
    const overflow = await horizontalOverflow(page);
    expect(overflow.offenders, `${width} px`).toEqual([]);
    if (folder) await page.screenshot({ path: join(folder, `ingredients-dashboard-${width}.png`), fullPage: true });
    await page.getByRole("button", { name: "Actions for Daily Multi" }).click();
    await page.getByRole("menuitem", { name: "Edit" }).click();
    await expect(dialog(page).getByRole("combobox", { name: "Ingredient 2" })).toHaveValue("Zinc");
    expect((await horizontalOverflow(page)).offenders, `${width} px dialog`).toEqual([]);
    if (folder) {
      await dialog(page).getByTestId("ingredients-fields").scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(folder, `ingredients-dialog-${width}.png`) });
    }
    await dialog(page).getByRole("button", { name: "Cancel" }).click();
    await expect(dialog(page)).toHaveCount(0);
  }
});
