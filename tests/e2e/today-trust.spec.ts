/**
 * Issue 51 on a phone (360×740, touch): a Today you can trust. Offline it shows what the user
 * last saw (ticks, un-ticks, Take all and its Undo made online, and the ticks waiting), labelled
 * `Offline · as of HH:MM`, under the offline banner, with Add Item and Edit disabled (`Needs a
 * connection`), axe clean; waiting ticks send themselves when the server is back, with no focus
 * and no `online` event (the network cut for the page and its worker by a proxy); at the user's
 * midnight on the server's moved clock the open, visible card turns over by itself, a tick on
 * the old day goes to that day, and yesterday stays editable; the empty stack's Today offers
 * `Add a supplement`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { addDays, dateIn } from "../../src/lib/dates";
import type { TodayJson } from "../../src/lib/schedule";
import { startControlledApp } from "../support/e2e-app";
import { gotoHydrated, waitForHydration } from "../support/e2e-ui";
import { addSupplements, apiCall, signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations } from "./support";

test.use({ timezoneId: "UTC", serviceWorkers: "allow", viewport: { width: 360, height: 740 }, hasTouch: true });

const todayCard = (page: Page) => page.getByTestId("today-card");
const dose = (page: Page, label: string) => todayCard(page).getByRole("checkbox", { name: label, exact: true });
const doseRow = (page: Page, name: string) => todayCard(page).getByTestId("dose-row").filter({ hasText: name });
const progress = (page: Page) => todayCard(page).locator("#today-progress-label");
const shownDay = (page: Page) => todayCard(page).getByTestId("today-date").locator("time");
const PENDING = "PendingWaiting to sync";
const BANNER = "You're offline. Ticks are saved when you're back.";

/** Loads the dashboard until the worker controls it, then once more through the worker (it keeps the page). */
async function dashboardKeptOffline(page: Page, url: string) {
  await gotoHydrated(page, url);
  await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);
  await page.reload();
  await waitForHydration(page);
  await expect(todayCard(page).getByTestId("dose-row").first()).toBeVisible();
}

/** Counts the events that used to send waiting ticks (focus, visibility, online) from now on. */
async function countWakeUps(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { wakeUps: string[] };
    w.wakeUps = [];
    for (const name of ["focus", "online"]) window.addEventListener(name, () => w.wakeUps.push(name));
    document.addEventListener("visibilitychange", () => w.wakeUps.push("visibilitychange"));
  });
  return () => page.evaluate(() => (window as unknown as { wakeUps: string[] }).wakeUps);
}

/** `HH:MM` (UTC) of every minute from `from` to now: the label's time is one of them. */
const minutesSince = (from: number) => {
  const out = new Set<string>();
  for (let t = from - 60_000; t <= Date.now() + 60_000; t += 30_000) out.add(new Date(t).toISOString().slice(11, 16));
  return [...out];
};

test("offline, Today shows what the user last saw, ticks and un-ticks included, `Offline · as of`", async ({
  page,
  context,
  baseURL,
}) => {
  test.slow();
  const base = baseURL as string;
  await signUpWithApi(page.request, base);
  await apiCall(page, base, "PUT", "/api/profile", { timeZone: "UTC" });
  await addSupplements(page, base, [
    { name: "Vitamin D3" },
    { name: "Creatine" },
    { name: "Magnesium" },
    { name: "Zinc" },
    { name: "Omega 3" },
  ]);
  const loadedAt = Date.now();
  await dashboardKeptOffline(page, `${base}/dashboard`);
  await expect(progress(page)).toHaveText("0 of 5 taken");

  // Online: tick two, un-tick one, skip one; Take all and its Undo (each saved).
  const saved = () =>
    page.waitForResponse((r) => r.url().includes("/api/intakes/") && r.request().method() !== "GET" && r.ok());
  for (const name of ["Vitamin D3", "Creatine"]) {
    const done = saved();
    await dose(page, name).tap();
    await done;
  }
  let done = saved();
  await dose(page, "Creatine").tap();
  await done;
  done = saved();
  await todayCard(page).getByRole("button", { name: "Skip Zinc" }).tap();
  await done;
  done = saved();
  await todayCard(page).getByRole("button", { name: "Take all: Any time" }).tap();
  await done;
  await expect(progress(page)).toHaveText("4 of 5 taken · 1 skipped");
  await expect(todayCard(page).getByTestId("all-done")).toHaveText("All done for today (1 skipped)");
  done = saved();
  await todayCard(page).getByRole("button", { name: "Undo take all: Any time" }).tap();
  await done;
  await expect(progress(page)).toHaveText("1 of 5 taken · 1 skipped");
  await expect(todayCard(page).getByTestId("today-offline")).toHaveCount(0);
  const seen = { vd3: true, creatine: false, magnesium: false, omega: false };

  // The network goes (page and worker), the page is reloaded: the same state, labelled.
  await context.setOffline(true);
  await page.reload();
  await waitForHydration(page);
  const label = todayCard(page).getByTestId("today-offline");
  await expect(label).toHaveText(/^Offline · as of \d\d:\d\d$/);
  expect(minutesSince(loadedAt)).toContain((await label.textContent())?.slice(-5));
  await expect(progress(page)).toHaveText("1 of 5 taken · 1 skipped");
  await expect(dose(page, "Vitamin D3")).toBeChecked({ checked: seen.vd3 });
  await expect(dose(page, "Creatine")).toBeChecked({ checked: seen.creatine });
  await expect(dose(page, "Magnesium")).toBeChecked({ checked: seen.magnesium });
  await expect(dose(page, "Omega 3")).toBeChecked({ checked: seen.omega });
  await expect(doseRow(page, "Zinc")).toContainText("Skipped");

  // A tick offline waits, and is there after another offline reload (Pending).
  await dose(page, "Magnesium").tap();
  await expect(doseRow(page, "Magnesium").getByTestId("dose-sync")).toHaveText(PENDING);
  await page.reload();
  await waitForHydration(page);
  await expect(dose(page, "Magnesium")).toBeChecked();
  await expect(doseRow(page, "Magnesium").getByTestId("dose-sync")).toHaveText(PENDING);
  await expect(progress(page)).toHaveText("2 of 5 taken · 1 skipped");
  await expect(label).toHaveText(/^Offline · as of \d\d:\d\d$/);

  // Elsewhere on the page: the banner, and the controls that need the network say so.
  const banner = page.getByRole("status").filter({ hasText: BANNER });
  await expect(banner).toBeVisible();
  const add = page.getByRole("button", { name: "Add Item" });
  await expect(add).toBeDisabled();
  await expect(add).toHaveAccessibleDescription("Needs a connection");
  await expect(page.getByRole("button", { name: "Share Profile" })).toHaveAccessibleDescription("Needs a connection");
  await page.getByRole("button", { name: "Actions for Zinc" }).tap();
  const edit = page.getByRole("menuitem", { name: "Edit" });
  await expect(edit).toHaveAccessibleDescription("Needs a connection");
  await expect(edit).toBeVisible();
  await expect(edit).toBeDisabled();
  await page.keyboard.press("Escape");
  // No error toast for reads that failed only for want of a network.
  await expect(page.locator("[data-sonner-toast]")).toHaveCount(0);
  await expectNoA11yViolations(page);

  // Back online: the waiting tick is saved, the label and the banner go.
  await context.setOffline(false);
  await expect(doseRow(page, "Magnesium").getByTestId("dose-sync")).toHaveText("Saved");
  await expect(label).toHaveCount(0);
  await expect(banner).toHaveCount(0);
  await expect(add).toBeEnabled();
  const day = await apiCall<TodayJson>(page, base, "GET", "/api/today");
  expect(day.summary).toEqual({ due: 5, taken: 2, skipped: 1 });
});

test("waiting ticks send themselves when the server is back, with no focus and no `online` event", async ({ page }) => {
  test.slow();
  const app = await startControlledApp({}, { proxied: true });
  const network = app.network as NonNullable<typeof app.network>;
  try {
    await signUpWithApi(page.request, app.url);
    await apiCall(page, app.url, "PUT", "/api/profile", { timeZone: "UTC" });
    await addSupplements(page, app.url, [{ name: "Vitamin D3" }, { name: "Creatine" }]);
    await dashboardKeptOffline(page, `${app.url}/dashboard`);
    const wakeUps = await countWakeUps(page);

    // The server is unreachable for the page and its worker; the browser still thinks it is online.
    let failed = 0;
    page.on("requestfailed", (r) => {
      if (r.url().includes("/api/intakes/")) failed += 1;
    });
    network.cut();
    await dose(page, "Vitamin D3").tap();
    await dose(page, "Creatine").tap();
    for (const name of ["Vitamin D3", "Creatine"]) {
      await expect(doseRow(page, name).getByTestId("dose-sync")).toHaveText(PENDING);
    }
    expect(await page.evaluate(() => navigator.onLine)).toBe(true);
    // Retries (after 2 s, then 4 s…) find no server.
    await expect.poll(() => failed, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
    await expect(doseRow(page, "Creatine").getByTestId("dose-sync")).toHaveText(PENDING);

    // Back, without any event: the next retry sends them (within 35 s of the server's return).
    network.restore();
    for (const name of ["Vitamin D3", "Creatine"]) {
      await expect(doseRow(page, name).getByTestId("dose-sync")).toHaveText("Saved", { timeout: 40_000 });
    }
    await expect(todayCard(page).getByTestId("sync-status")).toHaveText("Ticks made offline are saved");
    expect(await wakeUps()).toEqual([]);
    const day = await apiCall<TodayJson>(page, app.url, "GET", "/api/today");
    expect(day.summary).toEqual({ due: 2, taken: 2, skipped: 0 });
  } finally {
    await app.stop();
  }
});

test("at the user's midnight (the server's clock) the visible card turns over by itself; the old day keeps its ticks", async ({
  page,
}) => {
  test.slow();
  const dir = mkdtempSync(join(tmpdir(), "midnight-clock-"));
  const clockFile = join(dir, "now");
  const day = dateIn("UTC", Date.now());
  const next = addDays(day, 1);
  writeFileSync(clockFile, String(Date.parse(`${day}T23:59:00.000Z`)));
  const app = await startControlledApp({ TEST_CLOCK_FILE: clockFile });
  try {
    const user = await signUpWithApi(page.request, app.url);
    await apiCall(page, app.url, "PUT", "/api/profile", { timeZone: "UTC" });
    await addSupplements(page, app.url, [{ name: "Omega 3" }]);
    await app.backdateSchedules(user.email, 3);
    // The phone's clock agrees with the server's: 23:59:00.
    await page.clock.install({ time: new Date(`${day}T23:59:00.000Z`) });
    await gotoHydrated(page, `${app.url}/dashboard`);
    await expect(shownDay(page)).toHaveAttribute("datetime", day);
    await expect(progress(page)).toHaveText("0 of 1 taken");
    const wakeUps = await countWakeUps(page);

    // Midnight passes on the server; the card still shows the old day: a tick goes to that day.
    writeFileSync(clockFile, String(Date.parse(`${next}T00:00:20.000Z`)));
    const sent = page.waitForResponse((r) => r.url().includes("/api/intakes/") && r.request().method() === "PUT");
    await dose(page, "Omega 3").tap();
    const response = await sent;
    expect(response.status()).toBe(200);
    expect(new URL(response.url()).pathname).toMatch(new RegExp(`^/api/intakes/${day}/\\d+/anytime$`));

    // A minute on (the page's timers, the tab visible, no event): the card is on the new day.
    await page.clock.runFor(61_000);
    await expect(shownDay(page)).toHaveAttribute("datetime", next);
    await expect(todayCard(page).getByRole("heading", { level: 2 })).toHaveText("Today");
    await expect(progress(page)).toHaveText("0 of 1 taken");
    await expect(dose(page, "Omega 3")).not.toBeChecked();
    expect(await wakeUps()).toEqual([]);
    expect(await page.evaluate(() => document.visibilityState)).toBe("visible");

    // Yesterday keeps its tick and stays editable.
    await todayCard(page).getByRole("button", { name: "Previous day" }).tap();
    await expect(shownDay(page)).toHaveAttribute("datetime", day);
    await expect(dose(page, "Omega 3")).toBeChecked();
    const undone = page.waitForResponse((r) => r.url().includes("/api/intakes/") && r.request().method() === "DELETE");
    await dose(page, "Omega 3").tap();
    expect((await undone).status()).toBe(204);
    const then = await apiCall<TodayJson>(page, app.url, "GET", `/api/today?date=${day}`);
    expect(then.summary).toEqual({ due: 1, taken: 0, skipped: 0 });
    const now = await apiCall<TodayJson>(page, app.url, "GET", "/api/today");
    expect(now.date).toBe(next);
  } finally {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an empty stack's Today offers `Add a supplement`, the same dialog as Add Item", async ({ page, baseURL }) => {
  const base = baseURL as string;
  await signUpWithApi(page.request, base);
  await gotoHydrated(page, `${base}/dashboard`);
  await expect(todayCard(page).getByText("Nothing scheduled today")).toBeVisible();
  await todayCard(page).getByRole("button", { name: "Add a supplement" }).tap();
  const dialog = page.getByRole("dialog", { name: "Add New Supplement" });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel("Name").fill("Iron");
  await dialog.getByLabel("Frequency").fill("daily");
  await dialog.getByRole("button", { name: "Add Supplement" }).tap();
  await expect(todayCard(page).getByRole("checkbox", { name: /^Iron/ })).toBeVisible();
  await expect(todayCard(page).getByRole("button", { name: "Add a supplement" })).toHaveCount(0);
});
