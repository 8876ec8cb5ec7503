/**
 * Issue 40 in Chromium: Today without a network. The dashboard reloads offline from the
 * service worker's copy, two ticks wait on the device (`Pending`, at 320/360/1280 px with a
 * 50-character username, axe), are saved when the network is back, one intake each with the
 * time it was made; a tick made offline before midnight and sent after it lands on its own
 * day (the day after is planned from the cached schedules); a tick whose supplement was
 * deleted, or whose day left the window (a moved server clock), is dropped and said so;
 * sign-out leaves nothing behind.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { addDays, dateIn } from "../../src/lib/dates";
import type { TodayJson } from "../../src/lib/schedule";
import { type ControlledApp, startControlledApp } from "../support/e2e-app";
import { expectToast, gotoHydrated, waitForHydration } from "../support/e2e-ui";
import { addSupplements, apiCall, signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations } from "./support";

const SCREENSHOTS = process.env.RESPONSIVE_SCREENSHOTS;

test.use({ timezoneId: "UTC", serviceWorkers: "allow" });

const todayCard = (page: Page) => page.getByTestId("today-card");
const dose = (page: Page, label: string) => todayCard(page).getByRole("checkbox", { name: label, exact: true });
const doseRow = (page: Page, name: string) => todayCard(page).getByTestId("dose-row").filter({ hasText: name });
const longName = () => `o${"x".repeat(45)}${Math.floor(Math.random() * 9000 + 1000)}`;

/**
 * The dashboard, once the worker controls it: a request made while the worker takes over
 * may pass by the test's network routes.
 */
async function controlledDashboard(page: Page, url: string) {
  await gotoHydrated(page, url);
  await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);
}

/**
 * Loads the dashboard until the worker controls it, then once more through the worker, so
 * that it keeps the page, its assets and Today's answer.
 */
async function dashboardKeptOffline(page: Page, url: string) {
  await controlledDashboard(page, url);
  await page.reload();
  await waitForHydration(page);
  await expect(todayCard(page).getByTestId("dose-row").first()).toBeVisible();
}

/** The first visit: the page names what it fetched, and the worker keeps the page, its assets and Today. */
async function firstVisitKept(page: Page, url: string) {
  await controlledDashboard(page, url);
  await expect(todayCard(page).getByTestId("dose-row").first()).toBeVisible();
  const kept = () =>
    page.evaluate(async () => {
      const cache = await caches.open("stacktrack-offline-v2");
      const paths = (await cache.keys()).map((r) => new URL(r.url).pathname);
      return (
        ["/dashboard", "/api/today"].every((p) => paths.includes(p)) && paths.some((p) => p.startsWith("/_astro/"))
      );
    });
  await expect.poll(kept, { timeout: 15_000 }).toBe(true);
}

/** The row's note while its tick waits: `Pending` shown, "Waiting to sync" for screen readers. */
const PENDING = "PendingWaiting to sync";

/**
 * Ticks `name` with the browser offline (left offline): the tick waits. (A route that aborts
 * the write is not enough: a request of a page the worker controls may pass by it.)
 */
async function tickOffline(page: Page, context: BrowserContext, name: string) {
  await context.setOffline(true);
  await dose(page, name).check();
  await expect(doseRow(page, name).getByTestId("dose-sync")).toHaveText(PENDING);
}

/**
 * A tick while a proxy between the browser and the app is cut: nothing reaches the server. In
 * the browser's offline mode, a request of a page its worker controls may still reach it (seen
 * in CI), so a test that needs the tick still waiting afterwards uses this.
 */
async function tickUnreachable(page: Page, network: NonNullable<ControlledApp["network"]>, name: string) {
  network.cut();
  await dose(page, name).check();
  await expect(doseRow(page, name).getByTestId("dose-sync")).toHaveText(PENDING);
}

/** A tick left waiting (tickUnreachable), then the network back and /settings open (it sends nothing). */
async function waitingTickOnSettings(
  page: Page,
  network: NonNullable<ControlledApp["network"]>,
  base: string,
  name: string,
) {
  await tickUnreachable(page, network, name);
  await page.goto("about:blank");
  network.restore();
  await gotoHydrated(page, `${base}/settings`);
}

/** How many ticks wait in the browser's queue (IndexedDB). */
const waitingOnDevice = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open("stacktrack-offline");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const count = open.result.transaction("changes").objectStore("changes").count();
          count.onsuccess = () => resolve(count.result);
        };
      }),
  );

async function reloadOffline(page: Page, context: BrowserContext) {
  await context.setOffline(true);
  await page.reload();
  await waitForHydration(page);
}

test("offline: the dashboard reloads, two ticks wait as Pending, and are saved once each when back online", async ({
  page,
  context,
  baseURL,
}) => {
  test.slow();
  const base = baseURL as string;
  const user = await signUpWithApi(page.request, base, { username: longName() });
  expect(user.username).toHaveLength(50);
  await addSupplements(page, base, [{ name: "Vitamin D3" }, { name: "Magnesium" }, { name: "Zinc" }]);
  await firstVisitKept(page, `${base}/dashboard`);

  await reloadOffline(page, context);
  await expect(page.getByRole("heading", { level: 2, name: "Today" })).toBeVisible();
  const before = Date.now();
  await dose(page, "Vitamin D3").check();
  await dose(page, "Magnesium").check();
  for (const name of ["Vitamin D3", "Magnesium"]) {
    await expect(doseRow(page, name).getByTestId("dose-sync")).toHaveText(PENDING);
    await expect(dose(page, name)).toBeChecked();
  }
  await expect(doseRow(page, "Zinc").getByTestId("dose-sync")).toHaveCount(0);
  // The accessible description of the ticked box says it waits.
  await expect(dose(page, "Vitamin D3")).toHaveAccessibleDescription("Waiting to sync");
  // Still waiting after another offline reload: the queue is on the device.
  await page.reload();
  await waitForHydration(page);
  await expect(doseRow(page, "Magnesium").getByTestId("dose-sync")).toHaveText(PENDING);
  await expect(dose(page, "Magnesium")).toBeChecked();

  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  for (const width of [320, 360, 1280]) {
    await page.setViewportSize({ width, height: width === 1280 ? 900 : 740 });
    await todayCard(page).scrollIntoViewIfNeeded();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `sideways scroll at ${width} px`).toBeLessThanOrEqual(0);
    if (SCREENSHOTS) await todayCard(page).screenshot({ path: join(SCREENSHOTS, `offline-pending-${width}.png`) });
  }
  await expectNoA11yViolations(page);

  const sent = page.waitForResponse((r) => r.url().includes("/api/intakes/") && r.request().method() === "PUT");
  await context.setOffline(false);
  await sent;
  for (const name of ["Vitamin D3", "Magnesium"]) {
    await expect(doseRow(page, name).getByTestId("dose-sync")).toHaveText("Saved");
  }
  await expect(todayCard(page).getByTestId("sync-status")).toHaveText("Ticks made offline are saved");
  await expectNoA11yViolations(page);

  // Exactly one intake each, with the time the tick was made (before the network came back).
  const day = await apiCall<TodayJson>(page, base, "GET", "/api/today");
  expect(day.summary).toEqual({ due: 3, taken: 2, skipped: 0 });
  const taken = day.doses.filter((d) => d.status === "taken");
  expect(taken.map((d) => d.name).sort()).toEqual(["Magnesium", "Vitamin D3"]);
  for (const d of taken) expect(Date.parse(d.at ?? "")).toBeGreaterThanOrEqual(before - 1000);
  const history = await apiCall<{ days: { date: string; taken: number }[] }>(
    page,
    base,
    "GET",
    `/api/history?from=${day.date}&to=${day.date}`,
  );
  expect(history.days).toEqual([expect.objectContaining({ date: day.date, taken: 2 })]);
  // A reload online shows the server's state, nothing waiting.
  await gotoHydrated(page, `${base}/dashboard`);
  await expect(dose(page, "Magnesium")).toBeChecked();
  await expect(todayCard(page).getByTestId("dose-sync")).toHaveCount(0);
});

test("a tick made offline before midnight and sent after it lands on the day it was made", async ({
  page,
  context,
}) => {
  test.slow();
  // The server's clock stands at noon (UTC) of today: a run across the real midnight keeps its days.
  const today = dateIn("UTC", Date.now());
  const dir = mkdtempSync(join(tmpdir(), "offline-midnight-"));
  const clockFile = join(dir, "now");
  writeFileSync(clockFile, String(Date.parse(`${today}T12:00:00.000Z`)));
  const app = await startControlledApp({ TEST_CLOCK_FILE: clockFile });
  try {
    const user = await signUpWithApi(page.request, app.url);
    await addSupplements(page, app.url, [{ name: "Omega 3" }]);
    await apiCall(page, app.url, "PUT", "/api/profile", { timeZone: "UTC" });
    await app.backdateSchedules(user.email, 3);
    // The browser's clock: 23:50 the day before the server's today (UTC).
    const yesterday = addDays(today, -1);
    const madeAt = `${yesterday}T23:50:00.000Z`;
    await page.clock.install({ time: new Date(madeAt) });
    await dashboardKeptOffline(page, `${app.url}/dashboard`);
    await expect(todayCard(page).getByTestId("today-date").locator("time")).toHaveAttribute("datetime", yesterday);

    await reloadOffline(page, context);
    await dose(page, "Omega 3").check();
    await expect(doseRow(page, "Omega 3").getByTestId("dose-sync")).toHaveText(PENDING);

    // Past midnight, still offline: the new day is planned from the kept schedules.
    await page.clock.setSystemTime(new Date(`${today}T00:05:00.000Z`));
    await page.reload();
    await waitForHydration(page);
    await expect(todayCard(page).getByTestId("today-date").locator("time")).toHaveAttribute("datetime", today);
    await expect(dose(page, "Omega 3")).not.toBeChecked();
    await expect(todayCard(page).getByTestId("dose-sync")).toHaveCount(0);
    await todayCard(page).getByRole("button", { name: "Previous day" }).click();
    await expect(dose(page, "Omega 3")).toBeChecked();
    await expect(doseRow(page, "Omega 3").getByTestId("dose-sync")).toHaveText(PENDING);

    await context.setOffline(false);
    await expect(doseRow(page, "Omega 3").getByTestId("dose-sync")).toHaveText("Saved");
    const then = await apiCall<TodayJson>(page, app.url, "GET", `/api/today?date=${yesterday}`);
    // The time it was made: 23:50 and the few seconds the browser's clock ran on since.
    expect(then.doses.map((d) => [d.name, d.status, d.at?.slice(0, 15)])).toEqual([
      ["Omega 3", "taken", madeAt.slice(0, 15)],
    ]);
    const now = await apiCall<TodayJson>(page, app.url, "GET", "/api/today");
    expect([now.date, now.summary.taken]).toEqual([today, 0]);
  } finally {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("sign-out deletes the worker's copies and the waiting ticks", async ({ page }) => {
  // Unreachable by a cut proxy: in offline mode, the retry 2 s later once saved the tick (CI).
  const app = await startControlledApp({}, { proxied: true });
  const network = app.network as NonNullable<typeof app.network>;
  const base = app.url;
  try {
    await signUpWithApi(page.request, base);
    await addSupplements(page, base, [{ name: "Vitamin C" }]);
    await dashboardKeptOffline(page, `${base}/dashboard`);
    // The tick cannot reach the server: it waits on the device (settings does not send it).
    await waitingTickOnSettings(page, network, base, "Vitamin C");
    const stored = () =>
      page.evaluate(async () => ({
        caches: (await caches.keys()).length,
        databases: (await indexedDB.databases()).length,
        workers: (await navigator.serviceWorker.getRegistrations()).length,
      }));
    expect(await stored()).toEqual({ caches: 1, databases: 1, workers: 1 });
    expect(await waitingOnDevice(page)).toBe(1);

    await page.getByRole("button", { name: "Account menu" }).click();
    await page.getByRole("menuitem", { name: "Logout" }).click();
    await expect(page).toHaveURL(`${base}/`);
    await expect.poll(stored).toEqual({ caches: 0, databases: 0, workers: 0 });
    // The landing page has no script and no worker.
    expect(await page.locator("script").count()).toBe(0);
  } finally {
    await app.stop();
  }
});

test("a waiting tick for a supplement deleted meanwhile is dropped with a notice", async ({
  page,
  context,
  baseURL,
}) => {
  const base = baseURL as string;
  await signUpWithApi(page.request, base);
  const [id] = await addSupplements(page, base, [{ name: "Iron" }, { name: "Zinc" }]);
  await controlledDashboard(page, `${base}/dashboard`);
  // The toast library loads on the first interaction: here while online (docs/offline.md, Left).
  await page.keyboard.press("Tab");
  await expect(page.locator("section[aria-live='polite'][aria-label^='Notifications']")).toHaveCount(1);
  await tickOffline(page, context, "Iron");
  // Deleted elsewhere (another device) while the tick waited; then the network is back.
  await apiCall(page, base, "DELETE", `/api/supplements/${id}`);
  await context.setOffline(false);
  await expectToast(page, "Error", "A tick for a supplement you deleted was dropped");
  await expect(page.getByTestId("dose-row").filter({ hasText: "Iron" })).toHaveCount(0);
  expect(await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).toEqual([
    "stacktrack-offline",
  ]);
  expect(await waitingOnDevice(page)).toBe(0);
});

test("a tick that waited until its day left the 7-day window is refused, and the row says so", async ({
  page,
  context,
}) => {
  test.slow();
  // The server's clock is read from a file (tests only), moved a day on while the tick waits.
  const dir = mkdtempSync(join(tmpdir(), "offline-clock-"));
  const clockFile = join(dir, "now");
  writeFileSync(clockFile, String(Date.now()));
  const app = await startControlledApp({ TEST_CLOCK_FILE: clockFile });
  try {
    const user = await signUpWithApi(page.request, app.url);
    await addSupplements(page, app.url, [{ name: "Omega 3" }]);
    await apiCall(page, app.url, "PUT", "/api/profile", { timeZone: "UTC" });
    await app.backdateSchedules(user.email, 10);
    await controlledDashboard(page, `${app.url}/dashboard`);
    for (let i = 0; i < 7; i++) await todayCard(page).getByRole("button", { name: "Previous day" }).click();
    await expect(todayCard(page).getByTestId("today-date")).toHaveText("7 days ago");
    await tickOffline(page, context, "Omega 3");

    writeFileSync(clockFile, String(Date.now() + 86_400_000));
    await context.setOffline(false);
    const refusal = "Only today and the 7 days before it can be changed";
    await expectToast(page, "Error", refusal);
    await expect(doseRow(page, "Omega 3").getByTestId("dose-sync")).toHaveText(`Not saved: ${refusal}`);
    await expect(dose(page, "Omega 3")).toHaveAccessibleDescription(`Not saved: ${refusal}`);
    await expectNoA11yViolations(page);
  } finally {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("another user signing in on the browser (no sign-out) never gets the first one's waiting ticks or copies", async ({
  page,
  context,
}) => {
  const app = await startControlledApp({}, { proxied: true });
  const network = app.network as NonNullable<typeof app.network>;
  const base = app.url;
  try {
    await signUpWithApi(page.request, base);
    await addSupplements(page, base, [{ name: "Private Tonic" }]);
    await firstVisitKept(page, `${base}/dashboard`);
    // It waits on the device (settings does not send it).
    await waitingTickOnSettings(page, network, base, "Private Tonic");
    expect(await waitingOnDevice(page)).toBe(1);

    // The session ends without a sign-out (cookies gone), and someone else signs in.
    const sent: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/api/intakes/")) sent.push(r.url());
    });
    await context.clearCookies();
    await signUpWithApi(page.request, base);
    await addSupplements(page, base, [{ name: "Vitamin C" }]);
    await gotoHydrated(page, `${base}/dashboard`);
    await expect(dose(page, "Vitamin C")).toBeVisible();
    await expect(todayCard(page)).not.toContainText("Private Tonic");
    const left = () =>
      page.evaluate(async () => {
        const cache = await caches.open("stacktrack-offline-v2");
        const responses = await Promise.all((await cache.keys()).map((r) => cache.match(r)));
        const texts = await Promise.all(responses.map((r) => r?.text() ?? ""));
        return texts.some((t) => t.includes("Private Tonic"));
      });
    await expect.poll(left).toBe(false);
    expect(sent).toEqual([]);
    await expect.poll(() => waitingOnDevice(page)).toBe(0);
  } finally {
    await app.stop();
  }
});
