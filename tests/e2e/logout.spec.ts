/**
 * Ending a session (issue 12): an `<img src="/api/logout">` on a page of this site must not
 * sign the viewer out (a same-site image carries the SameSite=Lax cookie; the server ends a
 * session on GET only for a top-level navigation), and Logout in the avatar menu, a form
 * POST, works with JavaScript (keyboard too) and without it.
 */
import { expect, type Page, test } from "@playwright/test";
import { gotoHydrated } from "../support/e2e-ui";
import { signUpWithApi } from "../support/e2e-users";

const signedIn = async (page: Page) => (await page.request.get("/api/auth/user")).status() === 200;

test.describe("logout", () => {
  test("a page of this site with <img>, <script>, <iframe> and fetch() pointing at /api/logout leaves the viewer signed in", async ({
    page,
    baseURL,
  }) => {
    await signUpWithApi(page.request, baseURL as string);
    expect(await signedIn(page)).toBe(true);
    // A page served on the app's own origin (as a stored profile field might try to make one).
    const hostile = `${baseURL}/hostile-page-for-the-test`;
    await page.route(hostile, (route) =>
      route.fulfill({
        status: 200,
        contentType: "text/html",
        body: `<!doctype html><title>t</title>
          <img id="a" src="/api/logout" alt="">
          <img id="b" src="${baseURL}/api/logout?x=1" alt="">
          <iframe src="/api/logout"></iframe>
          <script src="/api/logout"></script>
          <link rel="stylesheet" href="/api/logout">`,
      }),
    );
    const logoutRequests: string[] = [];
    const answered: Promise<unknown>[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === "/api/logout") {
        logoutRequests.push(request.resourceType());
        answered.push(request.response());
      }
    });
    await page.goto(hostile);
    await page.evaluate(() => fetch("/api/logout", { credentials: "include" }).then((r) => r.status));
    // Every one of them reached the server and was answered.
    await expect.poll(() => logoutRequests.length).toBeGreaterThanOrEqual(5);
    await Promise.all(answered);
    expect(await signedIn(page)).toBe(true);
    // And the session is still good for the dashboard.
    await gotoHydrated(page, "/");
    await expect(page.getByRole("button", { name: "Account menu" })).toBeVisible();
  });

  test("Logout from the avatar menu with JavaScript, by keyboard: landing page, session gone", async ({
    page,
    baseURL,
  }) => {
    await signUpWithApi(page.request, baseURL as string);
    await gotoHydrated(page, "/");
    const trigger = page.getByRole("button", { name: "Account menu" });
    await trigger.focus();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("menu", { name: "Account menu" });
    await page.keyboard.press("End");
    await expect(menu.getByRole("menuitem", { name: "Logout" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { level: 1, name: "Track Your Health Journey" })).toBeVisible();
    await expect(page).toHaveURL(/\/$/);
    expect(await signedIn(page)).toBe(false);
  });

  test("Logout from the avatar menu without JavaScript", async ({ browser, baseURL }) => {
    const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await signUpWithApi(page.request, baseURL as string);
      await page.goto("/");
      // The menu is a native disclosure until (unless) the island runs.
      await page.getByLabel("Account menu").click();
      const logout = page.getByRole("button", { name: "Logout" });
      await expect(logout).toBeVisible();
      await logout.click();
      await expect(page.getByRole("heading", { level: 1, name: "Track Your Health Journey" })).toBeVisible();
      await expect(page).toHaveURL(/\/$/);
      expect(await signedIn(page)).toBe(false);
    } finally {
      await context.close();
    }
  });
});
