/**
 * Issue 14/17: each way a `/go/{id}` link stops or starts showing reaches every instance's
 * memory (server/cache.ts) through the change notifications. Two built servers on one
 * Postgres: B has answered the link, the change is made on A (or by the billing webhook, or in
 * Postgres directly), and B follows within a second: premium ends or starts, the switch off or
 * on, the link removed, added or edited, the supplement or the account deleted, a new supplement
 * under an id B had answered 404 for. Needs Postgres (TEST_DATABASE_URL or its own cluster) and
 * the build.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { type Database, openDatabase } from "../../db/client";
import { users } from "../../db/schema";
import { type FakeStripe, startFakeStripe } from "../fakes/stripe-server";
import { type Instance, startInstance } from "../support/instances";
import { postgresDatabase, skipWithoutPostgres } from "../support/pg-cluster";
import { skipWithoutBuild } from "../support/process";

const ORIGIN = "http://stacktrack.test";
const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
const PASSWORD = "correct horse battery";
const LINK = "https://shop.example/creatine?ref=go";

const skip =
  skipWithoutBuild("go-links-instances.test.ts: /go from memory on two instances") ||
  skipWithoutPostgres("go-links-instances.test.ts: /go from memory on two instances");

interface Owner {
  id: string;
  cookie: string;
  username: string;
}

describe.skipIf(skip)("/go from memory: every change reaches the other instance", () => {
  let pg: Awaited<ReturnType<typeof postgresDatabase>>;
  let fake: FakeStripe;
  let a: Instance;
  let b: Instance;
  let direct: Database;

  beforeAll(async () => {
    pg = await postgresDatabase();
    fake = await startFakeStripe({ autoDeliver: false });
    const env = {
      DATABASE_URL: pg.url,
      PUBLIC_ORIGIN: ORIGIN,
      BETTER_AUTH_SECRET: "one-secret-shared-by-every-instance-0123456789",
      ...fake.env(),
    };
    [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
    direct = await openDatabase({ url: pg.url, dataDir: ":memory:", poolSize: 2 });
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await fake?.close();
    await direct?.close();
    await pg?.release();
  });

  const call = (
    on: Instance,
    path: string,
    init: { method?: string; cookie?: string; body?: unknown } = {},
  ): Promise<Response> =>
    fetch(`${on.url}${path}`, {
      method: init.method ?? "GET",
      redirect: "manual",
      headers: {
        origin: ORIGIN,
        "user-agent": BROWSER_UA,
        ...(init.cookie ? { cookie: init.cookie } : {}),
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });

  async function signUp(): Promise<Owner> {
    const username = `go_${crypto.randomUUID().slice(0, 8)}`;
    const res = await call(a, "/api/auth/sign-up/email", {
      method: "POST",
      body: { email: `${username}@example.com`, password: PASSWORD, name: "Go Owner" },
    });
    expect(res.status).toBe(200);
    const id = ((await res.json()) as { user: { id: string } }).user.id;
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0] ?? "")
      .join("; ");
    expect((await call(a, "/api/profile", { method: "PUT", cookie, body: { username } })).status).toBe(200);
    return { id, cookie, username };
  }

  const setPremium = (owner: Owner, premium: boolean) =>
    direct.db.update(users).set({ isPremium: premium }).where(eq(users.id, owner.id));

  const supplementBody = (affiliateLink: string | null) => ({
    name: "Creatine",
    quantityType: "Capsule(s)",
    frequency: "daily",
    affiliateLink,
  });

  async function addSupplement(owner: Owner, affiliateLink: string | null = LINK): Promise<number> {
    const res = await call(a, "/api/supplements", {
      method: "POST",
      cookie: owner.cookie,
      body: supplementBody(affiliateLink),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: number }).id;
  }

  async function ok(res: Promise<Response>, status = 200) {
    const answer = await res;
    expect(answer.status).toBe(status);
  }

  /** Premium through the billing webhook: a subscription, paid, invoice.paid delivered to A. */
  async function premiumByWebhook(owner: Owner): Promise<string> {
    const sub = await call(a, "/api/get-or-create-subscription", { method: "POST", cookie: owner.cookie });
    expect(sub.status).toBe(200);
    const [row] = await direct.db.select().from(users).where(eq(users.id, owner.id));
    const subscriptionId = row?.stripeSubscriptionId as string;
    expect(subscriptionId).toBeTruthy();
    fake.pay(subscriptionId);
    const [paid] = fake.eventsOf("invoice.paid").filter((e) => {
      const ref = (e.data.object as Stripe.Invoice).parent?.subscription_details?.subscription;
      return (typeof ref === "string" ? ref : ref?.id) === subscriptionId;
    });
    expect((await fake.deliver(paid as Stripe.Event, { url: `${a.url}/api/stripe/webhook` })).status).toBe(200);
    return subscriptionId;
  }

  /** B's answer to /go/{id}: its status and Location. */
  const onB = async (id: number) => {
    const res = await call(b, `/go/${id}`);
    await res.arrayBuffer();
    return { status: res.status, location: res.headers.get("location") };
  };

  /** Polls B until it answers `want`; how long that took (ms), or null when not within 1 s. */
  async function bFollows(id: number, want: { status: number; location: string | null }): Promise<number | null> {
    const at = performance.now();
    while (performance.now() - at < 1000) {
      const got = await onB(id);
      if (got.status === want.status && got.location === want.location) return performance.now() - at;
      await Bun.sleep(10);
    }
    return null;
  }

  const NOT_FOUND = { status: 404, location: null };

  test("a click answered from memory (no session cookie) carries exactly the headers of the first, read through the API", async () => {
    const owner = await signUp();
    await setPremium(owner, true);
    const id = await addSupplement(owner);
    const headersOf = async () => {
      const res = await call(b, `/go/${id}`);
      expect(res.status).toBe(302);
      const all = [...res.headers.entries()].filter(([k]) => k !== "date");
      return Object.fromEntries(all);
    };
    const first = await headersOf();
    expect(first).toMatchObject({
      location: LINK,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
    });
    expect(first["content-security-policy"]).toContain("default-src 'none'");
    for (let i = 0; i < 3; i++) expect(await headersOf()).toEqual(first);
  });

  const STOPS: [string, (owner: Owner, id: number) => Promise<void>][] = [
    [
      "premium ends: customer.subscription.deleted through the billing webhook (on A)",
      async (owner) => {
        const [row] = await direct.db.select().from(users).where(eq(users.id, owner.id));
        const subscriptionId = row?.stripeSubscriptionId as string;
        fake.cancelSubscription(subscriptionId);
        const [deleted] = fake.eventsOf("customer.subscription.deleted", subscriptionId);
        expect((await fake.deliver(deleted as Stripe.Event, { url: `${a.url}/api/stripe/webhook` })).status).toBe(200);
        const [after] = await direct.db.select().from(users).where(eq(users.id, owner.id));
        expect(after?.isPremium).toBe(false);
      },
    ],
    [
      "the owner turns 'Show affiliate links' off (on A)",
      (owner) =>
        ok(call(a, "/api/profile", { method: "PUT", cookie: owner.cookie, body: { showAffiliateLinks: false } })),
    ],
    [
      "the link is removed from the supplement (on A)",
      (owner, id) =>
        ok(call(a, `/api/supplements/${id}`, { method: "PUT", cookie: owner.cookie, body: supplementBody(null) })),
    ],
    [
      "the supplement is deleted (on A)",
      (owner, id) => ok(call(a, `/api/supplements/${id}`, { method: "DELETE", cookie: owner.cookie }), 204),
    ],
    [
      "the account is deleted (on A)",
      (owner) =>
        ok(
          call(a, "/api/account", {
            method: "DELETE",
            cookie: owner.cookie,
            body: { password: PASSWORD, confirm: owner.username },
          }),
        ),
    ],
    ["premium ends in Postgres itself (no instance involved)", (owner) => setPremium(owner, false).then(() => {})],
  ];

  test.each(STOPS)(
    "a warm /go on B answers 404 right after: %s",
    async (what, change) => {
      const owner = await signUp();
      if (what.includes("webhook")) await premiumByWebhook(owner);
      else await setPremium(owner, true);
      const id = await addSupplement(owner);
      for (let i = 0; i < 3; i++) expect(await onB(id)).toEqual({ status: 302, location: LINK }); // B holds it now
      await change(owner, id);
      const took = await bFollows(id, NOT_FOUND);
      expect(took, `${what}: B still redirected 1 s after the change`).not.toBeNull();
      expect((await call(a, `/go/${id}`)).status).toBe(404);
    },
    30_000,
  );

  const REDIRECT = { status: 302, location: LINK };

  const STARTS: [string, (owner: Owner) => Promise<{ id: number; want: { status: number; location: string } }>][] = [
    [
      "premium starts: invoice.paid through the billing webhook (on A)",
      async (owner) => {
        // A lapsed member: the link stored while premium, no longer shown.
        await setPremium(owner, true);
        const id = await addSupplement(owner);
        await setPremium(owner, false);
        expect(await bFollows(id, NOT_FOUND)).not.toBeNull();
        await premiumByWebhook(owner);
        return { id, want: REDIRECT };
      },
    ],
    [
      "the owner turns 'Show affiliate links' back on (on A)",
      async (owner) => {
        await setPremium(owner, true);
        await ok(call(a, "/api/profile", { method: "PUT", cookie: owner.cookie, body: { showAffiliateLinks: false } }));
        const id = await addSupplement(owner);
        expect(await onB(id)).toEqual(NOT_FOUND);
        await ok(call(a, "/api/profile", { method: "PUT", cookie: owner.cookie, body: { showAffiliateLinks: true } }));
        return { id, want: REDIRECT };
      },
    ],
    [
      "a link is added to a supplement that had none (on A)",
      async (owner) => {
        await setPremium(owner, true);
        const id = await addSupplement(owner, null);
        expect(await onB(id)).toEqual(NOT_FOUND);
        await ok(
          call(a, `/api/supplements/${id}`, { method: "PUT", cookie: owner.cookie, body: supplementBody(LINK) }),
        );
        return { id, want: REDIRECT };
      },
    ],
    [
      "the link is edited to another URL (on A)",
      async (owner) => {
        await setPremium(owner, true);
        const id = await addSupplement(owner);
        expect(await onB(id)).toEqual(REDIRECT);
        const other = "https://other.example/creatine";
        await ok(
          call(a, `/api/supplements/${id}`, { method: "PUT", cookie: owner.cookie, body: supplementBody(other) }),
        );
        return { id, want: { status: 302, location: other } };
      },
    ],
    [
      "a new supplement under an id B had answered 404 for (on A)",
      async (owner) => {
        await setPremium(owner, true);
        const rows = await direct.db.execute(sql`select last_value + 1 as next from supplements_id_seq`);
        const next = Number(
          ((Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows)[0] as { next: string }).next,
        );
        expect(await onB(next)).toEqual(NOT_FOUND);
        expect(await onB(next)).toEqual(NOT_FOUND);
        const id = await addSupplement(owner);
        expect(id).toBe(next);
        return { id, want: REDIRECT };
      },
    ],
  ];

  test.each(STARTS)(
    "a warm 404 on B becomes the redirect right after: %s",
    async (what, change) => {
      const owner = await signUp();
      const { id, want } = await change(owner);
      const took = await bFollows(id, want);
      expect(took, `${what}: B still answered the old way 1 s after the change`).not.toBeNull();
    },
    30_000,
  );
});
