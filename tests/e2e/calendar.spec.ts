/**
 * Issue 50 §1, the Calendar card in Chromium: off by default; `Add to your calendar` shows the
 * address (`https://…/api/calendar/{token}.ics`, its `webcal://` link, `Copy` puts it on the
 * clipboard) and the feed answers it without a cookie; `Hide supplement names` hides them in the
 * feed; `Reset address` gives a new one and the old one answers 404; `Turn off` ends it. axe
 * clean off and on; no sideways scroll at 320, 360 and 1280 px with a 50-character username.
 * CALENDAR_SCREENSHOTS=<folder> keeps screenshots.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, type Page, request, test } from "@playwright/test";
import { expectToast, gotoHydrated } from "../support/e2e-ui";
import { signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

const card = (page: Page) => page.locator("section", { has: page.getByRole("heading", { name: "Calendar" }) });

/** The feed as a calendar app fetches it: no cookie, no origin. */
async function fetchFeed(url: string): Promise<{ status: number; type: string | undefined; text: string }> {
  const outsider = await request.newContext();
  try {
    const answer = await outsider.get(url);
    return { status: answer.status(), type: answer.headers()["content-type"], text: await answer.text() };
  } finally {
    await outsider.dispose();
  }
}

test("the Calendar card: on, copy, hide names, reset, off", async ({ page, context, baseURL }) => {
  test.slow();
  const origin = new URL(baseURL as string).origin;
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  const username = `c${"a".repeat(45)}${crypto.randomUUID().slice(0, 4).replace(/-/g, "b")}`;
  await signUpWithApi(page.request, baseURL as string, { username });
  const headers = { Origin: origin };
  expect((await page.request.put("/api/profile", { data: { timeZone: "Europe/Berlin" }, headers })).status()).toBe(200);
  const made = await page.request.post("/api/supplements", {
    data: { name: "Vitamin D3", quantityType: "Capsule(s)", frequency: "Daily" },
    headers,
  });
  expect(made.status()).toBe(201);

  await gotoHydrated(page, "/settings");
  const calendar = card(page);
  await expect(calendar.getByRole("button", { name: "Add to your calendar" })).toBeVisible();
  await expect(calendar.getByLabel("Calendar address")).toHaveCount(0);
  await expectNoA11yViolations(page);

  // On: the address, its webcal:// twin, Copy.
  await calendar.getByRole("button", { name: "Add to your calendar" }).click();
  await expectToast(page, "Calendar feed on");
  const address = calendar.getByLabel("Calendar address");
  await expect(address).toHaveValue(
    new RegExp(`^${origin.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/api/calendar/[A-Za-z0-9_-]{43,}\\.ics$`),
  );
  const url = await address.inputValue();
  await expect(calendar.getByRole("link", { name: "Open in calendar app" })).toHaveAttribute(
    "href",
    url.replace(/^https?:\/\//, "webcal://"),
  );
  await expect(calendar).toContainText("Google Calendar refreshes a subscription every few hours");
  await calendar.getByRole("button", { name: "Copy" }).click();
  await expectToast(page, "Address copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  await expectNoA11yViolations(page);

  // The feed answers that address with no cookie, names shown.
  let feed = await fetchFeed(url);
  expect(feed.status).toBe(200);
  expect(feed.type).toBe("text/calendar; charset=utf-8");
  expect(feed.text).toContain("SUMMARY:Morning: Vitamin D3");

  // Hide supplement names: the feed says how many, not what.
  await calendar.getByRole("checkbox", { name: "Hide supplement names" }).check();
  await expectToast(page, "Calendar saved");
  await expect(calendar.getByRole("checkbox", { name: "Hide supplement names" })).toBeChecked();
  feed = await fetchFeed(url);
  expect(feed.text).toContain("SUMMARY:Morning: 1 supplement");
  expect(feed.text).not.toContain("Vitamin D3");

  // Kept across a reload.
  await gotoHydrated(page, "/settings");
  await expect(card(page).getByRole("checkbox", { name: "Hide supplement names" })).toBeChecked();
  await expect(card(page).getByLabel("Calendar address")).toHaveValue(url);

  // Reset address: a new one; the old one stops at once.
  await card(page).getByRole("button", { name: "Reset address" }).click();
  await expectToast(page, "New address made: the old one no longer works");
  await expect(card(page).getByLabel("Calendar address")).not.toHaveValue(url);
  const second = await card(page).getByLabel("Calendar address").inputValue();
  expect((await fetchFeed(url)).status).toBe(404);
  expect((await fetchFeed(second)).status).toBe(200);

  // Phone widths with a 50-character username: nothing sideways.
  const folder = process.env.CALENDAR_SCREENSHOTS;
  if (folder) mkdirSync(folder, { recursive: true });
  for (const width of [320, 360, 1280]) {
    await page.setViewportSize({ width, height: 740 });
    await card(page).scrollIntoViewIfNeeded();
    expect((await horizontalOverflow(page)).offenders, `${width} px`).toEqual([]);
    if (folder) await card(page).screenshot({ path: join(folder, `calendar-on-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  // Turn off: the address is gone, and so is the feed.
  await card(page).getByRole("button", { name: "Turn off" }).click();
  await expectToast(page, "Calendar feed off");
  await expect(card(page).getByRole("button", { name: "Add to your calendar" })).toBeVisible();
  await expect(card(page).getByLabel("Calendar address")).toHaveCount(0);
  expect((await fetchFeed(second)).status).toBe(404);
  await expectNoA11yViolations(page);
});
