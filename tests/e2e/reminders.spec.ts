/**
 * Reminders in the browser (issue 39): turn push on in Chromium (the permission granted by the
 * test), send a test reminder and see it arrive, decrypted, at the local push service
 * (tests/fakes/push-service.ts, started by start-server.ts), and the device stored and listed;
 * turn e-mail on and unsubscribe through the one-click POST; `Remind me again` (issue 48) saved
 * and kept on reload; the card at 320, 360 and 1280 px
 * with a 50-character username; axe.
 *
 * Chromium here has no push service of its own (no Google keys), so `pushManager.subscribe`
 * is replaced in the page by one that hands out a subscription of the local push service; the
 * service worker, the permission, the page, the API and the delivery are the real ones.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type APIRequestContext, expect, type Page, request, test } from "@playwright/test";
import { parseConfig } from "../../api/lib/config";
import { unsubscribeUrl } from "../../api/reminders/unsubscribe";
import type { ReminderSettingsJson } from "../../src/lib/reminders";
import { expectToast, gotoHydrated } from "../support/e2e-ui";
import { addSupplements, apiCall, signUpWithApi } from "../support/e2e-users";
import { expectNoA11yViolations } from "./support";

const PUSH_PORT = Number(process.env.E2E_PUSH_PORT ?? Number(process.env.E2E_PORT ?? 4329) + 11);
const PUSH_URL = `https://127.0.0.1:${PUSH_PORT}`;
const SCREENSHOTS = process.env.RESPONSIVE_SCREENSHOTS;
// The worker is what these tests are about (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: "allow" });

let pushService: APIRequestContext;
test.beforeAll(async () => {
  pushService = await request.newContext({ ignoreHTTPSErrors: true });
});
test.afterAll(async () => pushService?.dispose());

const received = async () =>
  (
    (await (await pushService.get(`${PUSH_URL}/_fake/received`)).json()) as {
      received: { subscription: string; payload: { title: string } }[];
    }
  ).received;

/** The browser's PushManager hands out a subscription of the local push service. */
async function stubPushManager(page: Page) {
  const subscription = await (await pushService.post(`${PUSH_URL}/_fake/subscription`)).json();
  await page.addInitScript((sub) => {
    let current: unknown = null;
    const make = () => ({ endpoint: sub.endpoint, toJSON: () => sub, unsubscribe: async () => true });
    PushManager.prototype.subscribe = async () => {
      current = make();
      return current as PushSubscription;
    };
    PushManager.prototype.getSubscription = async () => current as PushSubscription | null;
  }, subscription);
  return subscription as { endpoint: string };
}

test.describe("reminders", () => {
  // Notifications allowed for the app, as a user's click on the browser's prompt does.
  test.beforeEach(async ({ context, baseURL }) => {
    await context.grantPermissions(["notifications"], { origin: new URL(baseURL as string).origin });
  });

  test("push on, a test reminder delivered, the device listed; e-mail on, then one-click unsubscribe", async ({
    page,
    baseURL,
  }) => {
    const base = baseURL as string;
    const username = `r${"x".repeat(45)}${Math.floor(Math.random() * 9000 + 1000)}`;
    await signUpWithApi(page.request, base, { username });
    const sub = await stubPushManager(page);
    await gotoHydrated(page, "/settings");
    const card = page.locator("section", { has: page.getByRole("heading", { level: 2, name: "Reminders" }) });
    await expect(card.getByLabel("Morning")).toHaveValue("08:00");
    await expect(card.getByLabel("Remind me again if I haven't ticked them")).toHaveValue("60");
    // Issue 48: how many follow-ups, beside the interval (next by Tab); saved, and kept on reload.
    const again = card.getByLabel("Remind me again", { exact: true });
    await expect(again).toHaveValue("1");
    await expect(again.locator("option")).toHaveText(["Once", "Twice", "3 times", "Off"]);
    await card.getByLabel("Remind me again if I haven't ticked them").focus();
    await page.keyboard.press("Tab");
    await expect(again).toBeFocused();
    await again.selectOption({ label: "3 times" });
    await expectToast(page, "Reminders saved");
    await gotoHydrated(page, "/settings");
    await expect(again).toHaveValue("3");
    expect((await apiCall<ReminderSettingsJson>(page, base, "GET", "/api/reminders")).followUps).toBe(3);

    await card.getByLabel("Push notifications on this device").click();
    await expectToast(page, "Reminders saved"); // one toast for every setting of the card (issue 51)
    await expect(card.getByRole("list", { name: "Devices that receive push" })).toContainText("Chrome on Windows");
    const registered = await page.evaluate(
      async () => (await navigator.serviceWorker.getRegistration())?.active?.scriptURL ?? null,
    );
    expect(registered).toMatch(/\/sw\.js$/);
    const stored = await apiCall<ReminderSettingsJson>(page, base, "GET", "/api/reminders");
    expect(stored.push).toBe(true);
    expect(stored.devices.map((d) => d.label)).toEqual(["Chrome on Windows"]); // the Desktop Chrome profile

    const id = sub.endpoint.split("/").pop();
    const before = (await received()).filter((r) => r.subscription === id).length;
    await card.getByRole("button", { name: "Send a test reminder" }).click();
    await expectToast(page, "Test reminder sent: a push to 1 device");
    const after = (await received()).filter((r) => r.subscription === id);
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)?.payload.title).toBe("Test reminder");

    await card.getByLabel("E-mail").click();
    await expectToast(page, "Reminders saved"); // one toast for every setting of the card (issue 51)
    const on = await apiCall<ReminderSettingsJson>(page, base, "GET", "/api/reminders");
    expect(on).toMatchObject({ email: true, emailConfirmed: false });
    // Issue 45: until the link mailed to the address is opened, the card says where it went.
    const address = (await apiCall<{ email: string }>(page, base, "GET", "/api/account")).email;
    await expect(card.getByRole("status").filter({ hasText: "Confirm your address" })).toContainText(
      `Confirm your address: we sent a link to ${address}`,
    );

    // The e-mail's List-Unsubscribe link (signed for this user): GET shows a button, one POST turns e-mail off.
    const me = await apiCall<{ id: string }>(page, base, "GET", "/api/auth/user");
    const link = unsubscribeUrl(parseConfig({ PUBLIC_ORIGIN: base }), me.id);
    await page.goto(link);
    await expect(page.getByRole("heading", { level: 1, name: "Stop e-mail reminders?" })).toBeVisible();
    expect((await apiCall<ReminderSettingsJson>(page, base, "GET", "/api/reminders")).email).toBe(true);
    const mailer = await request.newContext();
    const oneClick = await mailer.post(link, {
      form: { "List-Unsubscribe": "One-Click" },
      headers: { Origin: "https://mail.example" },
    });
    expect(oneClick.status()).toBe(200);
    await mailer.dispose();
    const now = await apiCall<ReminderSettingsJson>(page, base, "GET", "/api/reminders");
    expect(now).toMatchObject({ email: false, push: true });
    await gotoHydrated(page, "/settings");
    await expect(card.getByLabel("E-mail")).not.toBeChecked();
    await expect(card.getByLabel("Push notifications on this device")).toBeChecked();

    // The card with a device, push on and e-mail off: every width, and axe.
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
    for (const width of [320, 360, 1280]) {
      await page.setViewportSize({ width, height: width === 1280 ? 900 : 740 });
      await card.scrollIntoViewIfNeeded();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `sideways scroll at ${width} px`).toBeLessThanOrEqual(0);
      if (SCREENSHOTS) await card.screenshot({ path: join(SCREENSHOTS, `reminders-card-${width}.png`) });
    }
    await expectNoA11yViolations(page);
  });

  test("the dashboard registers the worker and re-sends the subscription; the landing page has none", async ({
    page,
    baseURL,
  }) => {
    const base = baseURL as string;
    await page.goto("/");
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length)).toBe(0);
    await signUpWithApi(page.request, base);
    await gotoHydrated(page, "/dashboard");
    await expect(page.locator("#today")).toHaveCount(1);
    const link = page.getByRole("link", { name: "Turn on reminders" });
    await expect(link).toHaveAttribute("href", "/settings#reminders");
    await expect
      .poll(() => page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.active?.scriptURL ?? ""))
      .toMatch(/\/sw\.js$/);
    await apiCall(page, base, "PUT", "/api/reminders", { email: true });
    await gotoHydrated(page, "/dashboard");
    await expect(page.getByRole("link", { name: "Turn on reminders" })).toHaveCount(0);
  });

  test("the worker shows a pushed reminder with 'Mark all taken', which ticks the slot with the user's cookie", async ({
    page,
    context,
    baseURL,
  }) => {
    const base = baseURL as string;
    await signUpWithApi(page.request, base);
    const [id] = await addSupplements(page, base, [{ name: "Vitamin D3" }]); // Any time: with Morning
    await gotoHydrated(page, "/dashboard");
    await expect
      .poll(() => page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.active?.state ?? ""))
      .toBe("activated");
    const worker = context.serviceWorkers().find((w) => w.url().endsWith("/sw.js"));
    if (!worker) throw new Error("no service worker");
    const date = new Date().toISOString().slice(0, 10); // the user's today: no zone set, UTC
    const payload = {
      title: "Morning: 1 supplement",
      body: "Vitamin D3",
      url: "/dashboard#today",
      tag: `morning-${date.replaceAll("-", "")}`,
      date,
      doses: [{ supplementId: id, time: "anytime" }],
    };
    // What the worker shows is recorded (headless Chromium closes notifications at once).
    await worker.evaluate(() => {
      const scope = self as unknown as { registration: ServiceWorkerRegistration; shown: unknown[] };
      const show = scope.registration.showNotification.bind(scope.registration);
      scope.shown = [];
      scope.registration.showNotification = (title, options = {}) => {
        const actions = (options as { actions?: { action: string; title: string }[] }).actions ?? [];
        scope.shown.push({
          title,
          body: options.body,
          tag: options.tag,
          actions: actions.map((a) => `${a.action}: ${a.title}`),
        });
        return show(title, options);
      };
    });
    // A real push event, as the browser's push service would deliver it (DevTools protocol).
    const cdp = await context.newCDPSession(page);
    const registrationId = new Promise<string>((resolve) =>
      cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
        const found = registrations.find((r: { scopeURL: string }) => r.scopeURL.startsWith(base));
        if (found) resolve(found.registrationId);
      }),
    );
    await cdp.send("ServiceWorker.enable");
    await cdp.send("ServiceWorker.deliverPushMessage", {
      origin: new URL(base).origin,
      registrationId: await registrationId,
      data: JSON.stringify(payload),
    });
    await expect
      .poll(() => worker.evaluate(() => (self as unknown as { shown: unknown[] }).shown))
      .toEqual([
        { title: "Morning: 1 supplement", body: "Vitamin D3", tag: payload.tag, actions: ["take: Mark all taken"] },
      ]);
    // 'Mark all taken' (the click handler's own function, run in the worker): the dose is ticked.
    await worker.evaluate(
      (data) => (self as unknown as { markAllTaken(d: unknown): Promise<void> }).markAllTaken(data),
      payload,
    );
    const today = await apiCall<{ doses: { supplementId: number; status: string | null }[] }>(
      page,
      base,
      "GET",
      "/api/today",
    );
    expect(today.doses.find((d) => d.supplementId === id)?.status).toBe("taken");
  });
});
