/**
 * Issue 6 in the browser: upgrading to Premium, the billing page and portal, cancelling
 * and subscribing again, a declined card, the Subscription Error card, and a server
 * without Stripe keys.
 *
 * No network reaches Stripe: js.stripe.com is routed to tests/fakes/stripe-js-stub.js, and
 * the stub's calls to api.stripe.com are routed to the fake Stripe server that
 * tests/e2e/start-server.ts runs next to the app (the app's own SDK talks to it too).
 */

import { expect, type Page, test } from "@playwright/test";
import { PRODUCT_NAME } from "../../src/lib/constants";
import { formatLong } from "../../src/lib/date-format";
import { expectErrorToast, expectToast, gotoHydrated, waitForHydration } from "../support/e2e-ui";
import { addSupplements, apiCall, signUpWithApi } from "../support/e2e-users";
import { becomePremium, routeStripe, STRIPE_URL, type StripeTraffic, startServerWithoutStripe } from "./stripe-double";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

const DECLINED = "4000 0000 0000 0002";
/**
 * At phone width the top bar's logo link (TopBar.tsx, not a billing file) loses its only
 * text (the product name is `hidden sm:inline`) and axe reports link-name there. The pages are
 * scanned whole at desktop width; at phone width this one known top-bar issue is left out.
 */
const PHONE_A11Y = { exclude: ['header nav > div > a[href="/"]'] };
const CONFIRMATION =
  "Are you sure you want to cancel your premium subscription? You'll lose access to premium features.";

/** A stat card at the top of the dashboard. */
const statCard = (page: Page, label: string) => page.getByText(label, { exact: true }).first().locator("xpath=..");
const row = (page: Page, name: string) =>
  page.getByTestId("supplement-row").filter({ has: page.locator("h3", { hasText: name }) });
const topBarBadge = (page: Page) =>
  page.getByRole("navigation", { name: "Main" }).getByText("Premium", { exact: true });

async function expectSubscribeForm(page: Page) {
  await expect(page.getByRole("heading", { level: 1, name: "Upgrade to Premium" })).toBeVisible();
  await expect(page.getByText("$4.99", { exact: true })).toBeVisible();
  await expect(page.getByText("per month", { exact: true })).toBeVisible();
  for (const feature of ["Affiliate links", "Detailed notes", "Unlimited affiliate links", "Priority support"]) {
    await expect(page.getByText(feature, { exact: true })).toBeVisible();
  }
  // The e2e server has CONTACT_EMAIL: the promise names it (without one there is none).
  await expect(page.getByText("Write to help@stacktrack.example", { exact: false })).toBeVisible();
  await expect(page.getByTestId("stub-payment-element")).toBeVisible();
  await expect(page.getByRole("button", { name: "Subscribe to Premium" })).toBeEnabled();
}

/** On /subscribe: pays with the stub and lands on the dashboard with the welcome toast. */
async function payOnSubscribePage(page: Page, baseURL: string, traffic: StripeTraffic) {
  await expectSubscribeForm(page);
  await page.getByRole("button", { name: "Subscribe to Premium" }).click();
  await expect(page.getByRole("button", { name: "Processing..." })).toBeDisabled();
  await expect(page).toHaveURL(`${baseURL}/`);
  await expectToast(page, "Welcome to Premium!", "Your subscription has been activated successfully.");
  expect(traffic.confirmations.at(-1)?.return_url).toBe(new URL(baseURL).origin);
}

test.describe("premium billing", () => {
  test("free → Upgrade → pay → premium fields → billing → portal → cancel → free (kept) → subscribe again", async ({
    page,
    baseURL,
  }) => {
    test.slow();
    const base = baseURL as string;
    const traffic = await routeStripe(page, { confirmDelayMs: 300 });
    await signUpWithApi(page.request, base);
    await addSupplements(page, base, [{ name: "Omega-3", frequency: "1 daily" }]);

    // A free user on the dashboard: Stripe.js is not loaded there.
    await gotoHydrated(page, "/");
    await expect(statCard(page, "Status")).toContainText("Free");
    expect(traffic.scripts).toEqual([]);

    await page.getByRole("link", { name: "Upgrade", exact: true }).click();
    await expect(page).toHaveURL(`${base}/subscribe`);
    await payOnSubscribePage(page, base, traffic);
    expect(traffic.scripts.length).toBe(1);

    // Premium everywhere at once: the stat, the top bar badge, the premium fields.
    await waitForHydration(page);
    await expect(statCard(page, "Status")).toContainText("Premium");
    await expect(topBarBadge(page)).toBeVisible();
    await expect(page.getByText("Unlock Premium Features")).toHaveCount(0);
    await page.getByRole("button", { name: "Add Item" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill("Creatine");
    await dialog.getByLabel("Frequency").fill("5 g daily");
    await dialog.getByLabel("Affiliate Link").fill("https://shop.example.com/creatine");
    await dialog.getByLabel("Notes").fill("With breakfast");
    await dialog.getByRole("button", { name: "Add Supplement" }).click();
    await expectToast(page, "Supplement added successfully!");
    await expect(row(page, "Creatine").getByText("With breakfast")).toBeVisible();
    await expect(row(page, "Creatine").getByText("Affiliate", { exact: true })).toBeVisible();

    // The billing page: Premium Active, $4.99 a month, the next billing date from Stripe.
    await gotoHydrated(page, "/billing");
    const main = page.getByRole("main");
    await expect(main.getByRole("heading", { name: "Premium Active" })).toBeVisible();
    await expect(main.getByText("You're billed monthly at $4.99.")).toBeVisible();
    const summary = await apiCall<{ nextBillingDate: string }>(page, base, "GET", "/api/billing");
    // Issue 38's long date style, in the browser's zone.
    const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    const nextDate = formatLong(summary.nextBillingDate, zone);
    const inAMonth = Date.now() + 30 * 24 * 3600 * 1000;
    expect(Math.abs(new Date(summary.nextBillingDate).getTime() - inAMonth)).toBeLessThan(24 * 3600 * 1000);
    await expect(main.getByText("Next billing date")).toBeVisible();
    await expect(main.getByText(nextDate, { exact: true })).toBeVisible();
    await expectNoA11yViolations(page);
    expect(traffic.scripts.length).toBe(1);

    // Both buttons open Stripe's portal, which returns to /billing.
    await main.getByRole("button", { name: "Manage Payment Methods" }).click();
    await expect(page).toHaveURL(new RegExp(`^${STRIPE_URL}/portal/bps_`));
    await expect(page.getByRole("heading", { name: "Billing portal" })).toBeVisible();
    await page.getByRole("link", { name: `Return to ${PRODUCT_NAME}` }).click();
    await expect(page).toHaveURL(`${base}/billing`);
    await waitForHydration(page);
    await page.getByRole("button", { name: "View Billing History" }).click();
    await expect(page).toHaveURL(new RegExp(`^${STRIPE_URL}/portal/bps_`));

    // Cancel where billing's directions point (issue 51), after the confirmation.
    await gotoHydrated(page, "/billing");
    await page.getByRole("link", { name: "Edit Profile → Premium Subscription" }).click();
    await expect(page).toHaveURL(`${base}/profile/edit#premium`);
    await waitForHydration(page);
    const card = page.getByRole("region", { name: "Premium Subscription" });
    await expect(card.getByRole("button", { name: "Cancel Subscription" })).toBeInViewport();
    await card.getByRole("button", { name: "Cancel Subscription" }).click();
    const confirm = page.getByRole("dialog", { name: "Cancel Premium?" });
    await expect(confirm).toBeVisible();
    await expect(confirm).toContainText(CONFIRMATION);
    // Keeping it changes nothing.
    await confirm.getByRole("button", { name: "Keep Premium" }).click();
    await expect(confirm).toBeHidden();
    await card.getByRole("button", { name: "Cancel Subscription" }).click();
    await confirm.getByRole("button", { name: "Yes, Cancel Subscription" }).click();
    await expectToast(page, "Subscription Cancelled", "Your premium subscription has been cancelled successfully.");
    await expect(page.getByRole("link", { name: "Upgrade for $4.99/month" })).toHaveAttribute("href", "/subscribe");
    await expect(topBarBadge(page)).toHaveCount(0);

    // Free again: notes and the Affiliate badge are hidden…
    await gotoHydrated(page, "/");
    await expect(statCard(page, "Status")).toContainText("Free");
    await expect(row(page, "Creatine")).toBeVisible();
    await expect(row(page, "Creatine").getByText("With breakfast")).toHaveCount(0);
    await expect(row(page, "Creatine").getByText("Affiliate", { exact: true })).toHaveCount(0);
    await gotoHydrated(page, "/billing");
    await expect(page.getByRole("main").getByRole("heading", { name: "No Active Subscription" })).toBeVisible();

    // …and come back with a new subscription: they were kept.
    await page.getByRole("main").getByRole("link", { name: "Upgrade to Premium" }).click();
    await expect(page).toHaveURL(`${base}/subscribe`);
    await payOnSubscribePage(page, base, traffic);
    await expect(statCard(page, "Status")).toContainText("Premium");
    await expect(row(page, "Creatine").getByText("With breakfast")).toBeVisible();
    await expect(row(page, "Creatine").getByText("Affiliate", { exact: true })).toBeVisible();
  });

  test("a declined card: 'Payment Failed' with Stripe's message, and the user can try again", async ({
    page,
    baseURL,
  }) => {
    const base = baseURL as string;
    const traffic = await routeStripe(page);
    await signUpWithApi(page.request, base);
    await gotoHydrated(page, "/subscribe");
    await expectSubscribeForm(page);
    await page.getByLabel("Card number").fill(DECLINED);
    await page.getByRole("button", { name: "Subscribe to Premium" }).click();
    await expectToast(page, "Payment Failed", "Your card was declined.");
    await expect(page).toHaveURL(`${base}/subscribe`);
    await expect(page.getByRole("button", { name: "Subscribe to Premium" })).toBeEnabled();
    expect((await apiCall<{ isPremium: boolean }>(page, base, "GET", "/api/auth/user")).isPremium).toBe(false);

    await page.getByLabel("Card number").fill("4242 4242 4242 4242");
    await page.getByRole("button", { name: "Subscribe to Premium" }).click();
    await expect(page).toHaveURL(`${base}/`);
    await expectToast(page, "Welcome to Premium!", "Your subscription has been activated successfully.");
    // One subscription was paid: the same client secret both times.
    expect(traffic.confirmations.length).toBe(2);
    expect(traffic.confirmations[0]?.client_secret).toBe(traffic.confirmations[1]?.client_secret as string);
  });

  test("an already premium user is sent to the dashboard with 'Already Premium'", async ({ page, baseURL }) => {
    const base = baseURL as string;
    const traffic = await routeStripe(page);
    await signUpWithApi(page.request, base);
    await becomePremium(page, base);
    await page.goto("/subscribe");
    await expect(page).toHaveURL(`${base}/`);
    await expectToast(page, "Already Premium");
    expect(traffic.scripts).toEqual([]);
  });

  test("signed out, /subscribe and /billing go to sign-in and back", async ({ page, baseURL }) => {
    await page.goto("/subscribe");
    await expect(page).toHaveURL(`${baseURL}/auth/sign-in?redirectTo=%2Fsubscribe`);
    await page.goto("/billing");
    await expect(page).toHaveURL(`${baseURL}/auth/sign-in?redirectTo=%2Fbilling`);
  });

  test("Subscription Error card: request error, then Try Again reloads into the form", async ({ page, baseURL }) => {
    const base = baseURL as string;
    await routeStripe(page);
    await signUpWithApi(page.request, base);
    await page.route("**/api/get-or-create-subscription", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: '{"message":"boom"}' }),
    );
    await gotoHydrated(page, "/subscribe");
    const alert = page.getByRole("alert").filter({ hasText: "Subscription Error" });
    await expect(alert.getByRole("heading", { name: "Subscription Error" })).toBeVisible();
    await expect(alert).toContainText("Failed to create subscription. Please try again.");
    await expect(alert.getByRole("link", { name: "Back to Dashboard" })).toHaveAttribute("href", "/");
    await expectNoA11yViolations(page);

    await page.unroute("**/api/get-or-create-subscription");
    await alert.getByRole("button", { name: "Try Again" }).click();
    await waitForHydration(page);
    await expectSubscribeForm(page);
  });

  test("Subscription Error card: no client secret", async ({ page, baseURL }) => {
    await routeStripe(page);
    await signUpWithApi(page.request, baseURL as string);
    await page.route("**/api/get-or-create-subscription", (route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: '{"clientSecret":null}' }),
    );
    await gotoHydrated(page, "/subscribe");
    await expect(page.getByRole("heading", { name: "Subscription Error" })).toBeVisible();
    await expect(page.getByText("Failed to initialize payment. Please try again.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Try Again" })).toBeVisible();
  });

  test("the portal failing: 'Failed to open billing portal. Please try again.'", async ({ page, baseURL }) => {
    const base = baseURL as string;
    await routeStripe(page);
    await signUpWithApi(page.request, base);
    await becomePremium(page, base);
    await page.route("**/api/create-portal-session", (route) =>
      route.fulfill({ status: 502, contentType: "application/json", body: '{"message":"upstream"}' }),
    );
    await gotoHydrated(page, "/billing");
    await page.getByRole("button", { name: "Manage Payment Methods" }).click();
    await expectErrorToast(page, "Failed to open billing portal. Please try again.");
    await expect(page).toHaveURL(`${base}/billing`);
  });

  test("a free user's billing page: No Active Subscription, Upgrade to Premium; accessible; fits a phone", async ({
    page,
    baseURL,
  }) => {
    const traffic = await routeStripe(page);
    await signUpWithApi(page.request, baseURL as string);
    await gotoHydrated(page, "/billing");
    const main = page.getByRole("main");
    await expect(main.getByRole("heading", { name: "No Active Subscription" })).toBeVisible();
    await expect(main.getByRole("link", { name: "Upgrade to Premium" })).toHaveAttribute("href", "/subscribe");
    await expectNoA11yViolations(page);
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoA11yViolations(page, PHONE_A11Y);
    const { scrolls, offenders } = await horizontalOverflow(page);
    expect(offenders).toEqual([]);
    expect(scrolls).toBe(false);
    expect(traffic.scripts).toEqual([]);
  });

  test("the subscribe and premium billing pages are accessible and fit a phone (390×844)", async ({
    page,
    baseURL,
  }) => {
    const base = baseURL as string;
    await routeStripe(page);
    await signUpWithApi(page.request, base);
    await gotoHydrated(page, "/subscribe");
    await expectSubscribeForm(page);
    await expectNoA11yViolations(page);
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoA11yViolations(page, PHONE_A11Y);
    let overflow = await horizontalOverflow(page);
    expect(overflow.offenders).toEqual([]);
    expect(overflow.scrolls).toBe(false);

    await becomePremium(page, base);
    await gotoHydrated(page, "/billing");
    await expect(page.getByRole("main").getByRole("heading", { name: "Premium Active" })).toBeVisible();
    await expect(page.getByRole("main").getByText("Next billing date")).toBeVisible();
    await expectNoA11yViolations(page, PHONE_A11Y);
    overflow = await horizontalOverflow(page);
    expect(overflow.offenders).toEqual([]);
    expect(overflow.scrolls).toBe(false);
  });
});

test.describe("a server without Stripe keys", () => {
  let server: { url: string; stop(): Promise<void> };
  test.beforeAll(async () => {
    server = await startServerWithoutStripe();
  });
  test.afterAll(async () => {
    await server?.stop();
  });

  test("/subscribe shows the Subscription Error card: 'Payments are not configured on this server.'", async ({
    page,
  }) => {
    const traffic = await routeStripe(page);
    await signUpWithApi(page.request, server.url);
    await gotoHydrated(page, `${server.url}/subscribe`);
    await expect(page.getByRole("heading", { name: "Subscription Error" })).toBeVisible();
    await expect(page.getByText("Payments are not configured on this server.")).toBeVisible();
    await expect(page.getByRole("link", { name: "Back to Dashboard" })).toBeVisible();
    // Issue 38: trying again cannot help on a server without payments; the upgrade links stay.
    await expect(page.getByRole("button", { name: "Try Again" })).toHaveCount(0);
    await page.getByRole("button", { name: "Account menu" }).click();
    await expect(page.getByRole("menuitem", { name: "Upgrade to Premium" })).toHaveAttribute("href", "/subscribe");
    expect(traffic.scripts).toEqual([]);
  });
});
