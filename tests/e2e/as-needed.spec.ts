/**
 * Issue 48, "As needed, counted", in Chromium: an as-needed supplement made in the dialog with
 * `Limit per day` 1 (a bad `Hours between doses` refused first); on Today `+1` once, then `+1`
 * again asks `Take another anyway?`: Cancel keeps 1, the confirm makes 2 and shows the warning,
 * which a reload keeps; `−1` takes one back. axe clean with the question open and on the
 * dashboard; no sideways scroll at 320 and 360 px with a 50-character username.
 * AS_NEEDED_SCREENSHOTS=<folder> keeps screenshots at 320 and 360 px.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { expectToast, gotoHydrated } from "../support/e2e-ui";
import { signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

const dialog = (page: Page) => page.getByRole("dialog");
const today = (page: Page) => page.getByTestId("today-card");
const row = (page: Page) => today(page).getByTestId("dose-row").filter({ hasText: "Melatonin" });

test("+1 over the limit asks first: cancel keeps 1, confirm makes 2 with the warning", async ({ page, baseURL }) => {
  test.slow();
  const username = `N${"a".repeat(45)}${crypto.randomUUID().slice(0, 4).replace(/-/g, "b")}`;
  await signUpWithApi(page.request, baseURL as string, { username });
  await gotoHydrated(page, "/dashboard");

  // The dialog: as needed, a limit of 1 a day; a bad hours-between is refused on the field first.
  await page.getByRole("button", { name: "Add Item" }).click();
  const d = dialog(page);
  await d.getByLabel("Name").fill("Melatonin");
  await d.getByRole("switch", { name: "As needed" }).click();
  await d.getByLabel("Limit per day").fill("1");
  await d.getByLabel("Hours between doses").fill("0.3");
  await d.getByRole("button", { name: "Add Supplement" }).click();
  await expect(d.getByText("Hours between doses must be from 0.5 to 48, in steps of 0.5")).toBeVisible();
  await expectNoA11yViolations(page);
  await d.getByLabel("Hours between doses").fill("");
  await d.getByRole("button", { name: "Add Supplement" }).click();
  await expect(dialog(page)).toHaveCount(0);
  await expectToast(page, "Supplement added successfully!");

  // +1 once: within the limit, no question.
  await expect(row(page)).toBeVisible();
  await row(page).getByRole("button", { name: "+1 Melatonin" }).click();
  await expect(row(page).getByTestId("as-needed-count")).toHaveText("1 of 1 today");
  await expect(dialog(page)).toHaveCount(0);

  // +1 again asks; Cancel (Escape alike) keeps 1.
  await row(page).getByRole("button", { name: "+1 Melatonin" }).click();
  const ask = dialog(page);
  await expect(ask.getByRole("heading", { name: "Take another anyway?" })).toBeVisible();
  await expect(ask).toContainText("That is more than your limit of 1 a day");
  await expectNoA11yViolations(page);
  await ask.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog(page)).toHaveCount(0);
  await expect(row(page).getByRole("button", { name: "+1 Melatonin" })).toBeFocused();
  await expect(row(page).getByTestId("as-needed-count")).toHaveText("1 of 1 today");
  await expect(row(page).getByTestId("as-needed-warning")).toHaveCount(0);

  // With the keyboard: +1, then the confirm makes 2 and the warning shows (and stays after a reload).
  await page.keyboard.press("Enter");
  await expect(dialog(page).getByRole("heading", { name: "Take another anyway?" })).toBeVisible();
  const saved = page.waitForResponse((r) => r.url().endsWith(`/as-needed`) && r.request().method() === "PUT");
  await dialog(page).getByRole("button", { name: "Take another" }).click();
  expect(await (await saved).json()).toMatchObject({ count: 2, warning: "That is more than your limit of 1 a day" });
  await expect(dialog(page)).toHaveCount(0);
  await expect(row(page).getByTestId("as-needed-count")).toHaveText("2 of 1 today");
  await expect(row(page).getByTestId("as-needed-warning")).toHaveText("That is more than your limit of 1 a day");
  await expect(row(page).getByTestId("dose-sync")).toHaveCount(0);
  await gotoHydrated(page, "/dashboard");
  await expect(row(page).getByTestId("as-needed-count")).toHaveText("2 of 1 today");
  await expect(row(page).getByTestId("as-needed-warning")).toHaveText("That is more than your limit of 1 a day");
  await expectNoA11yViolations(page);

  // −1 takes one back: within the limit again.
  await row(page).getByRole("button", { name: "−1 Melatonin" }).click();
  await expect(row(page).getByTestId("as-needed-count")).toHaveText("1 of 1 today");
  await expect(row(page).getByTestId("as-needed-warning")).toHaveCount(0);
  await row(page).getByRole("button", { name: "+1 Melatonin" }).click();
  await dialog(page).getByRole("button", { name: "Take another" }).click();
  await expect(row(page).getByTestId("as-needed-warning")).toHaveText("That is more than your limit of 1 a day");

  const folder = process.env.AS_NEEDED_SCREENSHOTS;
  if (folder) mkdirSync(folder, { recursive: true });
  for (const width of [320, 360]) {
    await page.setViewportSize({ width, height: 740 });
    await row(page).scrollIntoViewIfNeeded();
    expect((await horizontalOverflow(page)).offenders, `${width} px`).toEqual([]);
    if (folder) await page.screenshot({ path: join(folder, `as-needed-today-${width}.png`) });
    await row(page).getByRole("button", { name: "+1 Melatonin" }).click();
    await expect(dialog(page).getByRole("heading", { name: "Take another anyway?" })).toBeVisible();
    expect((await horizontalOverflow(page)).offenders, `${width} px question`).toEqual([]);
    if (folder) await page.screenshot({ path: join(folder, `as-needed-question-${width}.png`) });
    await page.keyboard.press("Escape");
    await expect(dialog(page)).toHaveCount(0);
    await page.getByRole("button", { name: "Actions for Melatonin" }).click();
    await page.getByRole("menuitem", { name: "Edit" }).click();
    await expect(dialog(page).getByLabel("Limit per day")).toHaveValue("1");
    expect((await horizontalOverflow(page)).offenders, `${width} px dialog`).toEqual([]);
    if (folder) await page.screenshot({ path: join(folder, `as-needed-dialog-${width}.png`) });
    await dialog(page).getByRole("button", { name: "Cancel" }).click();
    await expect(dialog(page)).toHaveCount(0);
  }
});

test("the server draws the as-needed row, and the page takes it over without an error", async ({ page, baseURL }) => {
  await signUpWithApi(page.request, baseURL as string);
  const origin = new URL(baseURL as string).origin;
  // A zone known: the server draws Today (without one the browser's zone is awaited).
  expect(
    (await page.request.put("/api/profile", { data: { timeZone: "UTC" }, headers: { Origin: origin } })).status(),
  ).toBe(200);
  const made = await page.request.post("/api/supplements", {
    data: {
      name: "Melatonin",
      quantityType: "Tablet(s)",
      frequency: "As needed",
      schedule: null,
      asNeeded: { maxPerDay: 2, minHoursBetween: null },
    },
    headers: { Origin: origin },
  });
  expect(made.status()).toBe(201);
  // In the page's HTML: the row with its count line and +1 (not a placeholder drawn until the code loads).
  const html = await (await page.request.get("/dashboard")).text();
  expect(html.includes('aria-label="+1 Melatonin"'), "the +1 button in the HTML").toBe(true);
  expect(html.includes("0 of 2 today"), "the count line in the HTML").toBe(true);
  // Drawn in place, not streamed in after a fallback: React's swap is an inline script the CSP
  // refuses, and the row would stay the fallback (React #419 on hydration).
  expect(/<template id="B:|\$RC\(/.test(html), "a Suspense boundary streamed after its fallback").toBe(false);
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await gotoHydrated(page, "/dashboard");
  await row(page).getByRole("button", { name: "+1 Melatonin" }).click();
  await expect(row(page).getByTestId("as-needed-count")).toHaveText("1 of 2 today");
  // No hydration error (React #419: the row thrown away) and no inline script refused by the CSP.
  expect(errors).toEqual([]);
});
