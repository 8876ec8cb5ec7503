/**
 * Opt-in: the billing journey against a real Stripe *test* account, for what the fake cannot
 * prove. Skipped unless STRIPE_LIVE_SECRET_KEY is set (run `bun run stripe:setup` with the
 * same key first):
 *
 *   STRIPE_LIVE_SECRET_KEY=sk_test_… [STRIPE_LIVE_PRICE_ID=price_…] bun test tests/api/stripe-live.test.ts
 *
 * Real events are fetched from the Events API and delivered signed with a local secret;
 * payments use Stripe's test payment methods. Every customer made here is deleted at the end.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Stripe from "stripe";
import { PRODUCT_NAME } from "../../src/lib/constants";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, userRow } from "../support/users";

const KEY = process.env.STRIPE_LIVE_SECRET_KEY?.trim() ?? "";
const enabled = KEY.length > 0;
if (enabled && !KEY.startsWith("sk_test_") && !KEY.startsWith("rk_test_")) {
  throw new Error(
    "STRIPE_LIVE_SECRET_KEY must be a test-mode key (sk_test_…): this suite creates and pays subscriptions.",
  );
}

describe.skipIf(!enabled)("billing against a real Stripe test account", () => {
  const stripe = new Stripe(KEY || "sk_test_unused", { apiVersion: "2026-10-28.endive" });
  const webhookSecret = `whsec_${crypto.randomUUID().replaceAll("-", "")}`;
  const customers: string[] = [];
  const started = Math.floor(Date.now() / 1000) - 5;
  let api: TestApi;

  beforeAll(async () => {
    let priceId = process.env.STRIPE_LIVE_PRICE_ID?.trim();
    if (!priceId) {
      const found = await stripe.prices.list({ lookup_keys: ["stacktrack_premium_monthly"], active: true, limit: 1 });
      priceId = found.data[0]?.id;
      if (!priceId)
        throw new Error(`No ${PRODUCT_NAME} price in this account: run \`bun run stripe:setup\` with this key first.`);
    }
    api = await startApi({
      STRIPE_SECRET_KEY: KEY,
      PUBLIC_STRIPE_PUBLISHABLE_KEY: process.env.STRIPE_LIVE_PUBLISHABLE_KEY ?? "pk_test_not_used_here",
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_PRICE_ID: priceId,
      STRIPE_API_BASE: "",
    });
  }, 60_000);

  afterAll(async () => {
    for (const id of customers) await stripe.customers.del(id).catch(() => undefined);
    await api?.close();
  }, 60_000);

  const post = (user: ApiUser, path: string) => api.fetch(path, { method: "POST", headers: { cookie: user.cookie } });

  async function subscribe(user: ApiUser): Promise<string> {
    const res = await post(user, "/api/get-or-create-subscription");
    expect(res.status).toBe(200);
    const { clientSecret } = (await res.json()) as { clientSecret: string };
    const row = await userRow(api, user);
    if (row.stripeCustomerId && !customers.includes(row.stripeCustomerId)) customers.push(row.stripeCustomerId);
    expect(clientSecret).toMatch(/^pi_\w+_secret_\w+$/);
    return clientSecret;
  }

  const paymentIntentId = (clientSecret: string) => clientSecret.split("_secret_")[0] as string;

  async function pay(clientSecret: string, paymentMethod = "pm_card_visa") {
    return stripe.paymentIntents.confirm(paymentIntentId(clientSecret), {
      payment_method: paymentMethod,
      return_url: `${api.url}/`,
    });
  }

  /** GET /api/auth/user until premium is `want` (Stripe activates the subscription a moment after the payment). */
  async function waitForPremium(user: ApiUser, want: boolean) {
    for (let i = 0; i < 20; i++) {
      const res = await api.fetch("/api/auth/user", { headers: { cookie: user.cookie } });
      if (((await res.json()) as { isPremium: boolean }).isPremium === want) return;
      await Bun.sleep(500);
    }
    throw new Error(`isPremium never became ${want}`);
  }

  async function deliver(event: Stripe.Event): Promise<number> {
    const payload = JSON.stringify(event);
    const signature = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: webhookSecret });
    const res = await api.fetch("/api/stripe/webhook", {
      method: "POST",
      origin: null,
      headers: { "stripe-signature": signature, "content-type": "application/json" },
      body: payload,
    });
    return res.status;
  }

  test("subscribe → pay → premium → billing summary → portal → Stripe's own webhooks → cancel", async () => {
    const user = await createUser(api);
    const clientSecret = await subscribe(user);
    const row = await userRow(api, user);
    const subscription = await stripe.subscriptions.retrieve(row.stripeSubscriptionId as string);
    expect(subscription.status).toBe("incomplete");
    expect(await subscribe(user)).toBe(clientSecret);

    const intent = await pay(clientSecret);
    expect(intent.status).toBe("succeeded");
    await waitForPremium(user, true);

    const billing = (await (await api.fetch("/api/billing", { headers: { cookie: user.cookie } })).json()) as {
      status: string;
      nextBillingDate: string;
      amount: number;
    };
    expect(billing.status).toBe("active");
    expect(billing.amount).toBe(499);
    const days = (new Date(billing.nextBillingDate).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(27);
    expect(days).toBeLessThan(32);

    const portal = await post(user, "/api/create-portal-session");
    expect(portal.status).toBe(200);
    expect(((await portal.json()) as { url: string }).url).toStartWith("https://billing.stripe.com/");

    // Stripe's real events for this subscription, delivered (signed locally) to our webhook.
    const events = await stripe.events.list({ created: { gte: started }, limit: 100 });
    const ours = events.data.filter((e) => {
      const object = e.data.object as { id?: string; parent?: Stripe.Invoice.Parent | null };
      const ref = object.parent?.subscription_details?.subscription;
      return object.id === subscription.id || (typeof ref === "string" ? ref : ref?.id) === subscription.id;
    });
    expect(ours.length).toBeGreaterThan(0);
    for (const event of ours) expect(await deliver(event)).toBe(200);
    expect((await userRow(api, user)).isPremium).toBe(true);

    const cancel = await post(user, "/api/cancel-subscription");
    expect(cancel.status).toBe(200);
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe("canceled");
    expect((await userRow(api, user)).isPremium).toBe(false);
    // The earlier events again, in any order: still free.
    for (const event of ours.reverse()) expect(await deliver(event)).toBe(200);
    expect((await userRow(api, user)).isPremium).toBe(false);
  }, 120_000);

  test("a double click makes one subscription; a declined card keeps the user free", async () => {
    const user = await createUser(api);
    const answers = await Promise.all([
      post(user, "/api/get-or-create-subscription"),
      post(user, "/api/get-or-create-subscription"),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const row = await userRow(api, user);
    customers.push(row.stripeCustomerId as string);
    const list = await stripe.subscriptions.list({ customer: row.stripeCustomerId as string, status: "all" });
    expect(list.data.length).toBe(1);

    const { clientSecret } = (await (answers[0] as Response).json()) as { clientSecret: string };
    await expect(pay(clientSecret, "pm_card_chargeDeclined")).rejects.toThrow(/declined/i);
    await waitForPremium(user, false);
  }, 120_000);
});
