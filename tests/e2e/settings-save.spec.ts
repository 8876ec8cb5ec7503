/**
 * Issue 51 §4 and §9 at 360 × 740 with touch: one save model in Settings (each control saves on
 * change with its card's one toast, docs/decisions/001-settings-save-on-change.md): a reminder
 * time is kept after touching a channel, and after leaving the page at once; the time zone by
 * search and Enter. Turning push on: `Waiting for your browser…` on the switch only (the rest
 * of the card usable), the 15 s limit (the page's clock moved), and the reason when the browser
 * blocks notifications (no permission granted to the context). Axe; 320 and 360 px with a
 * 50-character username.
 */
import { expect, type Page, test } from "@playwright/test";
import type { ReminderSettingsJson } from "../../src/lib/reminders";
import { expectToast, gotoHydrated } from "../support/e2e-ui";
import { apiCall, signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

test.use({ viewport: { width: 360, height: 740 }, hasTouch: true });

const LONG_NAME = () => `s${"x".repeat(45)}${Math.floor(Math.random() * 9000 + 1000)}`;
const remindersCard = (page: Page) =>
  page.locator("section", { has: page.getByRole("heading", { level: 2, name: "Reminders" }) });
const reminders = (page: Page, base: string) => apiCall<ReminderSettingsJson>(page, base, "GET", "/api/reminders");

test("a reminder time is kept after touching a channel, and after leaving at once; the zone saves on choice", async ({
  page,
  baseURL,
}) => {
  const base = baseURL as string;
  await signUpWithApi(page.request, base, { username: LONG_NAME() });
  await gotoHydrated(page, "/settings");
  const card = remindersCard(page);
  await expect(card.getByLabel("Morning")).toHaveValue("08:00");

  // The reported bug: Morning to 06:45, then E-mail (which saves at once), then leave.
  await card.getByLabel("Morning").fill("06:45");
  await card.getByLabel("E-mail").tap();
  await expectToast(page, "Reminders saved");
  await expect.poll(async () => (await reminders(page, base)).email).toBe(true);
  await gotoHydrated(page, "/dashboard");
  await gotoHydrated(page, "/settings");
  await expect(card.getByLabel("Morning")).toHaveValue("06:45");
  await expect(card.getByLabel("E-mail")).toBeChecked();

  // A time changed and the page left straight away: sent as the page goes.
  await card.getByLabel("Evening").fill("19:30");
  await page.goto("/dashboard");
  await expect.poll(async () => (await reminders(page, base)).times.evening).toBe("19:30");

  // A list: saved after a pause, with the same toast.
  await gotoHydrated(page, "/settings");
  await card.getByLabel("Remind me again if I haven't ticked them").selectOption("30");
  await expectToast(page, "Reminders saved");
  expect(await reminders(page, base)).toMatchObject({
    followUpMinutes: 30,
    email: true,
    times: { morning: "06:45", evening: "19:30" },
  });

  // The time zone: the search filters, Enter chooses the first match, which saves.
  const zoneCard = page.getByRole("region", { name: "Time zone", exact: true });
  await expect(zoneCard.getByRole("button", { name: "Save" })).toHaveCount(0);
  await zoneCard.getByRole("searchbox", { name: "Search time zones" }).fill("kiritimati");
  await page.keyboard.press("Enter");
  await expectToast(page, "Time zone saved");
  await expect(zoneCard.getByText("Your days start at midnight here: Pacific/Kiritimati.")).toBeVisible();
  expect((await apiCall<{ timeZone: string }>(page, base, "GET", "/api/auth/user")).timeZone).toBe(
    "Pacific/Kiritimati",
  );

  for (const width of [320, 360]) {
    await page.setViewportSize({ width, height: 740 });
    const { scrolls, offenders } = await horizontalOverflow(page);
    expect(offenders, `elements wider than ${width} px`).toEqual([]);
    expect(scrolls).toBe(false);
  }
  await expectNoA11yViolations(page);
});

test("push: blocked by the browser, the switch says why", async ({ page, baseURL }) => {
  const base = baseURL as string;
  await signUpWithApi(page.request, base);
  // No permission granted to the context: headless Chromium answers the prompt with 'denied'.
  await gotoHydrated(page, "/settings");
  const card = remindersCard(page);
  await card.getByLabel("Push notifications on this device").tap();
  await expect(card.getByText("Your browser blocked notifications for this site")).toBeVisible();
  await expect(card.getByLabel("Push notifications on this device")).not.toBeChecked();
  await expect(card.getByLabel("Push notifications on this device")).toBeEnabled();
  expect((await reminders(page, base)).push).toBe(false);
  await expectNoA11yViolations(page);
});

test("push: while the browser registers, the switch waits alone; after 15 s, a reason", async ({ page, baseURL }) => {
  const base = baseURL as string;
  await signUpWithApi(page.request, base, { username: LONG_NAME() });
  await page.clock.install();
  // A prompt nobody answers.
  await page.addInitScript(() => {
    Notification.requestPermission = () => new Promise(() => undefined);
  });
  await gotoHydrated(page, "/settings");
  const card = remindersCard(page);
  const push = card.getByLabel("Push notifications on this device");
  await push.tap();
  await expect(card.getByText("Waiting for your browser…")).toBeVisible();
  await expect(push).toBeDisabled();
  // The rest of the card stays usable meanwhile.
  await card.getByLabel("E-mail").tap();
  await expectToast(page, "Reminders saved");
  await expect.poll(async () => (await reminders(page, base)).email).toBe(true);
  await expect(card.getByText("Waiting for your browser…")).toBeVisible();
  for (const width of [320, 360]) {
    await page.setViewportSize({ width, height: 740 });
    expect((await horizontalOverflow(page)).offenders).toEqual([]);
  }
  await expectNoA11yViolations(page);

  await page.clock.runFor(15_000);
  await expect(card.getByText("Could not turn on push notifications")).toBeVisible();
  await expect(push).toBeEnabled();
  await expect(push).not.toBeChecked();
});
