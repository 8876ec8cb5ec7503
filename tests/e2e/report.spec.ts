/**
 * Issue 50 §2, the report for the doctor in Chromium: reached from Settings; the summary and
 * the day-by-day grid of a day with a dose taken and one still open; a range refused with its
 * message; the CSV link downloads the same range; the print view (A4 and Letter, as "Save as
 * PDF" makes it) has the user's name and range and no navigation or form. axe clean; no
 * sideways scroll at 320 and 360 px with a 50-character username.
 * REPORT_SCREENSHOTS=<folder> keeps screenshots (and the PDFs).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { REPORT_MESSAGES } from "../../src/lib/report";
import { gotoHydrated } from "../support/e2e-ui";
import { signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

test("Settings → Report for your doctor: the summary, the grid, a bad range, the CSV, the print view", async ({
  page,
  baseURL,
}) => {
  test.slow();
  const origin = new URL(baseURL as string).origin;
  const headers = { Origin: origin };
  const username = `r${"a".repeat(45)}${crypto.randomUUID().slice(0, 4).replace(/-/g, "b")}`;
  await signUpWithApi(page.request, baseURL as string, { username });
  expect((await page.request.put("/api/profile", { data: { timeZone: "UTC" }, headers })).status()).toBe(200);
  const add = async (name: string, times: string[]) => {
    const made = await page.request.post("/api/supplements", {
      data: {
        name,
        quantityType: "Capsule(s)",
        frequency: "daily",
        doseAmount: 2,
        schedule: { times, days: [1, 2, 3, 4, 5, 6, 7] },
      },
      headers,
    });
    expect(made.status()).toBe(201);
    return ((await made.json()) as { id: number }).id;
  };
  const magnesium = await add("Magnesium", ["morning", "evening"]);
  const today = new Date().toISOString().slice(0, 10);
  const ticked = await page.request.put(`/api/intakes/${today}/${magnesium}/morning`, {
    data: { status: "taken" },
    headers,
  });
  expect(ticked.status()).toBe(200);

  await gotoHydrated(page, "/settings");
  await page.getByRole("link", { name: "Report for your doctor" }).click();
  await expect(page).toHaveURL(/\/report$/);
  await expect(page.getByRole("heading", { level: 1, name: "Report for your doctor" })).toBeVisible();
  const summary = page.getByTestId("report-summary");
  const row = summary.getByRole("row", { name: /Magnesium/ });
  await expect(row.getByRole("rowheader")).toHaveText("Magnesium");
  await expect(row.getByRole("cell")).toHaveText([
    "2 capsules",
    "Morning and evening, every day",
    "1",
    "0",
    "0",
    "50%",
  ]);
  const grid = page.getByTestId("report-grid");
  await expect(grid.locator(`tr[data-date="${today}"] td`)).toHaveText("✓○1 taken, 1 not yet ticked");
  await expect(page.getByLabel("Magnesium")).toBeChecked();
  await expectNoA11yViolations(page);

  // A range that runs backwards: refused with its message, the form kept.
  await page.getByLabel("From").fill(today);
  await page.getByLabel("To").fill("2000-01-01");
  await page.getByRole("button", { name: "Show report" }).click();
  await expect(page.getByRole("alert")).toHaveText(REPORT_MESSAGES.range);
  await expect(page.getByTestId("report-summary")).toHaveCount(0);
  await expectNoA11yViolations(page);

  // Back to a good range: the CSV link carries it.
  await page.getByLabel("From").fill(today);
  await page.getByLabel("To").fill(today);
  await page.getByRole("button", { name: "Show report" }).click();
  await expect(page.getByTestId("report-range")).toBeVisible();
  const csvHref = await page.getByRole("link", { name: "Download CSV" }).getAttribute("href");
  expect(csvHref).toBe(`/api/report.csv?from=${today}&to=${today}`);
  const csv = await page.request.get(csvHref as string);
  expect(csv.status()).toBe(200);
  const lines = (await csv.text())
    .replace(/^\uFEFF/, "")
    .trim()
    .split("\r\n");
  expect(lines[0]).toBe("date,time,supplement,amount,unit,status,ticked_at");
  expect(lines.slice(1).map((l) => l.split(",").slice(0, 6).join(","))).toEqual([
    `${today},morning,Magnesium,2,Capsule(s),taken`,
    `${today},evening,Magnesium,2,Capsule(s),open`,
  ]);

  // Phone widths with a 50-character username: nothing sideways (the tables scroll in their own box).
  const folder = process.env.REPORT_SCREENSHOTS;
  if (folder) mkdirSync(folder, { recursive: true });
  for (const width of [320, 360, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    expect((await horizontalOverflow(page)).offenders, `${width} px`).toEqual([]);
    if (folder) await page.screenshot({ path: join(folder, `report-${width}.png`), fullPage: true });
  }

  // The print view at A4's width: the name and the range, no navigation, form or buttons.
  await page.setViewportSize({ width: 794, height: 1123 });
  await page.emulateMedia({ media: "print" });
  await expect(page.getByText("StackTrack · supplement report")).toBeVisible();
  await expect(page.getByTestId("report-range")).toBeVisible();
  await expect(page.getByRole("button", { name: "Show report" })).toBeHidden();
  await expect(page.getByRole("navigation")).toBeHidden();
  await expect(page.getByTestId("report-summary")).toBeVisible();
  if (folder) await page.screenshot({ path: join(folder, "report-print-a4.png"), fullPage: true });
  for (const format of ["A4", "Letter"] as const) {
    const pdf = await page.pdf({ format, printBackground: false });
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    if (folder) writeFileSync(join(folder, `report-${format}.pdf`), pdf);
  }
  await page.emulateMedia({ media: "screen" });
});
