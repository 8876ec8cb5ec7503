/**
 * Issue 38 §3 and §4 in the browser, at 360 and 1280 px: a delete undone from its toast puts
 * the supplement back in its place with its intake history (axe with the toast showing);
 * social links typed the short way are saved as the platform's URL; Edit Profile's one save;
 * /privacy and /terms reached from every kind of footer, with no JavaScript on them.
 */
import { expect, type Page, test } from "@playwright/test";
import type { TodayJson } from "../../src/lib/schedule";
import { expectToast, gotoHydrated } from "../support/e2e-ui";
import { addSupplements, apiCall, signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations } from "./support";

const rowNames = (page: Page) => page.getByTestId("supplement-row").locator("h3");

for (const width of [360, 1280]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: width < 640 ? 740 : 900 } });

    test("Delete, then Undo from the toast: back in its place, its history kept", async ({ page, baseURL }) => {
      const base = baseURL as string;
      await signUpWithApi(page.request, base);
      const [, middle] = await addSupplements(page, base, [{ name: "First" }, { name: "Middle" }, { name: "Last" }]);
      const { date } = await apiCall<TodayJson>(page, base, "GET", "/api/today");
      await apiCall(page, base, "PUT", `/api/intakes/${date}/${middle}/anytime`, { status: "taken" });
      const takenAt = JSON.stringify(await apiCall<TodayJson>(page, base, "GET", "/api/today"));

      await gotoHydrated(page, "/");
      await expect(rowNames(page)).toHaveText(["First", "Middle", "Last"]);
      await page.getByRole("button", { name: "Actions for Middle" }).click();
      await page.getByRole("menu", { name: "Actions for Middle" }).getByRole("menuitem", { name: "Delete" }).click();
      await expect(rowNames(page)).toHaveText(["First", "Last"]);
      await expectToast(page, "Supplement deleted");
      // Gone on the server while the toast shows.
      const during = await apiCall<{ name: string }[]>(page, base, "GET", "/api/supplements");
      expect(during.map((s) => s.name)).toEqual(["First", "Last"]);

      await page.locator("[data-sonner-toast]").getByRole("button", { name: "Undo" }).click();
      await expect(rowNames(page)).toHaveText(["First", "Middle", "Last"]);
      const after = await apiCall<{ id: number; name: string }[]>(page, base, "GET", "/api/supplements");
      expect(after.map((s) => [s.id, s.name])).toEqual([
        [after[0]?.id, "First"],
        [middle, "Middle"],
        [after[2]?.id, "Last"],
      ]);
      // Today's tick is still there, exactly as before the delete.
      expect(JSON.stringify(await apiCall<TodayJson>(page, base, "GET", "/api/today"))).toBe(takenAt);
      await gotoHydrated(page, "/");
      await expect(rowNames(page)).toHaveText(["First", "Middle", "Last"]);
    });

    test("Undo offered for 6 s only: after it the delete stands", async ({ page, baseURL }) => {
      const base = baseURL as string;
      await signUpWithApi(page.request, base);
      await addSupplements(page, base, [{ name: "Only" }]);
      await gotoHydrated(page, "/");
      await page.getByRole("button", { name: "Actions for Only" }).click();
      await page.getByRole("menu", { name: "Actions for Only" }).getByRole("menuitem", { name: "Delete" }).click();
      await expectToast(page, "Supplement deleted");
      // At 360 px the toast can open under the pointer, and a hovered toast waits (sonner pauses
      // its timer): the pointer leaves it, as a person's finger or mouse would.
      await page.mouse.move(0, 0);
      // axe with the toast (and its Undo button) showing.
      await expectNoA11yViolations(page);
      await expect(page.locator("[data-sonner-toast]")).toHaveCount(0, { timeout: 9000 });
      // The empty list says so; Add Item stays at the top of the page (issue 51), the one on it.
      const list = page.getByRole("region", { name: /My Supplements/ });
      await expect(list.getByText("No supplements added yet")).toBeVisible();
      await expect(page.getByRole("button", { name: "Add Item" })).toHaveCount(1);
      await page.getByRole("button", { name: "Add Item" }).click();
      await expect(page.getByRole("dialog")).toBeVisible();
    });

    test("social links typed the short way are saved as full URLs; anything else is refused", async ({
      page,
      baseURL,
    }) => {
      const base = baseURL as string;
      const user = await signUpWithApi(page.request, base);
      await gotoHydrated(page, "/profile/edit");
      await page.getByLabel("Instagram").fill("@maya.runs");
      await page.getByLabel("YouTube").fill("www.youtube.com/@maya");
      await page.getByLabel("X (Twitter)").fill("x.com/maya_runs");
      await page.getByLabel("TikTok").fill("@maya.runs");
      await page.getByLabel("Facebook").fill("@maya");
      await page.getByRole("button", { name: "Update Profile" }).click();
      await expect(page.getByLabel("Facebook")).toHaveAccessibleDescription("Please enter a valid URL");
      await page.getByLabel("Facebook").fill("");
      await page.getByRole("button", { name: "Update Profile" }).click();
      await expectToast(page, "Profile updated successfully!");
      await gotoHydrated(page, "/profile/edit");
      await expect(page.getByLabel("Instagram")).toHaveValue("https://www.instagram.com/maya.runs");
      await expect(page.getByLabel("YouTube")).toHaveValue("https://www.youtube.com/@maya");
      await expect(page.getByLabel("X (Twitter)")).toHaveValue("https://x.com/maya_runs");
      await expect(page.getByLabel("TikTok")).toHaveValue("https://www.tiktok.com/@maya.runs");
      await page.goto(`/${user.username}`);
      await expect(page.locator('a[href="https://www.instagram.com/maya.runs"]')).toHaveCount(1);
    });

    test("Edit Profile saves the schedule switch with Update Profile; a free member's premium switches are off and disabled", async ({
      page,
      baseURL,
    }) => {
      const base = baseURL as string;
      await signUpWithApi(page.request, base);
      await gotoHydrated(page, "/profile/edit");
      const notes = page.getByRole("switch", { name: "Show notes on my public profile" });
      await expect(notes).toBeDisabled();
      await expect(notes).not.toBeChecked();
      await expect(notes).toHaveAccessibleDescription(/Premium only/);
      await expect(page.getByRole("switch", { name: "Show affiliate links on my public profile" })).toBeDisabled();
      const schedule = page.getByRole("switch", { name: "Show when I take them on my public profile" });
      await schedule.check({ force: true });
      // Nothing saved until Update Profile.
      expect((await apiCall<{ showSchedule: boolean }>(page, base, "GET", "/api/auth/user")).showSchedule).toBe(false);
      await page.getByRole("button", { name: "Update Profile" }).click();
      await expectToast(page, "Profile updated successfully!");
      expect((await apiCall<{ showSchedule: boolean }>(page, base, "GET", "/api/auth/user")).showSchedule).toBe(true);
      await expectNoA11yViolations(page);
    });

    test("Privacy and Terms from every footer; plain pages without JavaScript", async ({ page, baseURL }) => {
      const base = baseURL as string;
      const footerLinks = async (path: string) => {
        await page.goto(path);
        const footer = page.getByRole("contentinfo");
        await expect(footer.getByRole("link", { name: "Privacy" })).toHaveAttribute("href", "/privacy");
        await expect(footer.getByRole("link", { name: "Terms" })).toHaveAttribute("href", "/terms");
      };
      await footerLinks("/");
      await footerLinks("/auth/sign-in");
      for (const [name, heading, text] of [
        ["Privacy", "Privacy", "One cookie"],
        ["Terms", "Terms", "Premium costs"],
      ] as const) {
        await page.goto("/");
        await page.getByRole("contentinfo").getByRole("link", { name }).click();
        await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
        await expect(page.getByText(text)).toBeVisible();
        await expect(page.locator("script")).toHaveCount(0);
        await expectNoA11yViolations(page);
      }
      const user = await signUpWithApi(page.request, base);
      await footerLinks("/");
      await footerLinks("/settings");
      await footerLinks(`/${user.username}`);
      await footerLinks("/no/such/page");
    });
  });
}

test("sign-up's 'already exists' error links to sign-in", async ({ page, baseURL }) => {
  const base = baseURL as string;
  const taken = await signUpWithApi(page.request, base);
  await page.context().clearCookies();
  await gotoHydrated(page, "/auth/sign-up");
  await page.getByLabel("Name").fill("Someone");
  await page.getByLabel("Email").fill(taken.email);
  await page.getByLabel("Password").fill("a-long-password-1");
  await page.getByRole("button", { name: "Create Account" }).click();
  const alert = page.getByRole("alert");
  await expect(alert).toContainText("An account with this e-mail already exists.");
  await alert.getByRole("link", { name: "Log in instead" }).click();
  await expect(page).toHaveURL(/\/auth\/sign-in/);
});
