/**
 * The Stripe double in the browser: Stripe.js from js.stripe.com is routed to
 * tests/fakes/stripe-js-stub.js, and the stub's calls to api.stripe.com to the fake Stripe
 * server that tests/e2e/start-server.ts runs next to the app on E2E_STRIPE_PORT
 * (E2E_PORT + 10). No network reaches Stripe.
 */
import { fileURLToPath } from "node:url";
import { expect, type Page } from "@playwright/test";
import { createTestDatabase } from "../support/db";
import { apiCall } from "../support/e2e-users";
import { startServer } from "../support/process";

const E2E_PORT = Number(process.env.E2E_PORT ?? 4329);
/** The fake Stripe server of the Playwright webServer. */
export const STRIPE_URL = `http://127.0.0.1:${Number(process.env.E2E_STRIPE_PORT ?? E2E_PORT + 10)}`;
const STUB = fileURLToPath(new URL("../fakes/stripe-js-stub.js", import.meta.url));

export interface StripeTraffic {
  /** Every Stripe.js load the page made. */
  scripts: string[];
  /** The stub's payment confirmations (form fields). */
  confirmations: Record<string, string>[];
}

/** Routes Stripe.js to the stub and api.stripe.com to the fake; records what went there. */
export async function routeStripe(page: Page, options: { confirmDelayMs?: number } = {}): Promise<StripeTraffic> {
  const traffic: StripeTraffic = { scripts: [], confirmations: [] };
  await page.route("https://js.stripe.com/**", (route) => {
    traffic.scripts.push(route.request().url());
    return route.fulfill({ path: STUB, contentType: "text/javascript; charset=utf-8" });
  });
  await page.route("https://api.stripe.com/**", async (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === "/_fake/confirm_payment") {
      traffic.confirmations.push(Object.fromEntries(new URLSearchParams(route.request().postData() ?? "")));
      if (options.confirmDelayMs) await new Promise((r) => setTimeout(r, options.confirmDelayMs));
    }
    const response = await route.fetch({ url: `${STRIPE_URL}${url.pathname}${url.search}` });
    await route.fulfill({ response });
  });
  return traffic;
}

/** Makes the signed-in user premium without the UI: subscribe through the API, pay at the fake. */
export async function becomePremium(page: Page, baseURL: string): Promise<void> {
  const { clientSecret } = await apiCall<{ clientSecret: string }>(
    page,
    baseURL,
    "POST",
    "/api/get-or-create-subscription",
  );
  const paid = await fetch(`${STRIPE_URL}/_fake/confirm_payment`, {
    method: "POST",
    body: new URLSearchParams({ client_secret: clientSecret }),
  });
  expect(paid.status).toBe(200);
  const me = await apiCall<{ isPremium: boolean }>(page, baseURL, "GET", "/api/auth/user");
  expect(me.isPremium).toBe(true);
}

/** The built app on a fresh database with no Stripe keys (billing off), for a describe's beforeAll. */
export async function startServerWithoutStripe(): Promise<{ url: string; stop(): Promise<void> }> {
  const database = await createTestDatabase({ pgliteDir: true });
  const server = await startServer({
    ...database.env,
    STRIPE_SECRET_KEY: "",
    PUBLIC_STRIPE_PUBLISHABLE_KEY: "",
    STRIPE_WEBHOOK_SECRET: "",
    STRIPE_PRICE_ID: "",
    STRIPE_API_BASE: "",
  }).catch(async (error) => {
    await database.drop();
    throw error;
  });
  return {
    url: server.url,
    async stop() {
      await server.stop();
      await database.drop();
    },
  };
}
