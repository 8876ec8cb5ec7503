/**
 * Issue 3 in the browser: signing up through the real form, the profile setup screen with
 * its live username check, the dashboard greeting, the avatar menu, logout, signing in
 * again (and a wrong password), gating by the server, and the accessibility of the screens.
 */
import { expect, type Page, test } from "@playwright/test";
import { PRODUCT_NAME } from "../../src/lib/constants";
import { expectToast, gotoHydrated, waitForHydration } from "../support/e2e-ui";
import { newCredentials, signUpWithApi, uniqueUsername } from "../support/e2e-users";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

const TAKEN = "Username is already taken";

async function fillSignUp(page: Page, credentials: { name: string; email: string; password: string }) {
  await page.getByLabel("Name", { exact: true }).fill(credentials.name);
  await page.getByLabel("Email", { exact: true }).fill(credentials.email);
  await page.getByLabel("Password", { exact: true }).fill(credentials.password);
  await page.getByRole("button", { name: "Create Account" }).click();
}

async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Log In", exact: true }).click();
}

const usernameField = (page: Page) => page.getByRole("textbox", { name: "Username" });

test.describe("accounts", () => {
  test("sign up with the form → setup (live check) → dashboard → Logout → landing → sign in again", async ({
    page,
    request,
    baseURL,
  }) => {
    test.slow();
    // Someone else already holds a name.
    const holderName = uniqueUsername("Holder");
    await signUpWithApi(request, baseURL as string, { username: holderName });

    // Landing → Log In → sign-in page → 'Create an account' → sign-up form.
    await page.goto("/");
    await page.getByRole("link", { name: "Get Started Free" }).first().click();
    await expect(page).toHaveURL(/\/auth\/sign-in$/);
    await page.getByRole("link", { name: "Create an account" }).click();
    await expect(page).toHaveURL(/\/auth\/sign-up$/);
    await waitForHydration(page);
    const me = newCredentials("Journey Person");
    await fillSignUp(page, me);

    // Signed in without a username: the setup screen.
    await expect(page.getByRole("heading", { name: `Welcome to ${PRODUCT_NAME}` })).toBeVisible();
    await waitForHydration(page);
    await expect(page.getByText(me.email)).toBeVisible();
    const field = usernameField(page);
    await expect(field).toHaveAttribute("placeholder", "Choose a unique username");
    const submit = page.getByRole("button", { name: "Complete Setup" });

    // The live check: the other user's name, as held and in another case.
    for (const attempt of [holderName, holderName.toLowerCase(), holderName.toUpperCase()]) {
      await field.fill(attempt);
      await expect(page.getByText(`This will be your public profile URL: /${attempt}`)).toBeVisible();
      await expect(page.getByRole("alert").filter({ hasText: TAKEN })).toBeVisible();
      await expect(submit).toBeDisabled();
    }

    // A free name: the error clears and setup completes.
    const mine = uniqueUsername("Mine");
    await field.fill(mine);
    await expect(page.getByText(`This will be your public profile URL: /${mine}`)).toBeVisible();
    await expect(page.getByText("Username is available")).toBeVisible();
    await expect(page.getByText(TAKEN)).toHaveCount(0);
    await expect(submit).toBeEnabled();
    await page.getByLabel("Bio").fill("Runner. Coffee first.");
    await submit.click();
    await expectToast(
      page,
      "Profile Setup Complete!",
      `Welcome to ${PRODUCT_NAME}! You can now start tracking your supplements and equipment.`,
    );
    await expect(page.getByRole("heading", { name: `Welcome back, @${mine}` })).toBeVisible();
    await expect(page).toHaveURL(/\/$/);
    await waitForHydration(page);

    // The avatar menu of a free user: exactly Edit Profile, Settings, Upgrade to Premium, Logout
    // ('My Profile' is the top bar's link to the public page: one name, one target).
    const trigger = page.getByRole("button", { name: "Account menu" });
    await expect(trigger).toHaveText(mine[0]?.toUpperCase() as string);
    await trigger.click();
    const menu = page.getByRole("menu");
    await expect(menu.getByRole("menuitem")).toHaveText(["Edit Profile", "Settings", "Upgrade to Premium", "Logout"]);
    await expect(menu.getByRole("menuitem", { name: "Edit Profile" })).toHaveAttribute("href", "/profile/edit");
    await expect(menu.getByRole("menuitem", { name: "Settings" })).toHaveAttribute("href", "/settings");
    await expect(menu.getByRole("menuitem", { name: "Upgrade to Premium" })).toHaveAttribute("href", "/subscribe");
    // Logout is a form POST (an <img> or link pointing at /api/logout cannot sign anyone out).
    await expect(menu.getByRole("menuitem", { name: "Logout" })).toHaveAttribute("type", "submit");
    await expect(menu.locator("form:has([role=menuitem])")).toHaveAttribute("action", "/api/logout");
    await expect(menu.locator("form:has([role=menuitem])")).toHaveAttribute("method", "post");
    await menu.getByRole("menuitem", { name: "Logout" }).click();

    // Logged out: the landing page, and the session is gone.
    await expect(page.getByRole("heading", { level: 1, name: "Track Your Health Journey" })).toBeVisible();
    await expect(page).toHaveURL(/\/$/);
    expect((await page.request.get("/api/auth/user")).status()).toBe(401);

    // Sign in again: first with a wrong password, then the right one.
    await page.getByRole("banner").getByRole("link", { name: "Log In", exact: true }).click();
    await expect(page).toHaveURL(/\/auth\/sign-in$/);
    await waitForHydration(page);
    await signIn(page, me.email, "not my password");
    await expect(page.getByRole("alert")).toHaveText("Invalid email or password");
    await expect(page).toHaveURL(/\/auth\/sign-in$/);
    await page.getByLabel("Password", { exact: true }).fill(me.password);
    await page.getByRole("button", { name: "Log In", exact: true }).click();
    await expect(page.getByRole("heading", { name: `Welcome back, @${mine}` })).toBeVisible();
  });

  test("setup screen: the spec's username messages, reserved names, and a name taken while typing", async ({
    page,
    request,
    baseURL,
  }) => {
    await signUpWithApi(page.request, baseURL as string, { username: null });
    await gotoHydrated(page, "/");
    const field = usernameField(page);
    const submit = page.getByRole("button", { name: "Complete Setup" });

    await field.fill("ab");
    await submit.click();
    await expect(page.getByText("Username must be at least 3 characters")).toBeVisible();
    await field.fill("a".repeat(51));
    await expect(page.getByText("Username must be less than 50 characters")).toBeVisible();
    await field.fill("bad name!");
    await expect(page.getByText("Username can only contain letters, numbers, and underscores")).toBeVisible();
    await expect(page.getByRole("heading", { name: `Welcome to ${PRODUCT_NAME}` })).toBeVisible();

    // Reserved names count as taken.
    for (const reserved of ["admin", "Dashboard", "api"]) {
      await field.fill(reserved);
      await expect(page.getByRole("alert").filter({ hasText: TAKEN })).toBeVisible();
      await expect(submit).toBeDisabled();
    }

    // A name another user claims after the live check said it was free: the server's 409
    // shows on the field, not as a 'Setup Failed' toast.
    const contested = uniqueUsername("Race");
    await field.fill(contested);
    await expect(page.getByText("Username is available")).toBeVisible();
    await signUpWithApi(request, baseURL as string, { username: contested.toLowerCase() });
    await submit.click();
    await expect(page.getByRole("alert").filter({ hasText: TAKEN })).toBeVisible();
    await expect(page.getByText("Setup Failed")).toHaveCount(0);
    await expect(page.getByRole("heading", { name: `Welcome to ${PRODUCT_NAME}` })).toBeVisible();
  });

  test("a failure other than a taken name toasts 'Setup Failed'", async ({ page, baseURL }) => {
    await signUpWithApi(page.request, baseURL as string, { username: null });
    await gotoHydrated(page, "/");
    await page.route("**/api/profile", (route) =>
      route.request().method() === "PUT"
        ? route.fulfill({ status: 500, contentType: "application/json", body: '{"message":"boom"}' })
        : route.fallback(),
    );
    await usernameField(page).fill(uniqueUsername("Fail"));
    await expect(page.getByText("Username is available")).toBeVisible();
    await page.getByRole("button", { name: "Complete Setup" }).click();
    await expectToast(page, "Setup Failed", "Failed to set up profile. Please try again.");
    await expect(page.getByRole("heading", { name: `Welcome to ${PRODUCT_NAME}` })).toBeVisible();
  });

  test("gating: without a username every signed-in page is the setup screen; /{username} stays public", async ({
    page,
    request,
    baseURL,
  }) => {
    const other = await signUpWithApi(request, baseURL as string);
    await signUpWithApi(page.request, baseURL as string, { username: null });
    for (const path of ["/", "/profile/edit", "/subscribe", "/billing"]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { name: `Welcome to ${PRODUCT_NAME}` }), path).toBeVisible();
    }
    // The top bar has no 'My Profile' link without a username.
    await expect(page.getByRole("link", { name: "Dashboard" })).toBeVisible();
    await expect(page.getByRole("link", { name: "My Profile" })).toHaveCount(0);
    // Another user's public page is not hidden behind setup.
    await page.goto(`/${other.username}`);
    await expect(page.getByRole("heading", { name: `@${other.username}` })).toBeVisible();
  });

  test("a signed-out visitor to a signed-in page is sent to sign in and brought back after", async ({
    page,
    request,
    baseURL,
  }) => {
    const user = await signUpWithApi(request, baseURL as string);
    const response = await page.goto("/profile/edit");
    expect(response?.status()).toBe(200);
    await expect(page).toHaveURL(/\/auth\/sign-in\?redirectTo=%2Fprofile%2Fedit$/);
    await waitForHydration(page);
    await signIn(page, user.email, user.password);
    await expect(page).toHaveURL(/\/profile\/edit$/);
    await expect(page.getByRole("heading", { name: "Edit Profile" })).toBeVisible();
  });

  test("an off-site redirectTo is ignored after sign-in", async ({ page, request, baseURL }) => {
    const user = await signUpWithApi(request, baseURL as string);
    await gotoHydrated(page, "/auth/sign-in?redirectTo=//evil.example/steal");
    await signIn(page, user.email, user.password);
    await expect(page.getByRole("heading", { name: `Welcome back, @${user.username}` })).toBeVisible();
    expect(new URL(page.url()).host).toBe(new URL(baseURL as string).host);
  });

  test("top bar with a username: Dashboard, My Profile, no Premium badge; menu works from the keyboard", async ({
    page,
    baseURL,
  }) => {
    const user = await signUpWithApi(page.request, baseURL as string);
    await gotoHydrated(page, "/");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/");
    await expect(nav.getByRole("link", { name: "My Profile" })).toHaveAttribute("href", `/${user.username}`);
    await expect(nav.getByText("Premium", { exact: true })).toHaveCount(0);

    const trigger = page.getByRole("button", { name: "Account menu" });
    await trigger.focus();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("menu", { name: "Account menu" });
    await expect(menu).toBeVisible();
    await expect(trigger).toHaveAttribute("aria-expanded", "true");
    await expect(menu.getByRole("menuitem", { name: "Edit Profile" })).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(menu.getByRole("menuitem", { name: "Settings" })).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(menu.getByRole("menuitem", { name: "Upgrade to Premium" })).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(menu.getByRole("menuitem", { name: "Logout" })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(menu).toHaveCount(0);
    await expect(trigger).toBeFocused();
  });

  test("sign-in, sign-up and setup screens have no accessibility violations, and fit a phone", async ({
    page,
    baseURL,
  }) => {
    for (const path of ["/auth/sign-in", "/auth/sign-up"]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await expectNoA11yViolations(page);
    }
    // Inline errors are announced and labelled too.
    await gotoHydrated(page, "/auth/sign-in");
    await page.getByRole("button", { name: "Log In", exact: true }).click();
    await expect(page.getByText("Please enter a valid e-mail address")).toBeVisible();
    await expectNoA11yViolations(page);

    await signUpWithApi(page.request, baseURL as string, { username: null });
    await gotoHydrated(page, "/");
    await expect(page.getByRole("heading", { name: `Welcome to ${PRODUCT_NAME}` })).toBeVisible();
    await expectNoA11yViolations(page);
    await usernameField(page).fill("admin");
    await expect(page.getByRole("alert").filter({ hasText: TAKEN })).toBeVisible();
    await expectNoA11yViolations(page);

    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ["/", "/auth/sign-in"]) {
      if (path === "/auth/sign-in") await page.context().clearCookies();
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      const { scrolls, offenders } = await horizontalOverflow(page);
      expect(offenders, `elements wider than the screen on ${path}`).toEqual([]);
      expect(scrolls, `${path} scrolls sideways`).toBe(false);
    }
  });
});
