/**
 * Issue 6, premium billing: the app's real Stripe SDK against the Stripe-compatible fake
 * (tests/fakes/stripe-server.ts) over HTTP. Subscribe (create, reuse, a double click),
 * the premium flip without a webhook, the webhook (signature, duplicates, any order,
 * failed payments, events we do not use), cancel (affiliate links and notes kept and
 * back after subscribing again), the portal, the billing summary, Stripe failures, the
 * server without Stripe keys, and the setup script.
 *
 * Webhooks are delivered by hand here (autoDeliver off), so each test decides which
 * events arrive, in which order and how often. State is always checked in the database.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { stripeEvents } from "../../db/schema";
import { BILLING_MESSAGES } from "../../src/lib/account-messages";
import { type FakeStripe, startFakeStripe } from "../fakes/stripe-server";
import { ROOT } from "../support/process";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, supplementRows, userRow } from "../support/users";

interface ErrorBody {
  message: string;
}
interface UserBody {
  isPremium: boolean;
}
interface SupplementBody {
  id: number;
  name: string;
  affiliateLink: string | null;
  notes: string | null;
}

let fake: FakeStripe;
let api: TestApi;

beforeAll(async () => {
  fake = await startFakeStripe({ autoDeliver: false });
  api = await startApi(fake.env());
  fake.webhookUrl = `${api.url}/api/stripe/webhook`;
});
afterAll(async () => {
  await fake?.close();
  await api?.close();
});

const call = (user: ApiUser | null, method: string, path: string, body?: Record<string, unknown>) =>
  api.fetch(path, { method, headers: user ? { cookie: user.cookie } : {}, body });

async function subscribe(user: ApiUser): Promise<string> {
  const res = await call(user, "POST", "/api/get-or-create-subscription");
  expect(res.status).toBe(200);
  const body = (await res.json()) as { clientSecret: string | null };
  expect(typeof body.clientSecret).toBe("string");
  return body.clientSecret as string;
}

/** GET /api/auth/user (which syncs a pending subscription from Stripe). */
async function currentUser(user: ApiUser): Promise<UserBody> {
  const res = await call(user, "GET", "/api/auth/user");
  expect(res.status).toBe(200);
  return (await res.json()) as UserBody;
}

/** A user who has paid at Stripe, made premium by a delivered webhook. */
async function premiumUser(): Promise<{ user: ApiUser; subscriptionId: string }> {
  const user = await createUser(api);
  await subscribe(user);
  const row = await userRow(api, user);
  const subscriptionId = row.stripeSubscriptionId as string;
  fake.pay(subscriptionId);
  const [paid] = fake.eventsOf("invoice.paid").filter((e) => invoiceSubscription(e) === subscriptionId);
  expect(paid).toBeDefined();
  expect((await fake.deliver(paid as Stripe.Event)).status).toBe(200);
  expect((await userRow(api, user)).isPremium).toBe(true);
  return { user, subscriptionId };
}

function invoiceSubscription(event: Stripe.Event): string | undefined {
  const object = event.data.object as Stripe.Invoice;
  const ref = object.parent?.subscription_details?.subscription;
  return typeof ref === "string" ? ref : ref?.id;
}

const eventsOfSubscription = (type: Stripe.Event["type"], subscriptionId: string) =>
  fake
    .eventsOf(type)
    .filter(
      (e) => (e.data.object as { id: string }).id === subscriptionId || invoiceSubscription(e) === subscriptionId,
    );

async function eventRows(id: string): Promise<number> {
  const rows = await api.ctx.database.db.select().from(stripeEvents).where(eq(stripeEvents.id, id));
  return rows.length;
}

describe("signed out and signed in without a subscription", () => {
  test("every billing route answers 401 to a visitor, and Stripe is not called", async () => {
    const before = fake.requests.length;
    for (const [method, path] of [
      ["POST", "/api/get-or-create-subscription"],
      ["POST", "/api/cancel-subscription"],
      ["POST", "/api/create-portal-session"],
      ["GET", "/api/billing"],
    ] as const) {
      const res = await call(null, method, path);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(((await res.json()) as ErrorBody).message).toBe("Unauthorized");
    }
    expect(fake.requests.length).toBe(before);
  });

  test("cancel without a subscription: 400 with a message", async () => {
    const user = await createUser(api);
    const res = await call(user, "POST", "/api/cancel-subscription");
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).message).toBe(BILLING_MESSAGES.noSubscription);
  });

  test("the portal without a Stripe customer: 400 with a message", async () => {
    const user = await createUser(api);
    const res = await call(user, "POST", "/api/create-portal-session");
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).message).toBe(BILLING_MESSAGES.noBillingAccount);
  });

  test("GET /api/billing for a free user: not premium, no next billing date, $4.99 a month", async () => {
    const user = await createUser(api);
    const res = await call(user, "GET", "/api/billing");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      isPremium: false,
      status: null,
      nextBillingDate: null,
      cancelAtPeriodEnd: false,
      amount: 499,
      currency: "usd",
      amountFormatted: "$4.99",
      interval: "month",
    });
  });
});

describe("POST /api/get-or-create-subscription", () => {
  test("creates the customer and an incomplete subscription and answers its invoice's confirmation secret", async () => {
    const user = await createUser(api, { name: "Ada Lovelace" });
    const clientSecret = await subscribe(user);

    const customer = fake.customerByEmail(user.email);
    expect(customer?.metadata).toEqual({ userId: user.id });
    expect(customer?.name).toBe("Ada Lovelace");
    const subscriptions = fake.subscriptionsOf(customer?.id as string);
    expect(subscriptions.length).toBe(1);
    const subscription = subscriptions[0] as Stripe.Subscription;
    expect(subscription.status).toBe("incomplete");
    expect(subscription.items.data[0]?.price.id).toBe(fake.priceId);
    expect(fake.latestInvoice(subscription)?.confirmation_secret?.client_secret).toBe(clientSecret);

    const create = fake.requests.find(
      (r) => r.method === "POST" && r.path === "/v1/subscriptions" && r.params.customer === customer?.id,
    );
    expect(create?.params.payment_behavior).toBe("default_incomplete");
    expect(create?.params.expand).toEqual(["latest_invoice.confirmation_secret"]);
    expect(create?.stripeVersion).toBe("2026-10-28.endive");

    const row = await userRow(api, user);
    expect(row.stripeCustomerId).toBe(customer?.id as string);
    expect(row.stripeSubscriptionId).toBe(subscription.id);
    expect(row.subscriptionStatus).toBe("incomplete");
    expect(row.isPremium).toBe(false);
  });

  test("called again (a reload), it reuses the incomplete subscription: same secret, one customer, one subscription", async () => {
    const user = await createUser(api);
    const first = await subscribe(user);
    const second = await subscribe(user);
    expect(second).toBe(first);
    const customers = [...fake.customers.values()].filter((c) => c.email === user.email);
    expect(customers.length).toBe(1);
    expect(fake.subscriptionsOf(customers[0]?.id as string).length).toBe(1);
  });

  test("two requests at once (a double click) make one customer and one subscription", async () => {
    const user = await createUser(api);
    const answers = await Promise.all([
      call(user, "POST", "/api/get-or-create-subscription"),
      call(user, "POST", "/api/get-or-create-subscription"),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const secrets = await Promise.all(
      answers.map(async (r) => ((await r.json()) as { clientSecret: string }).clientSecret),
    );
    expect(secrets[0]).toBe(secrets[1] as string);
    const customers = [...fake.customers.values()].filter((c) => c.email === user.email);
    expect(customers.length).toBe(1);
    expect(fake.subscriptionsOf(customers[0]?.id as string).length).toBe(1);
  });

  test("after the payment, GET /api/auth/user makes the user premium without any webhook", async () => {
    const user = await createUser(api);
    const clientSecret = await subscribe(user);
    fake.confirmPayment(clientSecret);
    const deliveries = fake.deliveries.length;
    expect((await userRow(api, user)).isPremium).toBe(false);

    expect((await currentUser(user)).isPremium).toBe(true);
    const row = await userRow(api, user);
    expect(row.isPremium).toBe(true);
    expect(row.subscriptionStatus).toBe("active");
    expect(fake.deliveries.length).toBe(deliveries);
  });

  test("already premium: 400 with a message, and no second subscription", async () => {
    const { user } = await premiumUser();
    const before = fake.requests.filter((r) => r.method === "POST" && r.path === "/v1/subscriptions").length;
    const res = await call(user, "POST", "/api/get-or-create-subscription");
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).message).toBe(BILLING_MESSAGES.alreadyPremium);
    expect(fake.requests.filter((r) => r.method === "POST" && r.path === "/v1/subscriptions").length).toBe(before);
  });

  test("paid at Stripe but not yet mirrored here: mirrored and refused, not subscribed twice", async () => {
    const user = await createUser(api);
    const clientSecret = await subscribe(user);
    fake.confirmPayment(clientSecret);
    const res = await call(user, "POST", "/api/get-or-create-subscription");
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).message).toBe(BILLING_MESSAGES.alreadyPremium);
    const row = await userRow(api, user);
    expect(row.isPremium).toBe(true);
    expect(fake.subscriptionsOf(row.stripeCustomerId as string).length).toBe(1);
  });

  test("a declined card leaves the user free, and the retry pays the same invoice", async () => {
    const user = await createUser(api);
    const clientSecret = await subscribe(user);
    expect(() => fake.confirmPayment(clientSecret, "4000 0000 0000 0002")).toThrow("Your card was declined.");
    expect((await currentUser(user)).isPremium).toBe(false);
    expect(await subscribe(user)).toBe(clientSecret);
    fake.confirmPayment(clientSecret);
    expect((await currentUser(user)).isPremium).toBe(true);
  });

  test("Stripe failing: 502 with the screen's message, and nothing stored", async () => {
    const user = await createUser(api);
    fake.failures.set("POST /v1/customers", { status: 500, message: "An unknown error occurred" });
    try {
      const res = await call(user, "POST", "/api/get-or-create-subscription");
      expect(res.status).toBe(502);
      expect(((await res.json()) as ErrorBody).message).toBe(BILLING_MESSAGES.createFailed);
    } finally {
      fake.failures.clear();
    }
    const row = await userRow(api, user);
    expect(row.stripeCustomerId).toBeNull();
    expect(row.stripeSubscriptionId).toBeNull();
  });
});

describe("POST /api/stripe/webhook", () => {
  test("a bad signature answers 400 and changes nothing", async () => {
    const user = await createUser(api);
    await subscribe(user);
    const row = await userRow(api, user);
    fake.pay(row.stripeSubscriptionId as string);
    const [paid] = eventsOfSubscription("invoice.paid", row.stripeSubscriptionId as string);
    const event = paid as Stripe.Event;

    const wrongSecret = await fake.deliver(event, { secret: "whsec_not_the_right_one" });
    expect(wrongSecret.status).toBe(400);
    expect((JSON.parse(wrongSecret.body) as ErrorBody).message).toBe(BILLING_MESSAGES.invalidSignature);

    // A valid signature, but of another payload.
    const forged = await fake.deliver(event, {
      signature: await fake.sign(JSON.stringify({ ...event, id: "evt_other" })),
    });
    expect(forged.status).toBe(400);

    const unsigned = await api.fetch("/api/stripe/webhook", {
      method: "POST",
      origin: null,
      body: JSON.stringify(event),
    });
    expect(unsigned.status).toBe(400);

    const stale = await fake.deliver(event, {
      signature: await fake.sign(
        JSON.stringify(event, null, 2),
        fake.webhookSecret,
        Math.floor(Date.now() / 1000) - 3600,
      ),
    });
    expect(stale.status).toBe(400);

    expect(await eventRows(event.id)).toBe(0);
    const after = await userRow(api, user);
    expect(after.isPremium).toBe(false);
    expect(after.updatedAt.getTime()).toBe(row.updatedAt.getTime());

    // The same event, correctly signed, is then processed: the refusals were about the signature.
    expect((await fake.deliver(event)).status).toBe(200);
    expect((await userRow(api, user)).isPremium).toBe(true);
  });

  test("a signed event makes the user premium; the same event again has no second effect", async () => {
    const user = await createUser(api);
    await subscribe(user);
    const subscriptionId = (await userRow(api, user)).stripeSubscriptionId as string;
    fake.pay(subscriptionId);
    const [updated] = eventsOfSubscription("customer.subscription.updated", subscriptionId);
    const event = updated as Stripe.Event;

    const first = await fake.deliver(event);
    expect(first.status).toBe(200);
    expect((await userRow(api, user)).isPremium).toBe(true);

    // Stripe's state moves on (cancelled), but that event is not redelivered: a second
    // processing of the first event would read Stripe again and make the user free.
    fake.cancelSubscription(subscriptionId);
    const again = await fake.deliver(event);
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body)).toEqual({ received: true, duplicate: true });
    expect((await userRow(api, user)).isPremium).toBe(true);
    expect(await eventRows(event.id)).toBe(1);
  });

  test("the same event delivered twice at once is processed once", async () => {
    const user = await createUser(api);
    await subscribe(user);
    const subscriptionId = (await userRow(api, user)).stripeSubscriptionId as string;
    fake.pay(subscriptionId);
    const [paid] = eventsOfSubscription("invoice.payment_succeeded", subscriptionId);
    const retrievals = () =>
      fake.requests.filter((r) => r.method === "GET" && r.path === `/v1/subscriptions/${subscriptionId}`).length;
    const before = retrievals();
    const answers = await Promise.all([fake.deliver(paid as Stripe.Event), fake.deliver(paid as Stripe.Event)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.filter((a) => (JSON.parse(a.body) as { duplicate?: boolean }).duplicate).length).toBe(1);
    expect(retrievals() - before).toBe(1);
    expect(await eventRows((paid as Stripe.Event).id)).toBe(1);
    expect((await userRow(api, user)).isPremium).toBe(true);
  });

  test("customer.subscription.deleted arriving before an earlier .updated ends free", async () => {
    const { user, subscriptionId } = await premiumUser();
    fake.updateSubscription(subscriptionId, { cancel_at_period_end: true });
    fake.cancelSubscription(subscriptionId);
    const updated = eventsOfSubscription("customer.subscription.updated", subscriptionId).at(-1) as Stripe.Event;
    const deleted = eventsOfSubscription("customer.subscription.deleted", subscriptionId).at(-1) as Stripe.Event;
    // The late event still says "active": a handler trusting payloads would flip back to premium.
    expect((updated.data.object as Stripe.Subscription).status).toBe("active");

    expect((await fake.deliver(deleted)).status).toBe(200);
    expect((await userRow(api, user)).isPremium).toBe(false);
    expect((await fake.deliver(updated)).status).toBe(200);
    const row = await userRow(api, user);
    expect(row.isPremium).toBe(false);
    expect(row.subscriptionStatus).toBe("canceled");
  });

  test("invoice.payment_failed on a renewal: past_due and free; paying the open invoice makes it premium again", async () => {
    const { user, subscriptionId } = await premiumUser();
    const invoice = fake.failRenewal(subscriptionId);
    const failed = eventsOfSubscription("invoice.payment_failed", subscriptionId).at(-1) as Stripe.Event;
    expect((failed.data.object as Stripe.Invoice).id).toBe(invoice.id);

    expect((await fake.deliver(failed)).status).toBe(200);
    const row = await userRow(api, user);
    expect(row.isPremium).toBe(false);
    expect(row.subscriptionStatus).toBe("past_due");

    // Subscribing again pays the overdue invoice of the same subscription, not a new one.
    const clientSecret = await subscribe(user);
    expect(clientSecret).toBe(invoice.confirmation_secret?.client_secret as string);
    expect(fake.subscriptionsOf(row.stripeCustomerId as string).length).toBe(1);
    fake.confirmPayment(clientSecret);
    expect((await currentUser(user)).isPremium).toBe(true);
  });

  test("events the app does not use answer 2xx and are recorded once", async () => {
    const user = await createUser(api);
    await subscribe(user);
    const customerId = (await userRow(api, user)).stripeCustomerId as string;
    const created = fake.eventsOf("customer.created", customerId)[0] as Stripe.Event;
    const res = await fake.deliver(created);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ received: true, ignored: true });
    expect(await eventRows(created.id)).toBe(1);
    const again = await fake.deliver(created);
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body)).toEqual({ received: true, duplicate: true });
  });

  test("an event about a customer the app does not know answers 2xx and changes no user", async () => {
    const stranger = fake.createCustomer({ email: "stranger@example.com" });
    const subscription = fake.createSubscription({
      customer: stranger.id,
      items: [{ price: fake.priceId }],
      payment_behavior: "default_incomplete",
    });
    fake.pay(subscription.id);
    const event = eventsOfSubscription("customer.subscription.updated", subscription.id).at(-1) as Stripe.Event;
    const premiumBefore = await api.ctx.database.db.execute(sql`select count(*)::int as n from users where is_premium`);
    const res = await fake.deliver(event);
    expect(res.status).toBe(200);
    const premiumAfter = await api.ctx.database.db.execute(sql`select count(*)::int as n from users where is_premium`);
    expect(JSON.stringify(premiumAfter)).toBe(JSON.stringify(premiumBefore));
  });
});

describe("cancel, and subscribing again", () => {
  test("cancel is immediate at Stripe and free at once; affiliate links and notes stay stored and come back", async () => {
    const { user, subscriptionId } = await premiumUser();
    const add = await call(user, "POST", "/api/supplements", {
      name: "Creatine",
      quantityType: "Capsule(s)",
      frequency: "5 g daily",
      affiliateLink: "https://shop.example.com/creatine",
      notes: "With breakfast",
    });
    expect(add.status).toBe(201);
    const added = (await add.json()) as SupplementBody;
    expect(added.affiliateLink).toBe("https://shop.example.com/creatine");

    const cancel = await call(user, "POST", "/api/cancel-subscription");
    expect(cancel.status).toBe(200);
    expect(fake.subscriptions.get(subscriptionId)?.status).toBe("canceled");
    expect(fake.requests.some((r) => r.method === "DELETE" && r.path === `/v1/subscriptions/${subscriptionId}`)).toBe(
      true,
    );
    const row = await userRow(api, user);
    expect(row.isPremium).toBe(false);
    expect(row.subscriptionStatus).toBe("canceled");
    expect((await currentUser(user)).isPremium).toBe(false);

    // Hidden from the free user, still stored.
    const listed = (await (await call(user, "GET", "/api/supplements")).json()) as SupplementBody[];
    expect(listed.map((s) => [s.affiliateLink, s.notes])).toEqual([[null, null]]);
    // An edit by the free user (which cannot carry premium fields) keeps them too.
    const edit = await call(user, "PUT", `/api/supplements/${added.id}`, {
      name: "Creatine monohydrate",
      quantityType: "Capsule(s)",
      frequency: "5 g daily",
      affiliateLink: "https://evil.example.com/",
      notes: "changed",
    });
    expect(edit.status).toBe(200);
    const stored = await supplementRows(api, user);
    expect(stored.map((s) => [s.name, s.affiliateLink, s.notes])).toEqual([
      ["Creatine monohydrate", "https://shop.example.com/creatine", "With breakfast"],
    ]);

    // A late event about the cancelled subscription changes nothing.
    const lateUpdate = eventsOfSubscription("customer.subscription.updated", subscriptionId).at(-1) as Stripe.Event;
    expect((await fake.deliver(lateUpdate)).status).toBe(200);
    expect((await userRow(api, user)).isPremium).toBe(false);

    // Subscribing again: a new subscription (the cancelled one cannot be paid), and they come back.
    const clientSecret = await subscribe(user);
    const again = await userRow(api, user);
    expect(again.stripeSubscriptionId).not.toBe(subscriptionId);
    expect(again.stripeCustomerId).toBe(row.stripeCustomerId as string);
    fake.confirmPayment(clientSecret);
    expect((await currentUser(user)).isPremium).toBe(true);
    const back = (await (await call(user, "GET", "/api/supplements")).json()) as SupplementBody[];
    expect(back.map((s) => [s.affiliateLink, s.notes])).toEqual([
      ["https://shop.example.com/creatine", "With breakfast"],
    ]);

    // The old subscription's events still change nothing.
    const oldDeleted = eventsOfSubscription("customer.subscription.deleted", subscriptionId).at(-1) as Stripe.Event;
    expect((await fake.deliver(oldDeleted)).status).toBe(200);
    expect((await userRow(api, user)).isPremium).toBe(true);
  });

  test("a free user cannot set premium fields by calling the API directly", async () => {
    const user = await createUser(api);
    const add = await call(user, "POST", "/api/supplements", {
      name: "Magnesium",
      quantityType: "Tablet(s)",
      frequency: "1 nightly",
      affiliateLink: "https://shop.example.com/mg",
      notes: "before bed",
    });
    expect(add.status).toBe(201);
    const added = (await add.json()) as SupplementBody;
    expect([added.affiliateLink, added.notes]).toEqual([null, null]);
    const edit = await call(user, "PUT", `/api/supplements/${added.id}`, {
      name: "Magnesium",
      quantityType: "Tablet(s)",
      frequency: "1 nightly",
      affiliateLink: "https://shop.example.com/mg",
      notes: "before bed",
    });
    expect(edit.status).toBe(200);
    const stored = await supplementRows(api, user);
    expect(stored.map((s) => [s.affiliateLink, s.notes])).toEqual([[null, null]]);
  });
});

describe("portal and billing summary", () => {
  test("create-portal-session answers the portal URL, returning to /billing", async () => {
    const { user } = await premiumUser();
    const res = await call(user, "POST", "/api/create-portal-session");
    expect(res.status).toBe(200);
    const { url } = (await res.json()) as { url: string };
    expect(url.startsWith(`${fake.url}/portal/`)).toBe(true);
    const session = fake.portalSessions.get(url.slice(`${fake.url}/portal/`.length));
    expect(session?.return_url).toBe(`${api.url}/billing`);
    expect(session?.customer).toBe((await userRow(api, user)).stripeCustomerId as string);
  });

  test("GET /api/billing for a premium user: active, the next billing date from the subscription item, $4.99", async () => {
    const { user, subscriptionId } = await premiumUser();
    const item = fake.subscriptions.get(subscriptionId)?.items.data[0] as Stripe.SubscriptionItem;
    const res = await call(user, "GET", "/api/billing");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      isPremium: true,
      status: "active",
      nextBillingDate: new Date(item.current_period_end * 1000).toISOString(),
      cancelAtPeriodEnd: false,
      amount: 499,
      currency: "usd",
      amountFormatted: "$4.99",
      interval: "month",
    });
  });

  test("GET /api/billing notices a cancellation made in the portal (no webhook yet) and makes the user free", async () => {
    const { user, subscriptionId } = await premiumUser();
    fake.cancelSubscription(subscriptionId);
    const res = await call(user, "GET", "/api/billing");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { isPremium: boolean; status: string; nextBillingDate: string | null };
    expect([body.isPremium, body.status, body.nextBillingDate]).toEqual([false, "canceled", null]);
    expect((await userRow(api, user)).isPremium).toBe(false);
  });
});

describe("without Stripe keys", () => {
  let bare: TestApi;
  beforeAll(async () => {
    bare = await startApi({
      STRIPE_SECRET_KEY: "",
      PUBLIC_STRIPE_PUBLISHABLE_KEY: "",
      STRIPE_WEBHOOK_SECRET: "",
      STRIPE_PRICE_ID: "",
      STRIPE_API_BASE: "",
    });
  });
  afterAll(async () => {
    await bare?.close();
  });

  test("billing is off: the billing calls answer 503 'Payments are not configured on this server.'", async () => {
    expect(bare.ctx.config.billingEnabled).toBe(false);
    const user = await createUser(bare);
    for (const [method, path] of [
      ["POST", "/api/get-or-create-subscription"],
      ["POST", "/api/cancel-subscription"],
      ["POST", "/api/create-portal-session"],
      ["GET", "/api/billing"],
    ] as const) {
      const res = await bare.fetch(path, { method, headers: { cookie: user.cookie } });
      expect(res.status, `${method} ${path}`).toBe(503);
      expect(((await res.json()) as ErrorBody).message).toBe("Payments are not configured on this server.");
    }
    const webhook = await bare.fetch("/api/stripe/webhook", { method: "POST", origin: null, body: "{}" });
    expect(webhook.status).toBe(503);
    // The rest of the app works.
    expect((await bare.fetch("/api/auth/user", { headers: { cookie: user.cookie } })).status).toBe(200);
  });
});

describe("bun run stripe:setup", () => {
  const run = async (target: FakeStripe) => {
    const proc = Bun.spawn([process.execPath, "scripts/stripe-setup.ts"], {
      cwd: ROOT,
      env: { ...process.env, STRIPE_SECRET_KEY: target.secretKey, STRIPE_API_BASE: target.url },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { out, err, code };
  };

  test("finds the $4.99 price by its lookup key, creates the portal configuration once, and prints STRIPE_PRICE_ID", async () => {
    const target = await startFakeStripe({ portalConfigured: false });
    try {
      const first = await run(target);
      expect(first.code, first.err).toBe(0);
      expect(first.out).toContain(`STRIPE_PRICE_ID=${target.priceId}`);
      expect(target.portalConfigurations.size).toBe(1);
      const second = await run(target);
      expect(second.code, second.err).toBe(0);
      expect(second.out).toContain(`STRIPE_PRICE_ID=${target.priceId}`);
      expect(target.portalConfigurations.size).toBe(1);
      expect(target.prices.size).toBe(1);
    } finally {
      await target.close();
    }
  });

  test("creates the price when the account has none", async () => {
    const target = await startFakeStripe();
    try {
      // An account where the seeded price's lookup key is gone.
      for (const price of target.prices.values()) price.lookup_key = null;
      const result = await run(target);
      expect(result.code, result.err).toBe(0);
      const created = [...target.prices.values()].find((p) => p.lookup_key === "stacktrack_premium_monthly");
      expect(created?.unit_amount).toBe(499);
      expect(created?.recurring?.interval).toBe("month");
      expect(result.out).toContain(`STRIPE_PRICE_ID=${created?.id}`);
    } finally {
      await target.close();
    }
  });
});
