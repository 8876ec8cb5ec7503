/**
 * Many instances: two built servers on one Postgres, as behind a load balancer. What one
 * learns, the other must know: sessions and logouts, avatars, shared rate-limit counts
 * (sign-in, uploads, the profile API), a Stripe webhook processed once and seen by both, a
 * profile edit shown on the other within 1 s. Needs Postgres: TEST_DATABASE_URL's server, or a
 * cluster of its own (skipped, saying why, where neither is possible; never in CI).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import type Stripe from "stripe";
import { type Database, openDatabase } from "../../db/client";
import { images, rateLimits, stripeEvents, users } from "../../db/schema";
import { type FakeStripe, startFakeStripe } from "../fakes/stripe-server";
import { type Instance, startInstance } from "../support/instances";
import { postgresDatabase, skipWithoutPostgres } from "../support/pg-cluster";
import { skipWithoutBuild } from "../support/process";
import { freshMinute } from "../support/windows";

const ORIGIN = "http://stacktrack.test";
const WINDOW_SECONDS = 2;

const skip =
  skipWithoutBuild("instances.test.ts: the many-instances tests") || skipWithoutPostgres("the many-instances tests");

describe.skipIf(skip)("two instances on one Postgres", () => {
  let pg: Awaited<ReturnType<typeof postgresDatabase>>;
  let a: Instance;
  let b: Instance;
  let fake: FakeStripe;
  let direct: Database;
  let ipCounter = 0;
  const nextIp = () => `10.77.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

  beforeAll(async () => {
    pg = await postgresDatabase();
    fake = await startFakeStripe({ autoDeliver: false });
    const env = {
      DATABASE_URL: pg.url,
      PUBLIC_ORIGIN: ORIGIN,
      BETTER_AUTH_SECRET: "one-secret-shared-by-every-instance-0123456789",
      RATE_LIMIT: "on",
      TRUST_PROXY: "true",
      SESSION_COOKIE_CACHE_SECONDS: String(WINDOW_SECONDS),
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

  interface Client {
    ip: string;
    cookie: string;
    email: string;
    id: string;
    username?: string;
  }

  function call(
    on: Instance,
    path: string,
    init: { method?: string; body?: unknown; cookie?: string; ip?: string; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = {
      origin: ORIGIN,
      "x-forwarded-for": init.ip ?? nextIp(),
      ...(init.headers ?? {}),
    };
    if (init.cookie) headers.cookie = init.cookie;
    let body: BodyInit | undefined;
    if (init.body instanceof FormData) body = init.body;
    else if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers["content-type"] = "application/json";
    }
    return fetch(`${on.url}${path}`, { method: init.method ?? "GET", headers, body, redirect: "manual" });
  }

  async function signUp(on: Instance, username?: string): Promise<Client> {
    const ip = nextIp();
    const email = `multi-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const res = await call(on, "/api/auth/sign-up/email", {
      method: "POST",
      ip,
      body: { email, password: "correct horse battery", name: "Multi User" },
    });
    expect(res.status).toBe(200);
    const { user } = (await res.json()) as { user: { id: string } };
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const client: Client = { ip, cookie, email, id: user.id };
    if (username) {
      const put = await call(on, "/api/profile", { method: "PUT", cookie, ip, body: { username } });
      expect(put.status).toBe(200);
      client.username = username;
    }
    return client;
  }

  // A different picture each time: the same bytes would be the same image (its id is the hash
  // of its owner and its bytes), which a test of an avatar's replacement must not upload twice.
  let pictures = 0;
  const png = () => {
    const n = pictures++;
    return sharp({
      create: { width: 64, height: 64, channels: 3, background: { r: n % 256, g: (n >> 8) % 256, b: 30 } },
    })
      .png()
      .toBuffer();
  };

  async function upload(on: Instance, who: Client) {
    const form = new FormData();
    form.append("profileImage", new File([await png()], "a.png", { type: "image/png" }));
    return call(on, "/api/upload/profile-image", { method: "POST", cookie: who.cookie, ip: who.ip, body: form });
  }

  test("a session made on A works on B (API and page); a logout on A ends it on B within the window", async () => {
    const u = await signUp(a, `multi_${crypto.randomUUID().slice(0, 6)}`);
    const onB = await call(b, "/api/auth/user", { cookie: u.cookie });
    expect(onB.status).toBe(200);
    expect(((await onB.json()) as { id: string }).id).toBe(u.id);
    const page = await call(b, "/dashboard", { cookie: u.cookie });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(u.username as string);

    expect((await call(a, "/api/logout", { cookie: u.cookie })).status).toBe(302);
    const loggedOut = performance.now();
    let status = 200;
    while (status === 200 && performance.now() - loggedOut < (WINDOW_SECONDS + 3) * 1000) {
      await Bun.sleep(100);
      status = (await call(b, "/api/auth/user", { cookie: u.cookie })).status;
    }
    expect(status).toBe(401);
    expect((performance.now() - loggedOut) / 1000).toBeLessThan(WINDOW_SECONDS + 1);
  }, 20_000);

  test("an avatar uploaded to A is served by B, the same bytes, with immutable caching", async () => {
    const u = await signUp(a);
    const up = await upload(a, u);
    expect(up.status).toBe(201);
    const { imageUrl } = (await up.json()) as { imageUrl: string };
    const [fromA, fromB] = await Promise.all([fetch(`${a.url}${imageUrl}`), fetch(`${b.url}${imageUrl}`)]);
    expect(fromB.status).toBe(200);
    expect(fromB.headers.get("content-type")).toBe("image/webp");
    expect(fromB.headers.get("cache-control")).toContain("immutable");
    expect(new Uint8Array(await fromB.arrayBuffer())).toEqual(new Uint8Array(await fromA.arrayBuffer()));
  });

  test("issue 17: an avatar B holds in memory stops being served there at once when A deletes it", async () => {
    const urlOf = async (res: Response) => ((await res.json()) as { imageUrl: string }).imageUrl;
    const ways = {
      // The user row changes too (B also hears `u`).
      replaced: async (u: Client) => urlOf(await upload(a, u)),
      cleared: async () => "",
      // Only the image goes: an upload never saved as the avatar, cleaned up an hour later by the next upload.
      "cleaned up": async (u: Client, first: string) => {
        const id = first.slice("/images/".length, -".webp".length);
        await direct.db
          .update(images)
          .set({ createdAt: new Date(Date.now() - 2 * 60 * 60 * 1000) })
          .where(eq(images.id, id));
        expect((await upload(a, u)).status).toBe(201);
        return undefined;
      },
    };
    for (const [way, remove] of Object.entries(ways)) {
      const u = await signUp(a, `img_${crypto.randomUUID().slice(0, 6)}`);
      const first = await urlOf(await upload(a, u));
      const setAvatar = (url: string) =>
        call(a, "/api/profile", { method: "PUT", cookie: u.cookie, ip: u.ip, body: { profileImageUrl: url } });
      if (way !== "cleaned up") expect((await setAvatar(first)).status).toBe(200);
      // B reads it once and then holds it.
      for (let i = 0; i < 2; i++) expect((await fetch(`${b.url}${first}`)).status).toBe(200);

      const next = await remove(u, first);
      if (next !== undefined) expect((await setAvatar(next)).status).toBe(200);
      expect((await fetch(`${a.url}${first}`)).status).toBe(404);
      const took = await within(1000, async () => (await fetch(`${b.url}${first}`)).status === 404);
      expect({ way, goneOnB: took !== null }).toEqual({ way, goneOnB: true });
    }
  });

  test("sign-in limits (10 a minute per address and per account) count across instances: 5 on A + 5 on B, then 429 on either", async () => {
    const u = await signUp(a);
    const v = await signUp(b);
    const ip = nextIp();
    await freshMinute(10);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await call(i % 2 === 0 ? a : b, "/api/auth/sign-in/email", {
        method: "POST",
        ip,
        body: { email: u.email, password: "wrong password here" },
      });
      statuses.push(res.status);
    }
    expect(statuses.every((s) => s === 401)).toBe(true);
    for (const on of [a, b]) {
      const res = await call(on, "/api/auth/sign-in/email", {
        method: "POST",
        ip,
        body: { email: u.email, password: "correct horse battery" },
      });
      expect(res.status).toBe(429);
    }
    // The account's own budget is spent too (issue 36: guessing from another address buys nothing)…
    const sameAccount = await call(b, "/api/auth/sign-in/email", {
      method: "POST",
      body: { email: u.email, password: "correct horse battery" },
    });
    expect(sameAccount.status).toBe(429);
    // …while another account from another address is not affected.
    const other = await call(a, "/api/auth/sign-in/email", {
      method: "POST",
      body: { email: v.email, password: "correct horse battery" },
    });
    expect(other.status).toBe(200);
  });

  test("upload limit (10 a minute per user) counts across instances", async () => {
    const u = await signUp(a);
    await freshMinute(10);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await upload(i % 2 === 0 ? a : b, u)).status);
    expect(statuses.slice(0, 10).every((s) => s === 201)).toBe(true);
    expect(statuses[10]).toBe(429);
  }, 30_000);

  test("public profile API limit (300 a minute per address, counted per instance and flushed each second) holds across instances", async () => {
    const owner = await signUp(a, `limit_${crypto.randomUUID().slice(0, 6)}`);
    const ip = nextIp();
    await freshMinute(20);
    const hit = (on: Instance) =>
      call(on, `/api/profile/${owner.username}`, { ip }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      });
    /** Waits until the instances' flushes have brought the shared counter to `count`. */
    const flushedTo = async (count: number) => {
      const deadline = performance.now() + 5000;
      let stored = 0;
      while (performance.now() < deadline) {
        const [row] = await direct.db
          .select()
          .from(rateLimits)
          .where(eq(rateLimits.key, `profile:${ip}`));
        stored = row?.count ?? 0;
        if (stored >= count) return;
        await Bun.sleep(50);
      }
      throw new Error(`the shared counter stayed at ${stored}, below ${count}`);
    };
    for (let i = 0; i < 200; i++) expect(await hit(a)).toBe(200);
    await flushedTo(200); // A has flushed its 200
    let onB = 0;
    let refused = false;
    while (onB < 300 && !refused) {
      const status = await hit(b);
      if (status === 429) refused = true;
      else {
        expect(status).toBe(200);
        onB++;
      }
      // B has flushed its 50, and learned the shared total from that same statement.
      if (onB === 50) await flushedTo(250);
    }
    expect(refused).toBe(true);
    // Alone, B would have allowed 300; shared, about 100 (plus at most a second's worth).
    expect(onB).toBeLessThanOrEqual(100 + 10);
  }, 45_000);

  test("a webhook received by B is seen by A at once (A's cached profile drops), and is processed once across both", async () => {
    const u = await signUp(a, `premium_${crypto.randomUUID().slice(0, 6)}`);
    // A caches the public profile (not premium yet).
    const profileOnA = async () =>
      ((await (await call(a, `/api/profile/${u.username}`)).json()) as { user: { isPremium: boolean } }).user.isPremium;
    expect(await profileOnA()).toBe(false);
    expect(await profileOnA()).toBe(false);

    const sub = await call(a, "/api/get-or-create-subscription", { method: "POST", cookie: u.cookie, ip: u.ip });
    expect(sub.status).toBe(200);
    const [row] = await direct.db.select().from(users).where(eq(users.id, u.id));
    const subscriptionId = row?.stripeSubscriptionId as string;
    expect(subscriptionId).toBeTruthy();
    fake.pay(subscriptionId);
    const [paid] = fake.eventsOf("invoice.paid").filter((e) => {
      const ref = (e.data.object as Stripe.Invoice).parent?.subscription_details?.subscription;
      return (typeof ref === "string" ? ref : ref?.id) === subscriptionId;
    });
    expect(paid).toBeDefined();
    const [before] = await direct.db.select().from(users).where(eq(users.id, u.id));
    expect(before?.isPremium).toBe(false); // nothing but the webhook will flip it

    const delivered = await fake.deliver(paid as Stripe.Event, { url: `${b.url}/api/stripe/webhook` });
    expect(delivered.status).toBe(200);
    const at = performance.now();
    let premium = await profileOnA();
    while (!premium && performance.now() - at < 1000) {
      await Bun.sleep(25);
      premium = await profileOnA();
    }
    expect(premium).toBe(true);
    expect(performance.now() - at).toBeLessThan(1000);

    // Stripe retries the same event at A: recognised as already processed.
    const again = await fake.deliver(paid as Stripe.Event, { url: `${a.url}/api/stripe/webhook` });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body)).toMatchObject({ duplicate: true });
    expect(
      await direct.db
        .select()
        .from(stripeEvents)
        .where(eq(stripeEvents.id, (paid as Stripe.Event).id)),
    ).toHaveLength(1);
  }, 30_000);

  test("a profile edit on A shows on B within 1 s (B's cached JSON and page both drop)", async () => {
    const u = await signUp(a, `edit_${crypto.randomUUID().slice(0, 6)}`);
    const bioOnB = async () =>
      ((await (await call(b, `/api/profile/${u.username}`)).json()) as { user: { bio: string | null } }).user.bio;
    const pageOnB = async () => (await fetch(`${b.url}/${u.username}`)).text();
    // Warm B's caches.
    expect(await bioOnB()).toBeNull();
    await pageOnB();
    await pageOnB();

    const bio = `edited on A ${crypto.randomUUID().slice(0, 8)}`;
    const put = await call(a, "/api/profile", { method: "PUT", cookie: u.cookie, ip: u.ip, body: { bio } });
    expect(put.status).toBe(200);
    const at = performance.now();
    let seen = false;
    while (!seen && performance.now() - at < 1000) {
      seen = (await bioOnB()) === bio && (await pageOnB()).includes(bio);
      if (!seen) await Bun.sleep(20);
    }
    expect(seen).toBe(true);
    expect(performance.now() - at).toBeLessThan(1000);
  });
  /** Polls `check` until it is true or `ms` pass; the time it took, or null when it never was. */
  async function within(ms: number, check: () => Promise<boolean>): Promise<number | null> {
    const at = performance.now();
    while (performance.now() - at < ms) {
      if (await check()) return performance.now() - at;
      await Bun.sleep(20);
    }
    return null;
  }

  test("issue 15: a session signed out from /settings on A stops on B at once (B had verified it)", async () => {
    const u = await signUp(a);
    const second = await call(b, "/api/auth/sign-in/email", {
      method: "POST",
      body: { email: u.email, password: "correct horse battery" },
    });
    expect(second.status).toBe(200);
    const phone = second.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    expect((await call(b, "/api/auth/user", { cookie: phone })).status).toBe(200); // remembered by B now
    const list = (await (await call(a, "/api/account/sessions", { cookie: u.cookie })).json()) as {
      id: string;
      current: boolean;
    }[];
    const target = list.find((s) => !s.current) as { id: string };
    expect((await call(a, `/api/account/sessions/${target.id}`, { method: "DELETE", cookie: u.cookie })).status).toBe(
      200,
    );
    const took = await within(1000, async () => (await call(b, "/api/auth/user", { cookie: phone })).status === 401);
    expect(took).not.toBeNull();
    expect((await call(b, "/api/auth/user", { cookie: u.cookie })).status).toBe(200);
  });

  test("issue 15: an account deleted on A is gone on B at once: profile (API and page), sessions, avatar", async () => {
    const u = await signUp(a, `del_${crypto.randomUUID().slice(0, 6)}`);
    const up = await upload(a, u);
    expect(up.status).toBe(201);
    const avatar = ((await up.json()) as { imageUrl: string }).imageUrl;
    expect(
      (await call(a, "/api/profile", { method: "PUT", cookie: u.cookie, ip: u.ip, body: { profileImageUrl: avatar } }))
        .status,
    ).toBe(200);
    // Warm B: the profile JSON and page, the session, the avatar.
    expect((await call(b, `/api/profile/${u.username}`)).status).toBe(200);
    expect((await fetch(`${b.url}/${u.username}`)).status).toBe(200);
    expect((await fetch(`${b.url}/${u.username}`)).status).toBe(200);
    expect((await call(b, "/api/auth/user", { cookie: u.cookie })).status).toBe(200);
    expect((await fetch(`${b.url}${avatar}`)).status).toBe(200);

    const res = await call(a, "/api/account", {
      method: "DELETE",
      cookie: u.cookie,
      ip: u.ip,
      body: { password: "correct horse battery", confirm: u.username },
    });
    expect(res.status).toBe(200);
    const took = await within(1000, async () => {
      const [api, page, session, image] = await Promise.all([
        call(b, `/api/profile/${u.username}`),
        fetch(`${b.url}/${u.username}`),
        call(b, "/api/auth/user", { cookie: u.cookie }),
        fetch(`${b.url}${avatar}`),
      ]);
      return api.status === 404 && page.status === 404 && session.status === 401 && image.status === 404;
    });
    expect(took).not.toBeNull();
    // And the name is held on either instance.
    const other = await signUp(b);
    const taken = await call(b, "/api/profile", {
      method: "PUT",
      cookie: other.cookie,
      ip: other.ip,
      body: { username: u.username },
    });
    expect(taken.status).toBe(409);
  });
});
