/**
 * Issue 51 at 360 × 740 with touch (and 320 × 640, 1280 × 800 where it says so), a 50-character
 * username: the empty dashboard's Add Item visible without scrolling; a day done with skips on
 * the heatmap (`All done, 1 skipped`, its own colour, never All taken) and the legend saying how
 * skips count; the 404 page keeping the signed-in top bar; an unknown profile offering a
 * signed-out visitor `Make it yours` (sign-up, then the name prefilled at set-up). Axe in each.
 */
import { expect, type Page, test } from "@playwright/test";
import { dateIn, shortDayLabel } from "../../src/lib/dates";
import { HEATMAP_LABELS, HEATMAP_NOTE } from "../../src/lib/heatmap";
import { background, gotoHydrated, swatch, waitForHydration } from "../support/e2e-ui";
import { apiCall, newCredentials, signUpWithApi, uniqueUsername } from "../support/e2e-users";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

const ZONE = "Europe/Berlin";
test.use({ viewport: { width: 360, height: 740 }, hasTouch: true, timezoneId: ZONE });

const LONG_NAME = () => `f${"x".repeat(45)}${Math.floor(Math.random() * 9000 + 1000)}`;

async function fits(page: Page, widths: number[]) {
  for (const width of widths) {
    await page.setViewportSize({ width, height: 740 });
    const { scrolls, offenders } = await horizontalOverflow(page);
    expect(offenders, `elements wider than ${width} px`).toEqual([]);
    expect(scrolls).toBe(false);
  }
}

test("the empty dashboard shows Add Item without scrolling at 320 × 640, 360 × 740 and 1280 × 800", async ({
  page,
  baseURL,
}) => {
  const username = LONG_NAME();
  await signUpWithApi(page.request, baseURL as string, { username });
  for (const [width, height] of [
    [320, 640],
    [360, 740],
    [1280, 800],
  ] as const) {
    await page.setViewportSize({ width, height });
    await gotoHydrated(page, "/");
    await expect(page.getByRole("heading", { level: 1, name: `Welcome back, @${username}` })).toBeVisible();
    await expect(page.getByText("No supplements added yet")).toBeAttached();
    const add = page.getByRole("button", { name: "Add Item" });
    await expect(add).toHaveCount(1);
    await expect(add).toBeInViewport({ ratio: 1 });
  }
  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByRole("button", { name: "Add Item" }).tap();
  await expect(page.getByRole("dialog", { name: "Add New Supplement" })).toBeVisible();
  await page.keyboard.press("Escape");
  await fits(page, [320, 360]);
  await expectNoA11yViolations(page);
});

test("a day done with skips: its own colour, 'All done, 1 skipped' / '2 skipped', and the legend says how skips count", async ({
  page,
  baseURL,
}) => {
  const base = baseURL as string;
  await signUpWithApi(page.request, base, { username: LONG_NAME() });
  await apiCall(page, base, "PUT", "/api/profile", { timeZone: ZONE });
  const ids: number[] = [];
  for (const name of ["Vitamin D3", "Magnesium", "Zinc"]) {
    const created = await apiCall<{ id: number }>(page, base, "POST", "/api/supplements", {
      name,
      quantityType: "Capsule(s)",
      frequency: "daily",
      schedule: { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] },
    });
    ids.push(created.id);
  }
  const today = dateIn(ZONE, Date.now());
  const mark = (id: number | undefined, status: "taken" | "skipped") =>
    apiCall(page, base, "PUT", `/api/intakes/${today}/${id}/morning`, { status });
  await mark(ids[0], "taken");
  await mark(ids[1], "skipped");
  await mark(ids[2], "skipped");

  await gotoHydrated(page, "/");
  const history = page.getByTestId("history-card");
  const cell = history.getByRole("img", { name: `${shortDayLabel(today)}: All done, 2 skipped (today)` });
  await cell.scrollIntoViewIfNeeded();
  await expect(cell).toBeVisible();
  const legend = HEATMAP_LABELS.skipped;
  expect(await background(cell)).toBe(await background(swatch(page, legend)));
  expect(await background(cell)).not.toBe(await background(swatch(page, HEATMAP_LABELS.all)));
  await expect(history.getByText(HEATMAP_NOTE)).toBeVisible();
  // Adherence counts a skip as not taken; only ended days count, and today is the only one.
  await expect(history.getByText("Adherence (30 days)")).toBeVisible();

  await mark(ids[2], "taken");
  await gotoHydrated(page, "/");
  await expect(
    history.getByRole("img", { name: `${shortDayLabel(today)}: All done, 1 skipped (today)` }),
  ).toBeAttached();
  await expect(history.getByRole("img", { name: /All taken/ })).toHaveCount(0);
  await history.scrollIntoViewIfNeeded();
  await fits(page, [320, 360]);
  await expectNoA11yViolations(page);
});

test("a 404 keeps the signed-in top bar; a visitor sees the plain one", async ({ page, baseURL }) => {
  await signUpWithApi(page.request, baseURL as string, { username: LONG_NAME() });
  const response = await page.goto("/no/such/page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "404 Page Not Found" })).toBeVisible();
  await expect(page.getByText("Did you forget to add the page to the router?")).toBeVisible();
  await expect(page.getByRole("link", { name: "Go Home" })).toHaveAttribute("href", "/");
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Dashboard" })).toBeVisible();
  await fits(page, [320, 360]);
  await expectNoA11yViolations(page);

  await page.context().clearCookies();
  expect((await page.goto("/no/such/page"))?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "404 Page Not Found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Dashboard" })).toHaveCount(0);
});

test("an unknown profile offers 'Make it yours' when the name is free: sign-up, then the name at set-up", async ({
  page,
  baseURL,
}) => {
  const name = uniqueUsername("Free");
  const response = await page.goto(`/${name}`);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Profile Not Found" })).toBeVisible();
  await expect(page.getByText(`The user @${name} doesn't exist or their profile is private`)).toBeVisible();
  await expect(page.getByRole("link", { name: "Go Home" })).toBeVisible();
  await fits(page, [320, 360]);
  await expectNoA11yViolations(page);

  // A reserved name and an invalid one offer nothing.
  for (const other of ["/admin", "/no-dashes-allowed"]) {
    await page.goto(other);
    await expect(page.getByRole("link", { name: "Make it yours" })).toHaveCount(0);
  }

  await page.goto(`/${name}`);
  await page.getByRole("link", { name: "Make it yours" }).tap();
  await expect(page).toHaveURL(/\/auth\/sign-up\?redirectTo=/);
  // Filled before the form hydrates, the fields could be reset by it (CI, once).
  await waitForHydration(page);
  const credentials = newCredentials();
  await page.getByLabel("Name", { exact: true }).fill(credentials.name);
  await page.getByLabel("Email", { exact: true }).fill(credentials.email);
  await page.getByLabel("Password", { exact: true }).fill(credentials.password);
  await page.getByRole("button", { name: "Create Account" }).tap();
  await expect(page.getByRole("heading", { level: 1, name: /^Welcome to / })).toBeVisible();
  await expect(page.getByLabel("Username")).toHaveValue(name);
  await expect(page.getByText("Username is available")).toBeVisible();

  // Once taken, the name's page (kept while it was free) is the new profile and offers nothing.
  await page.getByRole("button", { name: "Complete Setup" }).tap();
  await expect(page.getByText("Profile Setup Complete!")).toBeVisible();
  const taken = await page.goto(`/${name}`);
  expect(taken?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1, name: "Profile Not Found" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Make it yours" })).toHaveCount(0);
  expect(baseURL).toBeTruthy();
});
