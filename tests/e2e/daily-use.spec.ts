/**
 * Issue 38, sections 1 and 2, at 360 and 1280 px: Today first on phones (its first row on a
 * 360 × 740 screen without scrolling), Take all per time of day (one request, undone in one),
 * `All done for today`, a past day titled with its date, the heatmap's today by taken ÷ due,
 * its weekday and month labels, a new account's few weeks, `Today: 3 of 5` beside the streak,
 * doses as phrases, the dialog's Frequency following the schedule and its sticky actions at
 * 360 × 600. Axe in each new state. DAILY_USE_SCREENSHOTS=<folder> keeps screenshots at 320,
 * 360 and 1280 px with a 50-character username.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { addDays, dateIn, shortDayLabel } from "../../src/lib/dates";
import { HEATMAP_LABELS } from "../../src/lib/heatmap";
import { background, expectToast, gotoHydrated, swatch } from "../support/e2e-ui";
import { apiCall, signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations } from "./support";

const ZONE = "Europe/Berlin";
test.use({ timezoneId: ZONE });

const today = () => dateIn(ZONE, Date.now());
const longDate = (date: string) =>
  new Intl.DateTimeFormat("en-GB", { weekday: "long", day: "numeric", month: "long", timeZone: "UTC" }).format(
    new Date(`${date}T12:00:00Z`),
  );
const todayCard = (page: Page) => page.getByTestId("today-card");
const dose = (page: Page, label: string) => todayCard(page).getByRole("checkbox", { name: label, exact: true });

const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7];
/** Five supplements: three in the morning, two in the evening; each type's phrase. */
const STACK = [
  {
    name: "Vitamin D3",
    quantityType: "Capsule(s)",
    doseAmount: 2,
    times: ["morning"],
    label: "Vitamin D3, 2 capsules",
  },
  { name: "Fish oil", quantityType: "Soft Gel", doseAmount: 1, times: ["morning"], label: "Fish oil, 1 soft gel" },
  {
    name: "Cod liver",
    quantityType: "Teaspoon(s)",
    doseAmount: 0.5,
    times: ["morning"],
    label: "Cod liver, 0.5 teaspoon",
  },
  { name: "Iodine", quantityType: "Drop(s)", doseAmount: 5, times: ["evening"], label: "Iodine, 5 drops" },
  { name: "Greens", quantityType: "Other", doseAmount: 5, times: ["evening"], label: "Greens, 5" },
];

async function seedStack(page: Page, base: string, username?: string) {
  await signUpWithApi(page.request, base, username ? { username } : {});
  await apiCall(page, base, "PUT", "/api/profile", { timeZone: ZONE });
  for (const s of STACK) {
    await apiCall(page, base, "POST", "/api/supplements", {
      name: s.name,
      quantityType: s.quantityType,
      frequency: "with food",
      doseAmount: s.doseAmount,
      schedule: { times: s.times, days: EVERY_DAY },
    });
  }
}

/** Counts the requests to /api/intakes… while `run` runs. */
async function intakeRequests(page: Page, run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (request: import("@playwright/test").Request) => {
    if (request.url().includes("/api/intakes")) seen.push(`${request.method()} ${new URL(request.url()).pathname}`);
  };
  page.on("request", listener);
  await run();
  await page.waitForLoadState("networkidle");
  page.off("request", listener);
  return seen;
}

for (const viewport of [
  { width: 360, height: 740 },
  { width: 1280, height: 800 },
]) {
  test.describe(`at ${viewport.width} px`, () => {
    test.use({ viewport });

    test("Today first; Take all and its undo; All done; the heatmap's today; Today: 3 of 5; a past day", async ({
      page,
      baseURL,
    }) => {
      test.slow();
      const base = baseURL as string;
      await seedStack(page, base);
      await gotoHydrated(page, "/");
      const card = todayCard(page);
      await expect(card.getByText("0 of 5 taken")).toBeVisible({ timeout: 15_000 });

      // Doses read like sentences, in Today and in the list's rows.
      for (const s of STACK) await expect(dose(page, s.label)).toBeVisible();
      const rows = page.getByTestId("supplement-row");
      await expect(rows.filter({ hasText: "Vitamin D3" })).toContainText("2 capsules • with food");
      await expect(rows.filter({ hasText: "Greens" })).toContainText("5 • with food");
      await expect(page.getByText(/\(s\)|5 Other/)).toHaveCount(0);

      // Phones: the Today card comes before the stat cards, its first row on screen unscrolled.
      const firstRow = card.getByTestId("dose-row").first();
      const rowBox = await firstRow.boundingBox();
      const statBox = await page.getByText("Total Supplements").boundingBox();
      const cardBox = await card.boundingBox();
      if (viewport.width < 768) {
        expect(rowBox && rowBox.y + rowBox.height).toBeLessThanOrEqual(viewport.height);
        expect(cardBox?.y).toBeLessThan(statBox?.y ?? 0);
      } else {
        expect(statBox?.y).toBeLessThan(cardBox?.y ?? 0);
      }

      // Take all: Morning is one request; Evening has its own button; As needed none.
      const history = page.getByTestId("history-card");
      await expect(history.getByTestId("today-progress")).toHaveText("Today: 0 of 5");
      await expect(card.getByRole("button", { name: /^Take all/ })).toHaveCount(2);
      const took = await intakeRequests(page, () => card.getByRole("button", { name: "Take all: Morning" }).click());
      expect(took).toEqual([`PUT /api/intakes/${today()}`]);
      for (const s of STACK.slice(0, 3)) await expect(dose(page, s.label)).toBeChecked();
      await expect(card.getByText("3 of 5 taken")).toBeVisible();
      await expect(history.getByTestId("today-progress")).toHaveText("Today: 3 of 5");
      await expect(card.getByTestId("all-done")).toHaveText("");
      // Today's cell at 3 of 5: half or more, not All taken.
      const todayCell = history.getByRole("img", { name: `${shortDayLabel(today())}: 3 of 5 taken (today)` });
      await expect(todayCell).toBeVisible();
      expect(await background(todayCell)).toBe(await background(swatch(page, HEATMAP_LABELS.high)));
      await expectNoA11yViolations(page);

      // Undo in one step, by keyboard: focus stayed on the button that took Take all's place.
      const undo = card.getByRole("button", { name: "Undo take all: Morning" });
      await expect(undo).toBeFocused();
      const undone = await intakeRequests(page, () => page.keyboard.press("Enter"));
      expect(undone).toEqual([`PUT /api/intakes/${today()}`]);
      for (const s of STACK.slice(0, 3)) await expect(dose(page, s.label)).not.toBeChecked();
      await expect(card.getByText("0 of 5 taken")).toBeVisible();
      await expect(card.getByRole("button", { name: "Take all: Morning" })).toBeFocused();

      // Skip one evening dose, Take all the morning: the evening has one open dose, no button.
      await card.getByRole("button", { name: "Skip Greens, 5" }).click();
      await expect(card.getByRole("button", { name: "Take all: Evening" })).toHaveCount(0);
      await card.getByRole("button", { name: "Take all: Morning" }).click();
      await expect(card.getByText("3 of 5 taken")).toBeVisible();
      const before = await card.boundingBox();
      await dose(page, "Iodine, 5 drops").click();
      // All done: every due dose taken or skipped, said quietly, nothing moved.
      await expect(card.getByRole("status").filter({ hasText: "All done for today" })).toBeVisible();
      expect((await card.boundingBox())?.height).toBe(before?.height);
      // Done with a skip (issue 51): its own colour and words, not All taken.
      const done = history.getByRole("img", { name: `${shortDayLabel(today())}: All done, 1 skipped (today)` });
      expect(await background(done)).toBe(await background(swatch(page, HEATMAP_LABELS.skipped)));
      await expect(history.getByTestId("today-progress")).toHaveText("Today: 4 of 5");
      await expectNoA11yViolations(page);
      await page.reload();
      await expect(todayCard(page).getByText("All done for today")).toBeVisible({ timeout: 15_000 });

      // A new account: the weeks since it began (one), labelled; yesterday is titled with its date.
      await expect(history.getByRole("group", { name: "The last 1 week, one column per week" })).toBeVisible();
      await expect(history.getByTestId("heatmap-weekday")).toHaveText(["M", "T", "W", "T", "F", "S", "S"]);
      await expect(history.getByTestId("heatmap-month")).toHaveCount(1);
      await todayCard(page).getByRole("button", { name: "Previous day" }).click();
      const yesterday = addDays(today(), -1);
      await expect(todayCard(page).getByRole("heading", { level: 2 })).toHaveText(longDate(yesterday));
      await expect(todayCard(page).getByRole("heading", { name: "Today", exact: true })).toHaveCount(0);
      await expect(todayCard(page).getByText("Nothing scheduled that day")).toBeVisible();
      await expectNoA11yViolations(page);

      // The public page, its schedule shown: the same phrases.
      const { username } = await apiCall<{ username: string }>(page, base, "PUT", "/api/profile", {
        showSchedule: true,
      });
      await page.goto(`/${username}`);
      const items = page.getByRole("main").getByRole("listitem");
      await expect(items.filter({ hasText: "Cod liver" })).toContainText("0.5 teaspoon • with food");
      await expect(items.filter({ hasText: "Greens" })).toContainText("5 • with food");
      await expect(page.getByText(/\(s\)|5 Other/)).toHaveCount(0);
    });

    test("the dialog: Frequency follows the schedule until typed; actions stay visible", async ({ page, baseURL }) => {
      test.slow();
      const base = baseURL as string;
      await signUpWithApi(page.request, base);
      if (viewport.width < 768) await page.setViewportSize({ width: 360, height: 600 });
      await gotoHydrated(page, "/");
      await page.getByRole("button", { name: "Add Item" }).click();
      const d = page.getByRole("dialog", { name: "Add New Supplement" });
      const frequency = d.getByLabel("Frequency");
      await expect(frequency).toHaveValue("");
      await d.getByRole("checkbox", { name: "Morning" }).check();
      await expect(frequency).toHaveValue("Morning, every day");
      await d.getByRole("checkbox", { name: "Evening" }).check();
      await d.getByRole("checkbox", { name: "Every day" }).uncheck();
      for (const day of ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]) {
        await d.getByRole("button", { name: day }).click();
      }
      await expect(frequency).toHaveValue("Morning and evening, weekdays");
      await d.getByRole("switch", { name: "As needed" }).click();
      await expect(frequency).toHaveValue("As needed");
      await d.getByRole("switch", { name: "As needed" }).click();
      // Typed: kept whatever the schedule does next.
      await frequency.fill("with breakfast");
      await d.getByRole("checkbox", { name: "Bedtime" }).check();
      await d.getByRole("switch", { name: "As needed" }).click();
      await expect(frequency).toHaveValue("with breakfast");
      await d.getByRole("switch", { name: "As needed" }).click();

      // The actions are on screen and uncovered, at the top of the form and scrolled to its end.
      const actions = [d.getByRole("button", { name: "Cancel" }), d.getByRole("button", { name: "Add Supplement" })];
      const uncovered = (button: Locator) =>
        button.evaluate((el) => {
          const box = el.getBoundingClientRect();
          const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
          return box.bottom <= window.innerHeight && box.top >= 0 && (hit === el || el.contains(hit));
        });
      await d.getByLabel("Name").focus();
      for (const button of actions) expect(await uncovered(button)).toBe(true);
      await expect(d.getByText("Premium Features")).toBeVisible();
      await expectNoA11yViolations(page);
      // A failed save's toast leaves the dialog's controls uncovered.
      await page.route("**/api/supplements", (route) =>
        route.request().method() === "POST"
          ? route.fulfill({ status: 500, contentType: "application/json", body: '{"message":"boom"}' })
          : route.continue(),
      );
      await d.getByLabel("Name").fill("Iron");
      await actions[1]?.click();
      await expectToast(page, "Error", "Failed to add supplement");
      const toastBox = await page.locator('[data-sonner-toast][data-visible="true"]').boundingBox();
      expect(toastBox).not.toBeNull();
      for (const control of [...actions, d.getByRole("button", { name: "Close" }), d.getByLabel("Frequency")]) {
        const box = await control.boundingBox();
        const overlaps =
          !!box &&
          !!toastBox &&
          box.x < toastBox.x + toastBox.width &&
          toastBox.x < box.x + box.width &&
          box.y < toastBox.y + toastBox.height &&
          toastBox.y < box.y + box.height;
        expect(overlaps).toBe(false);
      }
      for (const button of actions) expect(await uncovered(button)).toBe(true);
      await expectNoA11yViolations(page);
      await page.unroute("**/api/supplements");
      await actions[1]?.click();
      await expect(d).toHaveCount(0);
      await expect(page.getByTestId("supplement-row").filter({ hasText: "Iron" })).toContainText(
        "Capsule(s) • with breakfast",
      );
    });
  });
}

test("screenshots at 320, 360 and 1280 px with a 50-character username", async ({ page, baseURL }) => {
  const folder = process.env.DAILY_USE_SCREENSHOTS;
  test.skip(!folder, "DAILY_USE_SCREENSHOTS not set");
  test.slow();
  mkdirSync(folder as string, { recursive: true });
  const base = baseURL as string;
  const username = `W${"a".repeat(45)}${crypto.randomUUID().slice(0, 4).replace(/-/g, "b")}`;
  await seedStack(page, base, username);
  await apiCall(page, base, "PUT", "/api/profile", { showSchedule: true });
  for (const width of [320, 360, 1280]) {
    await page.setViewportSize({ width, height: width < 768 ? 740 : 800 });
    await gotoHydrated(page, "/");
    await expect(todayCard(page).getByText(/of 5 taken/)).toBeVisible({ timeout: 15_000 });
    await page.screenshot({ path: join(folder as string, `dashboard-${width}.png`) });
    if (width === 320) {
      await todayCard(page).getByRole("button", { name: "Take all: Morning" }).click();
      await expect(todayCard(page).getByText("3 of 5 taken")).toBeVisible();
    }
    await page.screenshot({ path: join(folder as string, `dashboard-full-${width}.png`), fullPage: true });
    await page.setViewportSize({ width, height: 600 });
    await page.getByRole("button", { name: "Add Item" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    await page.screenshot({ path: join(folder as string, `dialog-${width}.png`) });
    await page.keyboard.press("Escape");
    await page.goto(`/${username}`);
    await page.screenshot({ path: join(folder as string, `public-${width}.png`), fullPage: true });
  }
});

test.describe("slots × Take all (issue 45 §5)", () => {
  test.use({ viewport: { width: 1280, height: 800 } });
  test("Take all: Morning ticks only the morning doses, and its Undo clears only them", async ({ page, baseURL }) => {
    test.slow();
    const base = baseURL as string;
    await signUpWithApi(page.request, base, {});
    await apiCall(page, base, "PUT", "/api/profile", { timeZone: ZONE });
    const add = async (name: string, times: string[]) =>
      (
        await apiCall<{ id: number }>(page, base, "POST", "/api/supplements", {
          name,
          quantityType: "Capsule(s)",
          frequency: "daily",
          doseAmount: 1,
          schedule: { times, days: EVERY_DAY },
        })
      ).id;
    const twice = await add("Twice", ["morning", "evening"]);
    const once = await add("Once", ["morning"]);
    await add("Late", ["evening"]);
    await gotoHydrated(page, "/");
    const card = todayCard(page);
    await expect(card.getByText("0 of 4 taken")).toBeVisible({ timeout: 15_000 });
    const box = (id: number, time: string) => card.locator(`#dose-${today()}-${id}-${time}`);

    const bodies: unknown[] = [];
    page.on("request", (request) => {
      if (request.method() === "PUT" && new URL(request.url()).pathname === `/api/intakes/${today()}`) {
        bodies.push(request.postDataJSON());
      }
    });
    // The same supplement's evening dose, ticked by itself first, stays through the morning's Take all and Undo.
    await box(twice, "evening").click();
    await expect(card.getByText("1 of 4 taken")).toBeVisible();
    await card.getByRole("button", { name: "Take all: Morning" }).click();
    await expect(card.getByText("3 of 4 taken")).toBeVisible();
    await expect(box(twice, "morning")).toBeChecked();
    await expect(box(once, "morning")).toBeChecked();
    await expect(box(twice, "evening")).toBeChecked();
    await page.waitForLoadState("networkidle");
    expect((bodies[0] as { doses: unknown }).doses).toEqual([
      { supplementId: twice, time: "morning" },
      { supplementId: once, time: "morning" },
    ]);
    await card.getByRole("button", { name: "Undo take all: Morning" }).click();
    await expect(card.getByText("1 of 4 taken")).toBeVisible();
    await expect(box(twice, "evening")).toBeChecked();
    await page.waitForLoadState("networkidle");
    expect((bodies[1] as { status: unknown; doses: unknown }).status).toBeNull();
    expect((bodies[1] as { doses: unknown }).doses).toEqual([
      { supplementId: twice, time: "morning" },
      { supplementId: once, time: "morning" },
    ]);
    const day = await apiCall<{ doses: { supplementId: number; time: string; status: string | null }[] }>(
      page,
      base,
      "GET",
      `/api/today?date=${today()}`,
    );
    expect(day.doses.filter((d) => d.status !== null)).toEqual([
      expect.objectContaining({ supplementId: twice, time: "evening", status: "taken" }),
    ]);
  });
});
