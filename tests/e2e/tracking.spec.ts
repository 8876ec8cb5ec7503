/**
 * Issue 19 in the browser: the Today card (tick, skip and undo by mouse and by keyboard; a
 * reload keeps them; yesterday fixed from the date arrows), the History card's named cells,
 * the dialog's schedule fields, the zone set from the browser, and axe; a page left open past
 * midnight (UTC−11 to UTC+14 through the API: the same instant, a later date for this user)
 * writing to the day it shows and moving on when focused or made visible; the zone changed in
 * /settings by keyboard, Today following it.
 */
import { expect, type Page, test } from "@playwright/test";
import { addDays, dateIn, daysBetween, shortDayLabel } from "../../src/lib/dates";
import { HEATMAP_LABELS } from "../../src/lib/heatmap";
import type { TodayJson } from "../../src/lib/schedule";
import { startControlledApp } from "../support/e2e-app";
import { background, expectToast, gotoHydrated, swatch } from "../support/e2e-ui";
import { addSupplements, apiCall, signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations } from "./support";

const ZONE = "Europe/Berlin";
test.use({ timezoneId: ZONE });

const today = () => dateIn(ZONE, Date.now());
const todayCard = (page: Page) => page.getByTestId("today-card");
const dose = (page: Page, label: string) => todayCard(page).getByRole("checkbox", { name: label, exact: true });
/** The day the Today card shows (its <time datetime>). */
const shownDay = (page: Page) => todayCard(page).getByTestId("today-date").locator("time");
const WEST = "Pacific/Pago_Pago"; // UTC−11
const EAST = "Pacific/Kiritimati"; // UTC+14: at any instant a date 1 or 2 days after WEST's

test("tick, skip and undo by mouse and keyboard; reload keeps them; the zone comes from the browser", async ({
  page,
  baseURL,
}) => {
  test.slow();
  const base = baseURL as string;
  await signUpWithApi(page.request, base);
  await addSupplements(page, base, [{ name: "Vitamin D3" }, { name: "Magnesium" }]);
  await apiCall(page, base, "PUT", "/api/supplements/reorder", {
    supplementIds: (await apiCall<{ id: number }[]>(page, base, "GET", "/api/supplements")).map((s) => s.id),
  });
  const list = await apiCall<{ id: number; name: string }[]>(page, base, "GET", "/api/supplements");
  const zinc = await apiCall<{ id: number }>(page, base, "POST", "/api/supplements", {
    name: "Zinc",
    quantityType: "Tablet(s)",
    frequency: "as needed",
    schedule: null,
    doseAmount: 2,
  });
  expect(list.length).toBe(2);
  expect(zinc.id).toBeGreaterThan(0);

  await gotoHydrated(page, "/");
  const card = todayCard(page);
  await expect(card.getByRole("heading", { name: "Today" })).toBeVisible();
  await expect(card.getByText("0 of 2 taken")).toBeVisible();
  await expect(card.getByRole("heading", { name: "Any time" })).toBeVisible();
  await expect(card.getByRole("heading", { name: "As needed" })).toBeVisible();
  // The first visit set the zone from the browser.
  await expect
    .poll(async () => (await apiCall<{ timeZone: string | null }>(page, base, "GET", "/api/auth/user")).timeZone)
    .toBe(ZONE);

  // Mouse: tick Vitamin D3, skip Magnesium.
  await dose(page, "Vitamin D3").click();
  await expect(card.getByText("1 of 2 taken")).toBeVisible();
  await card.getByRole("button", { name: "Skip Magnesium" }).click();
  await expect(card.getByText("Skipped", { exact: true })).toBeVisible();
  // A skip is told apart from a take (issue 51).
  await expect(card.locator("#today-progress-label")).toHaveText("1 of 2 taken · 1 skipped");
  await expect(card.getByTestId("all-done")).toHaveText("All done for today (1 skipped)");
  // Keyboard: the as-needed Zinc, '2 Tablet(s)' in its name, counted with +1 (issue 48).
  const zincCount = card.getByTestId("dose-row").filter({ hasText: "Zinc" }).getByTestId("as-needed-count");
  await card.getByRole("button", { name: "+1 Zinc, 2 tablets" }).focus();
  const saved = page.waitForResponse((r) => r.url().includes("/as-needed") && r.request().method() === "PUT");
  await page.keyboard.press("Space");
  await expect(zincCount).toHaveText("1 today");
  expect((await saved).status()).toBe(200);

  await page.reload();
  await expect(dose(page, "Vitamin D3")).toBeChecked();
  await expect(zincCount).toHaveText("1 today");
  await expect(card.getByText("Skipped", { exact: true })).toBeVisible();
  await expect(card.getByText("1 of 2 taken · 1 skipped")).toBeVisible();

  // Undo by keyboard: the skipped Magnesium, then untick Vitamin D3 with Space.
  await card.getByRole("button", { name: "Undo Magnesium" }).focus();
  const unskipped = page.waitForResponse((r) => r.url().includes("/api/intakes/") && r.request().method() === "DELETE");
  await page.keyboard.press("Enter");
  await expect(card.getByRole("button", { name: "Skip Magnesium" })).toBeVisible();
  expect((await unskipped).status()).toBe(204);
  await dose(page, "Vitamin D3").focus();
  const undone = page.waitForResponse((r) => r.url().includes("/api/intakes/") && r.request().method() === "DELETE");
  await page.keyboard.press("Space");
  await expect(card.getByText("0 of 2 taken")).toBeVisible();
  expect((await undone).status()).toBe(204);
  await page.reload();
  await expect(dose(page, "Vitamin D3")).not.toBeChecked();
  await expect(card.getByRole("button", { name: "Skip Magnesium" })).toBeVisible();
  await expect(zincCount).toHaveText("1 today");
  await expectNoA11yViolations(page);

  // A refused write: the tick comes back and an error toast says so.
  await page.route("**/api/intakes/**", (route) =>
    route.fulfill({ status: 500, contentType: "application/json", body: '{"message":"boom"}' }),
  );
  await dose(page, "Magnesium").click();
  await expect(dose(page, "Magnesium")).not.toBeChecked();
  await expectToast(page, "Error", "Failed to save your change");
});

test("yesterday is fixed from the date arrows; the heatmap's cells have names and a legend in words", async ({
  page,
}) => {
  test.setTimeout(240_000); // a controlled app of its own starts first
  const app = await startControlledApp();
  try {
    const user = await signUpWithApi(page.request, app.url);
    await addSupplements(page, app.url, [{ name: "Omega 3" }]);
    await apiCall(page, app.url, "PUT", "/api/profile", { timeZone: ZONE });
    await app.backdateSchedules(user.email, 3);
    await gotoHydrated(page, `${app.url}/`);
    const card = todayCard(page);
    const yesterday = addDays(today(), -1);
    const history = page.getByTestId("history-card");
    // The first reads of a fresh database on a busy machine may take a while.
    await expect(history.getByRole("img", { name: `${shortDayLabel(yesterday)}: 0 of 1 taken` })).toBeVisible({
      timeout: 30_000,
    });
    const todayCell = history.getByRole("img", { name: `${shortDayLabel(today())}: 0 of 1 taken (today)` });
    await expect(todayCell).toBeVisible();
    // The legend names every colour in words, and its swatches are the cells' colours.
    const legend = history.getByRole("list", { name: "Colour key" });
    await expect(legend.getByRole("listitem")).toHaveText(Object.values(HEATMAP_LABELS));
    const yesterdayCell = history.getByRole("img", { name: `${shortDayLabel(yesterday)}: 0 of 1 taken` });
    expect(await background(yesterdayCell)).toBe(await background(swatch(page, HEATMAP_LABELS.zero)));
    expect(await background(todayCell)).toBe(await background(swatch(page, HEATMAP_LABELS.pending)));

    await card.getByRole("button", { name: "Previous day" }).click();
    await expect(card.getByTestId("today-date")).not.toHaveText(/^$/);
    await dose(page, "Omega 3").click();
    await expect(card.getByText("1 of 1 taken")).toBeVisible();
    const fixed = history.getByRole("img", { name: `${shortDayLabel(yesterday)}: 1 of 1 taken` });
    await expect(fixed).toBeVisible();
    expect(await background(fixed)).toBe(await background(swatch(page, HEATMAP_LABELS.all)));
    const logged = await apiCall<{ summary: { taken: number } }>(page, app.url, "GET", `/api/today?date=${yesterday}`);
    expect(logged.summary.taken).toBe(1);
    const now = await apiCall<{ summary: { taken: number } }>(page, app.url, "GET", "/api/today");
    expect(now.summary.taken).toBe(0);
    // Back up to 7 days, no further; forward no further than today.
    for (let i = 1; i < 7; i++) await card.getByRole("button", { name: "Previous day" }).click();
    await expect(card.getByRole("button", { name: "Previous day" })).toBeDisabled();
    for (let i = 0; i < 7; i++) await card.getByRole("button", { name: "Next day" }).click();
    await expect(card.getByRole("button", { name: "Next day" })).toBeDisabled();
    await expect(history.getByText("Current streak")).toBeVisible();
    await expect(history.getByText("Longest streak")).toBeVisible();
    await expect(history.getByText("Adherence (30 days)")).toBeVisible();
    await expect(history.getByTestId("heatmap-cell").first()).toBeVisible();
    await expectNoA11yViolations(page);
  } finally {
    await app.stop();
  }
});

test("the dialog's schedule fields: amount, when, days, as needed", async ({ page, baseURL }) => {
  test.slow();
  const base = baseURL as string;
  await signUpWithApi(page.request, base);
  await gotoHydrated(page, "/");
  await expect(todayCard(page).getByText("Nothing scheduled today")).toBeVisible({ timeout: 15_000 });
  await page.getByRole("button", { name: "Add Item" }).click();
  const d = page.getByRole("dialog");
  await d.getByLabel("Name").fill("Iron");
  await d.getByLabel("Frequency").fill("mornings, weekdays");
  await d.getByLabel("Amount per dose").fill("0.5");
  await expect(d.getByRole("checkbox", { name: "Any time" })).toBeChecked();
  await d.getByRole("checkbox", { name: "Morning" }).check();
  await expect(d.getByRole("checkbox", { name: "Any time" })).not.toBeChecked();
  await d.getByRole("checkbox", { name: "Every day" }).uncheck();
  for (const day of ["Monday", "Wednesday"]) await d.getByRole("button", { name: day }).click();
  await expect(d.getByRole("button", { name: "Monday" })).toHaveAttribute("aria-pressed", "true");
  await expectNoA11yViolations(page);
  await d.getByRole("button", { name: "Add Supplement" }).click();
  await expectToast(page, "Supplement added successfully!");
  const [iron] = await apiCall<{ schedule: unknown; doseAmount: number }[]>(page, base, "GET", "/api/supplements");
  expect(iron).toMatchObject({ schedule: { times: ["morning"], days: [1, 3] }, doseAmount: 0.5 });

  // As needed hides When and Days.
  await page.getByRole("button", { name: "Actions for Iron" }).click();
  await page.getByRole("menuitem", { name: "Edit" }).click();
  await expect(d.getByRole("checkbox", { name: "Morning" })).toBeChecked();
  await d.getByRole("switch", { name: "As needed" }).click();
  await expect(d.getByRole("checkbox", { name: "Morning" })).toHaveCount(0);
  await expect(d.getByText("Days")).toHaveCount(0);
  await d.getByRole("button", { name: "Update Supplement" }).click();
  await expectToast(page, "Supplement updated successfully!");
  // Counted, not ticked (issue 48): `+1`, and no checkbox.
  await expect(todayCard(page).getByRole("button", { name: "+1 Iron, 0.5 capsule" })).toBeVisible();
  await expect(todayCard(page).getByRole("checkbox", { name: "Iron, 0.5 capsule" })).toHaveCount(0);
});

for (const event of ["visibilitychange", "focus"] as const) {
  test(`a Today page left open past midnight writes to the day it shows, and moves to the new day on ${event}`, async ({
    page,
    baseURL,
  }) => {
    test.slow();
    const base = baseURL as string;
    await signUpWithApi(page.request, base);
    await apiCall(page, base, "PUT", "/api/profile", { timeZone: WEST });
    await addSupplements(page, base, [{ name: "Vitamin D3" }]);
    const before = await apiCall<TodayJson>(page, base, "GET", "/api/today");
    await gotoHydrated(page, "/");
    await expect(shownDay(page)).toHaveAttribute("datetime", before.date);
    // The first reads on a busy machine may take a while.
    await expect(dose(page, "Vitamin D3")).not.toBeChecked({ timeout: 15_000 });

    // Midnight passes for this user while the page stays open (no event reaches it): the same
    // instant is a later date in the zone they have now.
    await apiCall(page, base, "PUT", "/api/profile", { timeZone: EAST });
    const after = await apiCall<TodayJson>(page, base, "GET", "/api/today");
    expect(daysBetween(before.date, after.date)).toBeGreaterThanOrEqual(1);

    // A tick on the open page goes to the day it shows, not to the new one.
    const saved = page.waitForResponse((r) => r.url().includes("/api/intakes/") && r.request().method() === "PUT");
    await dose(page, "Vitamin D3").click();
    const response = await saved;
    expect(response.status()).toBe(200);
    expect(new URL(response.url()).pathname).toBe(
      `/api/intakes/${before.date}/${before.doses[0]?.supplementId}/anytime`,
    );
    const written = await apiCall<TodayJson>(page, base, "GET", `/api/today?date=${before.date}`);
    expect(written.summary).toEqual({ due: 1, taken: 1, skipped: 0 });
    const fresh = await apiCall<TodayJson>(page, base, "GET", `/api/today?date=${after.date}`);
    expect(fresh.summary).toEqual({ due: 1, taken: 0, skipped: 0 });

    // Focused or made visible again: the card moves to the new day, where nothing is ticked.
    await page.evaluate((name) => (name === "focus" ? window : document).dispatchEvent(new Event(name)), event);
    await expect(shownDay(page)).toHaveAttribute("datetime", after.date);
    await expect(todayCard(page).getByText("0 of 1 taken")).toBeVisible({ timeout: 15_000 });
    await expect(dose(page, "Vitamin D3")).not.toBeChecked();
    // The arrows now count back from the new day.
    await todayCard(page).getByRole("button", { name: "Previous day" }).click();
    await expect(shownDay(page)).toHaveAttribute("datetime", addDays(after.date, -1));
  });
}

test("/settings' Time zone card changes the zone by keyboard, and Today follows it", async ({ page, baseURL }) => {
  test.slow();
  const base = baseURL as string;
  await signUpWithApi(page.request, base);
  await apiCall(page, base, "PUT", "/api/profile", { timeZone: WEST });
  await addSupplements(page, base, [{ name: "Vitamin D3" }]);
  const before = await apiCall<TodayJson>(page, base, "GET", "/api/today");

  await gotoHydrated(page, "/settings");
  const card = page.getByRole("region", { name: "Time zone", exact: true });
  await expect(card.getByText(`Your days start at midnight here: ${WEST.replaceAll("_", " ")}.`)).toBeVisible();
  const select = card.getByRole("combobox", { name: "Time zone" });
  await expect(select).toHaveValue(WEST);
  // Keyboard only (issue 38: a searchable picker; issue 51: a choice saves): type a city in the
  // search box, the list shows its match; Enter chooses it.
  await card.getByRole("searchbox", { name: "Search time zones" }).focus();
  await page.keyboard.type("kiritimati");
  await expect(select.getByRole("option", { name: /^Kiritimati \(UTC\+14:00\)$/ })).toHaveCount(1);
  await page.keyboard.press("Enter");
  await expectToast(page, "Time zone saved");
  await expect(select).toHaveValue(EAST);
  await expect(card.getByText(`Your days start at midnight here: ${EAST}.`)).toBeVisible();
  expect((await apiCall<{ timeZone: string }>(page, base, "GET", "/api/auth/user")).timeZone).toBe(EAST);

  const after = await apiCall<TodayJson>(page, base, "GET", "/api/today");
  expect(daysBetween(before.date, after.date)).toBeGreaterThanOrEqual(1);
  await gotoHydrated(page, "/");
  await expect(shownDay(page)).toHaveAttribute("datetime", after.date);
  await expect(dose(page, "Vitamin D3")).toBeVisible({ timeout: 15_000 });
});
