/**
 * Prepares a Stripe account for the app, idempotently: the "<PRODUCT_NAME> Premium" product and
 * its $4.99 monthly price (found again by its lookup key), a default billing portal
 * configuration, and with --webhook-url a webhook endpoint whose signing secret is printed.
 *
 *   STRIPE_SECRET_KEY=sk_test_… bun run stripe:setup [--webhook-url https://…/api/stripe/webhook]
 *
 * Prints the environment lines to add. A live key is refused unless --live is given.
 * STRIPE_API_BASE points it at another server (the tests' fake).
 */
import Stripe from "stripe";
import { PREMIUM_PRICE, PREMIUM_PRICE_CENTS, PRODUCT_NAME } from "../src/lib/constants";

const LOOKUP_KEY = "stacktrack_premium_monthly";
const PRICE_CENTS = PREMIUM_PRICE_CENTS;
const WEBHOOK_EVENTS = [
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "customer.subscription.paused",
  "customer.subscription.resumed",
  "invoice.paid",
  "invoice.payment_succeeded",
  "invoice.payment_failed",
  "invoice.payment_action_required",
] as const;

function fail(message: string): never {
  console.error(`stripe:setup: ${message}`);
  process.exit(1);
}

function argValue(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  const inline = args.find((a) => a.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

const key = process.env.STRIPE_SECRET_KEY?.trim();
if (!key) fail("set STRIPE_SECRET_KEY (a test key, sk_test_…) first.");
if (key.startsWith("sk_live_") && !process.argv.includes("--live")) {
  fail("STRIPE_SECRET_KEY is a live key; pass --live if you really mean to set up the live account.");
}
const webhookUrl = argValue("--webhook-url");
if (webhookUrl !== undefined && !/^https?:\/\/\S+$/.test(webhookUrl)) fail("--webhook-url must be an http(s) URL.");

const base = process.env.STRIPE_API_BASE?.trim();
const endpoint = base
  ? (() => {
      const url = new URL(base);
      const protocol = url.protocol === "http:" ? ("http" as const) : ("https" as const);
      return { host: url.hostname, port: url.port || (protocol === "http" ? 80 : 443), protocol };
    })()
  : {};
const stripe = new Stripe(key, { apiVersion: "2026-10-28.endive", maxNetworkRetries: 2, ...endpoint });

async function ensurePrice(): Promise<Stripe.Price> {
  const found = await stripe.prices.list({ lookup_keys: [LOOKUP_KEY], active: true, limit: 1 });
  const existing = found.data[0];
  if (existing) {
    console.log(`Price ${existing.id} (lookup key ${LOOKUP_KEY}) already exists.`);
    return existing;
  }
  const product = await stripe.products.create({
    name: `${PRODUCT_NAME} Premium`,
    description: "Affiliate links and notes for every supplement, the Affiliate badge and priority support.",
  });
  const price = await stripe.prices.create({
    product: product.id,
    currency: "usd",
    unit_amount: PRICE_CENTS,
    recurring: { interval: "month" },
    lookup_key: LOOKUP_KEY,
    nickname: `${PRODUCT_NAME} Premium monthly`,
  });
  console.log(`Created product ${product.id} and price ${price.id} (${PREMIUM_PRICE} per month).`);
  return price;
}

async function ensurePortalConfiguration(): Promise<void> {
  const found = await stripe.billingPortal.configurations.list({ is_default: true, limit: 1 });
  if (found.data[0]) {
    console.log(`Billing portal configuration ${found.data[0].id} is already the default.`);
    return;
  }
  const configuration = await stripe.billingPortal.configurations.create({
    name: PRODUCT_NAME,
    features: {
      payment_method_update: { enabled: true },
      invoice_history: { enabled: true },
      customer_update: { enabled: true, allowed_updates: ["email", "address"] },
      subscription_cancel: { enabled: true, mode: "immediately", proration_behavior: "none" },
    },
  });
  console.log(`Created billing portal configuration ${configuration.id}.`);
}

async function ensureWebhook(url: string): Promise<string | null> {
  const found = await stripe.webhookEndpoints.list({ limit: 100 });
  const existing = found.data.find((e) => e.url === url);
  if (existing) {
    console.log(
      `Webhook endpoint ${existing.id} for ${url} already exists (its signing secret is in the Stripe dashboard).`,
    );
    return null;
  }
  const created = await stripe.webhookEndpoints.create({
    url,
    enabled_events: [...WEBHOOK_EVENTS],
    api_version: "2026-10-28.endive",
    description: PRODUCT_NAME,
  });
  console.log(`Created webhook endpoint ${created.id} for ${url}.`);
  return created.secret ?? null;
}

try {
  const price = await ensurePrice();
  await ensurePortalConfiguration();
  const secret = webhookUrl ? await ensureWebhook(webhookUrl) : null;
  console.log("\nAdd to the server's environment:");
  console.log(`STRIPE_PRICE_ID=${price.id}`);
  if (secret) console.log(`STRIPE_WEBHOOK_SECRET=${secret}`);
  if (!webhookUrl) {
    console.log(
      "# For STRIPE_WEBHOOK_SECRET: rerun with --webhook-url https://<your host>/api/stripe/webhook, or, locally, " +
        "`stripe listen --forward-to localhost:4321/api/stripe/webhook` prints one.",
    );
  }
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
