/**
 * The Stripe webhook (api/billing.ts), its rules one by one over HTTP on one API: whose event it
 * is (the Stripe customer first, then our metadata), what is mirrored (Stripe's state read
 * again, never the payload), which news about another subscription than the user's current one
 * is applied, when nothing is written, duplicates, a subscription gone at Stripe, Stripe
 * failing, and the refusals. Small and fast on purpose: StrykerJS runs it once per mutant of
 * the webhook's code (docs/mutation-testing.md), so it starts from a migrated PGlite copy, makes its users as
 * database rows (no sign-up: the webhook has no session) and builds each event by hand, signed
 * with the fake Stripe's secret. The subscribe flow and its events end to end are in
 * tests/api/billing.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { setLogLevel } from "../../api/lib/log";
import { stripeEvents, type User, users } from "../../db/schema";
import { BILLING_MESSAGES } from "../../src/lib/account-messages";
import { type FakeStripe, startFakeStripe } from "../fakes/stripe-server";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";

let fake: FakeStripe;
let api: TestApi;
/** Every SQL statement the app sends, while `counting` (statement counting). */
let counting = false;
let statements: string[] = [];
/** Called (once) with the next statement the app is about to send. */
let beforeStatement: ((query: string) => void) | null = null;
/** The app's structured log lines (stdout and stderr), parsed. */
let logLines: Record<string, unknown>[] = [];
const writes = { stdout: process.stdout.write, stderr: process.stderr.write };

beforeAll(async () => {
  fake = await startFakeStripe({ autoDeliver: false });
  api = await startApi(fake.env(), {
    database: await migratedDatabase(),
    onQuery: (query) => {
      if (counting) statements.push(query);
      const hook = beforeStatement;
      beforeStatement = null;
      hook?.(query);
    },
  });
  fake.webhookUrl = `${api.url}/api/stripe/webhook`;
  // The info lines ("premium changed") are part of what the webhook promises operators.
  setLogLevel("info");
  for (const stream of ["stdout", "stderr"] as const) {
    const original = writes[stream].bind(process[stream]) as (...args: unknown[]) => boolean;
    process[stream].write = ((chunk: unknown, ...rest: unknown[]) => {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString();
      const lines = text.split("\n");
      for (const line of lines) {
        if (line.startsWith('{"time"')) logLines.push(JSON.parse(line) as Record<string, unknown>);
      }
      // The info lines (one per request) stay out of the test output; everything else goes on.
      if (stream === "stdout" && lines.every((l) => l === "" || l.startsWith('{"time"'))) return true;
      return original(chunk, ...rest);
    }) as typeof process.stdout.write;
  }
});

afterAll(async () => {
  process.stdout.write = writes.stdout;
  process.stderr.write = writes.stderr;
  setLogLevel("warn");
  await fake?.close();
  await api?.close();
});

afterEach(() => {
  beforeStatement = null;
  logLines = [];
  counting = false;
  statements = [];
});

let counter = 0;

/** A user row as billing leaves it (no sign-up: the webhook needs no session). */
async function newUser(fields: Partial<typeof users.$inferInsert> = {}): Promise<User> {
  counter += 1;
  const [row] = await api.ctx.database.db
    .insert(users)
    .values({ id: `user_${counter}_${crypto.randomUUID()}`, email: `wh${counter}@example.com`, ...fields })
    .returning();
  return row as User;
}

const row = async (id: string): Promise<User> => {
  const [found] = await api.ctx.database.db.select().from(users).where(eq(users.id, id));
  if (!found) throw new Error(`no user ${id}`);
  return found;
};

const customer = () => fake.createCustomer({ email: `customer${++counter}@example.com` }).id;

/** A subscription at the fake Stripe in `status` (made incomplete, then paid or changed). */
function subscription(
  customerId: string,
  status: Stripe.Subscription.Status,
  metadata: Record<string, string> = {},
): string {
  const created = fake.createSubscription({
    customer: customerId,
    items: [{ price: fake.priceId }],
    payment_behavior: "default_incomplete",
    metadata,
  });
  if (status === "active") fake.pay(created.id);
  else if (status === "canceled") fake.cancelSubscription(created.id);
  else if (status !== "incomplete") fake.updateSubscription(created.id, { status });
  return created.id;
}

/** A customer.subscription.* event as Stripe sends it; its payload may be stale. */
function subscriptionEvent(
  subscriptionId: string,
  customerId: string,
  { type = "customer.subscription.updated", status = "active", metadata = {} as Record<string, string> } = {},
): Stripe.Event {
  return {
    id: `evt_${crypto.randomUUID().replaceAll("-", "")}`,
    object: "event",
    type,
    data: { object: { id: subscriptionId, object: "subscription", customer: customerId, status, metadata } },
  } as unknown as Stripe.Event;
}

async function deliver(event: Stripe.Event): Promise<{ status: number; body: unknown }> {
  const res = await fake.deliver(event);
  return { status: res.status, body: JSON.parse(res.body) };
}

async function eventRecorded(id: string): Promise<boolean> {
  const rows = await api.ctx.database.db.select().from(stripeEvents).where(eq(stripeEvents.id, id));
  return rows.length === 1;
}

const retrievals = (subscriptionId: string) =>
  fake.requests.filter((r) => r.method === "GET" && r.path === `/v1/subscriptions/${subscriptionId}`).length;

const billingFields = (user: User) => ({
  stripeCustomerId: user.stripeCustomerId,
  stripeSubscriptionId: user.stripeSubscriptionId,
  subscriptionStatus: user.subscriptionStatus,
  isPremium: user.isPremium,
});

describe("whose event it is", () => {
  test("the user with the subscription's Stripe customer; Stripe's state is mirrored, not the payload's", async () => {
    const cus = customer();
    const user = await newUser({ stripeCustomerId: cus });
    const sub = subscription(cus, "active"); // no metadata: found by the customer alone
    const event = subscriptionEvent(sub, cus, { status: "incomplete" });
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true } });
    expect(billingFields(await row(user.id))).toEqual({
      stripeCustomerId: cus,
      stripeSubscriptionId: sub,
      subscriptionStatus: "active",
      isPremium: true,
    });
    expect(await eventRecorded(event.id)).toBe(true);

    // An invoice event names the subscription through its parent; Stripe says canceled now.
    fake.cancelSubscription(sub);
    const invoice = {
      id: `evt_${crypto.randomUUID().replaceAll("-", "")}`,
      type: "invoice.voided",
      data: { object: { id: "in_1", customer: cus, parent: { subscription_details: { subscription: sub } } } },
    } as unknown as Stripe.Event;
    expect(await deliver(invoice)).toEqual({ status: 200, body: { received: true } });
    expect(billingFields(await row(user.id))).toEqual({
      stripeCustomerId: cus,
      stripeSubscriptionId: sub,
      subscriptionStatus: "canceled",
      isPremium: false,
    });
  });

  test("a user without a Stripe customer yet is found by our metadata and takes the subscription's customer", async () => {
    const user = await newUser();
    const cus = customer();
    const sub = subscription(cus, "active", { userId: user.id });
    expect(await deliver(subscriptionEvent(sub, cus, { metadata: { userId: user.id } }))).toEqual({
      status: 200,
      body: { received: true },
    });
    expect(billingFields(await row(user.id))).toEqual({
      stripeCustomerId: cus,
      stripeSubscriptionId: sub,
      subscriptionStatus: "active",
      isPremium: true,
    });
  });

  test("the customer wins over the metadata: the customer's user changes, the one named in metadata does not", async () => {
    const cus = customer();
    const owner = await newUser({ stripeCustomerId: cus });
    const named = await newUser();
    const sub = subscription(cus, "active", { userId: named.id });
    expect((await deliver(subscriptionEvent(sub, cus, { metadata: { userId: named.id } }))).status).toBe(200);
    expect((await row(owner.id)).isPremium).toBe(true);
    const untouched = await row(named.id);
    expect(billingFields(untouched)).toEqual({
      stripeCustomerId: null,
      stripeSubscriptionId: null,
      subscriptionStatus: null,
      isPremium: false,
    });
    expect(untouched.updatedAt.getTime()).toBe(named.updatedAt.getTime());
  });

  test("a subscription of another customer than the user's is not applied (metadata cannot move a user to it)", async () => {
    const own = customer();
    const user = await newUser({ stripeCustomerId: own });
    const other = customer();
    const sub = subscription(other, "active", { userId: user.id });
    expect(await deliver(subscriptionEvent(sub, other, { metadata: { userId: user.id } }))).toEqual({
      status: 200,
      body: { received: true },
    });
    const after = await row(user.id);
    expect(billingFields(after)).toEqual({
      stripeCustomerId: own,
      stripeSubscriptionId: null,
      subscriptionStatus: null,
      isPremium: false,
    });
    expect(after.updatedAt.getTime()).toBe(user.updatedAt.getTime());
    // Operators are told why a paid subscription made no one premium.
    expect(logLines).toContainEqual(
      expect.objectContaining({
        level: "warn",
        msg: "subscription belongs to another customer; ignored",
        userId: user.id,
        subscription: sub,
      }),
    );
  });

  test("an event of a customer and metadata the app does not know: 2xx, ignored, and recorded once", async () => {
    const cus = customer();
    const sub = subscription(cus, "active");
    const event = subscriptionEvent(sub, cus, { metadata: { userId: "no_such_user" } });
    const before = retrievals(sub);
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true, ignored: true } });
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(retrievals(sub)).toBe(before);
    expect(await eventRecorded(event.id)).toBe(true);
  });

  test("not ours, and recorded by another delivery after this one's first look: answered as a duplicate", async () => {
    const cus = customer();
    const sub = subscription(cus, "active");
    const event = subscriptionEvent(sub, cus, { metadata: { userId: "no_such_user" } });
    // The other delivery records the event while this one looks for its user (two look-ups:
    // by customer, then by metadata), so this one's insert finds it there.
    let other: Promise<unknown> | undefined;
    beforeStatement = (query) => {
      expect(query).toContain('from "stripe_events"');
      beforeStatement = () => {
        other = api.ctx.database.db
          .insert(stripeEvents)
          .values({ id: event.id, type: event.type })
          .onConflictDoNothing()
          .then(() => undefined);
      };
    };
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    await other;
    expect(other).toBeDefined();
  });

  test("an event type the app does not use: 2xx, ignored, recorded once", async () => {
    const event = {
      id: `evt_${crypto.randomUUID().replaceAll("-", "")}`,
      type: "customer.created",
      data: { object: { id: customer(), object: "customer" } },
    } as unknown as Stripe.Event;
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true, ignored: true } });
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(await eventRecorded(event.id)).toBe(true);
  });
});

describe("news about another subscription than the user's current one", () => {
  // Each row: the user's current subscription (at Stripe and mirrored here), the subscription
  // the event is about (at Stripe), and which one the user ends with.
  const cases: {
    name: string;
    current: Stripe.Subscription.Status | null;
    news: Stripe.Subscription.Status;
    adopted: boolean;
  }[] = [
    {
      name: "an old canceled one does not end a live current one",
      current: "active",
      news: "canceled",
      adopted: false,
    },
    {
      name: "an old past_due one does not replace an incomplete current one",
      current: "incomplete",
      news: "past_due",
      adopted: false,
    },
    { name: "a live one replaces a canceled current one", current: "canceled", news: "active", adopted: true },
    { name: "a live one replaces a live current one", current: "active", news: "trialing", adopted: true },
    { name: "with no current one, even a canceled one is recorded", current: null, news: "canceled", adopted: true },
  ];

  test.each(cases)("$name", async ({ current, news, adopted }) => {
    const cus = customer();
    const currentId = current ? subscription(cus, current) : null;
    const user = await newUser({
      stripeCustomerId: cus,
      stripeSubscriptionId: currentId,
      subscriptionStatus: current,
      isPremium: current === "active" || current === "trialing",
    });
    const newsId = subscription(cus, news);
    expect(await deliver(subscriptionEvent(newsId, cus))).toEqual({ status: 200, body: { received: true } });
    const after = await row(user.id);
    expect(billingFields(after)).toEqual(
      adopted
        ? {
            stripeCustomerId: cus,
            stripeSubscriptionId: newsId,
            subscriptionStatus: news,
            isPremium: news === "active" || news === "trialing",
          }
        : billingFields(user),
    );
    if (!adopted) expect(after.updatedAt.getTime()).toBe(user.updatedAt.getTime());
  });

  test("news about the current one is applied even when it is not live", async () => {
    const cus = customer();
    const sub = subscription(cus, "active");
    const user = await newUser({
      stripeCustomerId: cus,
      stripeSubscriptionId: sub,
      subscriptionStatus: "active",
      isPremium: true,
    });
    fake.failRenewal(sub);
    expect((await deliver(subscriptionEvent(sub, cus))).status).toBe(200);
    expect(billingFields(await row(user.id))).toEqual({
      stripeCustomerId: cus,
      stripeSubscriptionId: sub,
      subscriptionStatus: "past_due",
      isPremium: false,
    });
  });
});

describe("what is written", () => {
  // Each row: the user row differs from Stripe's active subscription in exactly one field
  // (or none); the webhook corrects that field, and writes nothing when nothing differs.
  const rows: { name: string; stale: (cus: string, sub: string, other: string) => Partial<User>; changes: boolean }[] =
    [
      {
        name: "only the subscription id differs",
        stale: (_c, _s, other) => ({ stripeSubscriptionId: other }),
        changes: true,
      },
      { name: "only the status differs", stale: () => ({ subscriptionStatus: "trialing" }), changes: true },
      { name: "only the premium flag differs", stale: () => ({ isPremium: false }), changes: true },
      { name: "only the customer is missing", stale: () => ({ stripeCustomerId: null }), changes: true },
      { name: "nothing differs: no write at all", stale: () => ({}), changes: false },
    ];

  test.each(rows)("$name", async ({ stale, changes }) => {
    const cus = customer();
    const sub = subscription(cus, "active");
    const other = subscription(cus, "active");
    const user = await newUser({
      stripeCustomerId: cus,
      stripeSubscriptionId: sub,
      subscriptionStatus: "active",
      isPremium: true,
      ...stale(cus, sub, other),
    });
    const event = subscriptionEvent(sub, cus, { metadata: { userId: user.id } });
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true } });
    const after = await row(user.id);
    expect(billingFields(after)).toEqual({
      stripeCustomerId: cus,
      stripeSubscriptionId: sub,
      subscriptionStatus: "active",
      isPremium: true,
    });
    if (changes) expect(after.updatedAt.getTime()).toBeGreaterThan(user.updatedAt.getTime());
    else expect(after.updatedAt.getTime()).toBe(user.updatedAt.getTime());
    expect(await eventRecorded(event.id)).toBe(true);
  });

  test("a premium change is logged for operators (who, which way, Stripe's status); other writes are not", async () => {
    const cus = customer();
    const sub = subscription(cus, "active");
    const user = await newUser({ stripeCustomerId: cus });
    expect((await deliver(subscriptionEvent(sub, cus))).status).toBe(200);
    const premiumLines = () => logLines.filter((l) => l.msg === "premium changed");
    expect(premiumLines()).toEqual([
      expect.objectContaining({ level: "info", userId: user.id, isPremium: true, status: "active" }),
    ]);

    // Premium stays premium (trialing → active is not a premium change): nothing logged.
    logLines = [];
    fake.updateSubscription(sub, { status: "trialing" });
    expect((await deliver(subscriptionEvent(sub, cus))).status).toBe(200);
    expect((await row(user.id)).subscriptionStatus).toBe("trialing");
    expect(premiumLines()).toEqual([]);

    fake.cancelSubscription(sub);
    expect((await deliver(subscriptionEvent(sub, cus))).status).toBe(200);
    expect(premiumLines()).toEqual([
      expect.objectContaining({ level: "info", userId: user.id, isPremium: false, status: "canceled" }),
    ]);
  });

  test("the same instance's cached public profile shows the change at once, before any change notification", async () => {
    const cus = customer();
    const sub = subscription(cus, "active");
    const name = `wh_cache_${++counter}`;
    const user = await newUser({ stripeCustomerId: cus, username: name });
    const profile = async () => {
      const res = await api.fetch(`/api/profile/${name}`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { user: { isPremium: boolean } }).user.isPremium;
    };
    expect(await profile()).toBe(false); // now cached
    const caches = api.ctx.caches;
    const deliverNotification = caches.applyNotification.bind(caches);
    const held: string[] = [];
    caches.applyNotification = (payload: string) => {
      held.push(payload);
    };
    try {
      expect((await deliver(subscriptionEvent(sub, cus))).status).toBe(200);
      expect((await row(user.id)).isPremium).toBe(true);
      expect(await profile()).toBe(true);
    } finally {
      caches.applyNotification = deliverNotification;
      for (const payload of held) deliverNotification(payload);
    }
  });
});

describe("duplicates, a subscription gone, Stripe failing", () => {
  test("a redelivered event has no second effect and costs one statement, no Stripe call", async () => {
    const cus = customer();
    const sub = subscription(cus, "active");
    const user = await newUser({ stripeCustomerId: cus });
    const event = subscriptionEvent(sub, cus);
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true } });
    expect((await row(user.id)).isPremium).toBe(true);
    // Stripe's state moves on; the old event, delivered again, must not read it.
    fake.cancelSubscription(sub);
    const before = retrievals(sub);
    counting = true;
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    counting = false;
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain('from "stripe_events"');
    expect(retrievals(sub)).toBe(before);
    expect((await row(user.id)).isPremium).toBe(true);
  });

  test("the same event delivered twice at once is processed once", async () => {
    const cus = customer();
    const sub = subscription(cus, "active");
    const user = await newUser({ stripeCustomerId: cus });
    const event = subscriptionEvent(sub, cus);
    const before = retrievals(sub);
    const answers = await Promise.all([deliver(event), deliver(event)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.map((a) => a.body)).toContainEqual({ received: true });
    expect(answers.map((a) => a.body)).toContainEqual({ received: true, duplicate: true });
    expect(retrievals(sub) - before).toBe(1);
    expect((await row(user.id)).isPremium).toBe(true);
  });

  test("an event recorded by another delivery after this one's first look is not processed twice", async () => {
    const cus = customer();
    const sub = subscription(cus, "active");
    const user = await newUser({ stripeCustomerId: cus });
    const event = subscriptionEvent(sub, cus);
    // The other delivery records the event between this one's duplicate check and its lock:
    // the statement after the check (the user look-up) is preceded by that delivery's insert.
    let other: Promise<unknown> | undefined;
    beforeStatement = (query) => {
      expect(query).toContain('from "stripe_events"');
      beforeStatement = () => {
        other = api.ctx.database.db
          .insert(stripeEvents)
          .values({ id: event.id, type: event.type })
          .onConflictDoNothing()
          .then(() => undefined);
      };
    };
    const before = retrievals(sub);
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    await other;
    expect(other).toBeDefined();
    expect(retrievals(sub)).toBe(before);
    expect((await row(user.id)).isPremium).toBe(false);
  });

  test("a subscription that no longer exists at Stripe: 2xx, recorded, nothing changed", async () => {
    const cus = customer();
    const sub = subscription(cus, "active");
    const user = await newUser({ stripeCustomerId: cus });
    fake.subscriptions.delete(sub);
    const event = subscriptionEvent(sub, cus);
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true } });
    expect(await eventRecorded(event.id)).toBe(true);
    const after = await row(user.id);
    expect(billingFields(after)).toEqual(billingFields(user));
    expect(after.updatedAt.getTime()).toBe(user.updatedAt.getTime());
  });

  test("Stripe failing: 502 with the message, the event not recorded, and Stripe's retry processes it", async () => {
    const cus = customer();
    const sub = subscription(cus, "active");
    const user = await newUser({ stripeCustomerId: cus });
    const event = subscriptionEvent(sub, cus);
    const prefix = `GET /v1/subscriptions/${sub}`;
    fake.failures.set(prefix, { status: 400, message: "Stripe is having a bad day" });
    try {
      expect(await deliver(event)).toEqual({ status: 502, body: { message: BILLING_MESSAGES.webhookFailed } });
    } finally {
      fake.failures.delete(prefix);
    }
    expect(await eventRecorded(event.id)).toBe(false);
    expect((await row(user.id)).isPremium).toBe(false);
    expect(logLines).toContainEqual(
      expect.objectContaining({ level: "warn", msg: "stripe call failed", event: event.id, step: "webhook" }),
    );
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true } });
    expect((await row(user.id)).isPremium).toBe(true);
  });
});

describe("refusals", () => {
  const send = (headers: Record<string, string>, body = "{}") =>
    api.fetch("/api/stripe/webhook", { method: "POST", origin: null, headers, body });

  test("without a Stripe-Signature header: 400 'Missing Stripe-Signature header', nothing recorded", async () => {
    const event = subscriptionEvent("sub_x", "cus_x");
    const res = await send({ "content-type": "application/json" }, JSON.stringify(event));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: BILLING_MESSAGES.missingSignature });
    expect(await eventRecorded(event.id)).toBe(false);
  });

  test("a signature of another secret or another payload: 400 'Invalid Stripe signature', logged with the reason", async () => {
    const event = subscriptionEvent("sub_x", "cus_x");
    const payload = JSON.stringify(event);
    for (const signature of [
      await fake.sign(payload, "whsec_not_the_right_one"),
      await fake.sign(JSON.stringify({ ...event, id: "evt_other" })),
      "t=1,v1=deadbeef",
    ]) {
      const res = await send({ "stripe-signature": signature }, payload);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ message: BILLING_MESSAGES.invalidSignature });
    }
    expect(await eventRecorded(event.id)).toBe(false);
    const refusals = logLines.filter((l) => l.msg === "stripe webhook refused");
    expect(refusals).toHaveLength(3);
    for (const line of refusals) expect(String(line.reason)).toMatch(/signature/i);
  });

  test("without a webhook secret configured: 503 'Payments are not configured on this server.'", async () => {
    const config = api.ctx.config as { STRIPE_WEBHOOK_SECRET?: string };
    const secret = config.STRIPE_WEBHOOK_SECRET;
    config.STRIPE_WEBHOOK_SECRET = "";
    try {
      const event = subscriptionEvent("sub_x", "cus_x");
      const payload = JSON.stringify(event);
      const res = await send({ "stripe-signature": await fake.sign(payload) }, payload);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ message: BILLING_MESSAGES.notConfigured });
    } finally {
      config.STRIPE_WEBHOOK_SECRET = secret;
    }
  });

  test("a user who no longer exists: ignored like any unknown customer", async () => {
    const cus = customer();
    const sub = subscription(cus, "active");
    const user = await newUser({ stripeCustomerId: cus });
    await api.ctx.database.db.execute(sql`delete from users where id = ${user.id}`);
    expect(await deliver(subscriptionEvent(sub, cus, { metadata: { userId: user.id } }))).toEqual({
      status: 200,
      body: { received: true, ignored: true },
    });
  });
});
