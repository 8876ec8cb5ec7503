/**
 * Issue 48 in Chromium: a 5-days-on, 2-off cycle with 2 capsules in the morning and 1 in the
 * evening, made in the Add dialog's `More options`; the list row says `Day 1 of 5`, Today shows
 * each time's amount; two off-days later (the server's clock and the browser's moved) it is
 * absent from Today and the row says `Off until …`. axe, and 320 and 360 px with a
 * 50-character username, on both days.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { startControlledApp } from "../support/e2e-app";
import { expectToast, gotoHydrated } from "../support/e2e-ui";
import { apiCall, signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

test.use({ timezoneId: "UTC" });

const SCREENSHOTS = process.env.RESPONSIVE_SCREENSHOTS;
const DAY_MS = 86_400_000;
/** Tuesday 1 December 2026, 09:00 in the user's zone (UTC): day 1 of the cycle. */
const DAY_ONE = Date.parse("2026-12-01T09:00:00Z");
const todayCard = (page: Page) => page.getByTestId("today-card");
const row = (page: Page, name: string) => page.getByTestId("supplement-row").filter({ hasText: name });

async function fitsPhones(page: Page, label: string) {
  for (const width of [320, 360]) {
    await page.setViewportSize({ width, height: 740 });
    const { scrolls, offenders } = await horizontalOverflow(page);
    expect(offenders, `${label}: elements wider than ${width} px`).toEqual([]);
    expect(scrolls, `${label} at ${width} px`).toBe(false);
    if (SCREENSHOTS)
      await page.screenshot({ path: join(SCREENSHOTS, `schedules-${label}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test("a 5-on-2-off cycle with an amount per time: Day 1 of 5, then off two days later", async ({ page }) => {
  test.slow();
  const dir = mkdtempSync(join(tmpdir(), "schedules-clock-"));
  const clockFile = join(dir, "now");
  writeFileSync(clockFile, String(DAY_ONE));
  const app = await startControlledApp({ TEST_CLOCK_FILE: clockFile });
  try {
    await page.clock.install({ time: DAY_ONE });
    const username = `c${"y".repeat(45)}${Math.floor(Math.random() * 9000 + 1000)}`;
    await signUpWithApi(page.request, app.url, { username });
    await apiCall(page, app.url, "PUT", "/api/profile", { timeZone: "UTC" });
    await gotoHydrated(page, `${app.url}/dashboard`);
    await expect(todayCard(page).getByText("Nothing scheduled today")).toBeVisible({ timeout: 15_000 });

    await page.getByRole("button", { name: "Add Item" }).click();
    const d = page.getByRole("dialog");
    await d.getByLabel("Name").fill("Ashwagandha");
    await d.getByRole("checkbox", { name: "Morning" }).check();
    await d.getByRole("checkbox", { name: "Evening" }).check();
    await d.getByText("More options").click();
    await d.getByLabel("Repeat").selectOption({ label: "Cycle: N days on, M days off" });
    await d.getByLabel("Days on").fill("5");
    await d.getByLabel("Days off").fill("2");
    await d.getByRole("checkbox", { name: "Different amount at each time" }).check();
    await d.getByLabel("Amount in the morning").fill("2");
    await d.getByLabel("Amount in the evening").fill("1");
    await expect(d.getByLabel("Frequency")).toHaveValue("Morning and evening, 5 days on, 2 off");
    await expectNoA11yViolations(page);
    await d.getByRole("button", { name: "Add Supplement" }).click();
    await expectToast(page, "Supplement added successfully!");

    const [saved] = await apiCall<{ schedule: unknown }[]>(page, app.url, "GET", "/api/supplements");
    expect(saved?.schedule).toMatchObject({
      times: ["morning", "evening"],
      cycle: { on: 5, off: 2 },
      startsOn: "2026-12-01",
      amounts: { morning: 2, evening: 1 },
    });
    await expect(row(page, "Ashwagandha").getByTestId("row-schedule-status")).toHaveText("Day 1 of 5");
    await expect(todayCard(page).getByRole("checkbox", { name: "Ashwagandha, 2 capsules", exact: true })).toBeVisible();
    await expect(todayCard(page).getByRole("checkbox", { name: "Ashwagandha, 1 capsule", exact: true })).toBeVisible();
    await expectNoA11yViolations(page);
    await fitsPhones(page, "day-1");

    // Day 7: the cycle's second off-day (days 6 and 7 are off; day 8 starts the next run).
    writeFileSync(clockFile, String(DAY_ONE + 6 * DAY_MS));
    await page.clock.setSystemTime(DAY_ONE + 6 * DAY_MS);
    await gotoHydrated(page, `${app.url}/dashboard`);
    await expect(todayCard(page).getByTestId("today-date").locator("time")).toHaveAttribute("datetime", "2026-12-07");
    await expect(todayCard(page).getByText("Nothing scheduled today")).toBeVisible();
    await expect(todayCard(page)).not.toContainText("Ashwagandha");
    await expect(row(page, "Ashwagandha").getByTestId("row-schedule-status")).toHaveText("Off until 8 December");
    await expectNoA11yViolations(page);
    await fitsPhones(page, "day-7");
  } finally {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
