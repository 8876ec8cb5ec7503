/**
 * The editing instance's own cache drops (issue 20). Every write that makes a cached copy
 * stale drops it on the instance that wrote before it answers (`caches.invalidate`, the
 * billing lock's drop, the session delete hook), whatever Postgres' change notification
 * does. Elsewhere the notification usually lands before the next read and hides a missing
 * drop; here this instance hears nothing from Postgres, so only its own drop can make the
 * next read fresh:
 * - in this process, `applyNotification` is switched off on the app's caches;
 * - for the public page (cached by server.ts), the built server runs on a database whose
 *   change triggers are disabled, so no notification is ever sent.
 * Each test first shows that its copy really is cached (an edit made behind the app's back
 * is not seen), then that the app's own write is.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { supplements, users, verifications } from "../../db/schema";
import { type FakeStripe, startFakeStripe } from "../fakes/stripe-server";
import { type Instance, type SharedDatabase, sharedDatabase, startInstance } from "../support/instances";
import { skipWithoutBuild } from "../support/process";
import { buildRequest, startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, uniqueName, uploadAvatar, userRow } from "../support/users";

interface Listed {
  id: number;
  name: string;
  notes: string | null;
  affiliateLink: string | null;
}
interface Public {
  user: { username: string; bio: string | null; isPremium: boolean; profileImageUrl: string | null };
  supplements: { id: number; name: string }[];
}

let fake: FakeStripe;
let api: TestApi;
let heard = 0;

beforeAll(async () => {
  fake = await startFakeStripe({ autoDeliver: false });
  api = await startApi(fake.env());
  fake.webhookUrl = `${api.url}/api/stripe/webhook`;
  // This instance hears nothing from Postgres from here on (but counts what it missed).
  api.ctx.caches.applyNotification = () => {
    heard++;
  };
});
afterAll(async () => {
  await fake?.close();
  await api?.close();
});

const call = (user: ApiUser | null, method: string, path: string, body?: Record<string, unknown> | unknown[]) =>
  api.fetch(path, { method, headers: user ? { cookie: user.cookie } : {}, body });

async function publicProfile(name: string): Promise<{ status: number; body: Public }> {
  const res = await api.fetch(`/api/profile/${name}`);
  return { status: res.status, body: (await res.json()) as Public };
}

async function list(user: ApiUser): Promise<Listed[]> {
  const res = await call(user, "GET", "/api/supplements");
  expect(res.status).toBe(200);
  return (await res.json()) as Listed[];
}

async function me(user: ApiUser): Promise<{ username: string | null; bio: string | null; isPremium: boolean }> {
  const res = await call(user, "GET", "/api/auth/user");
  expect(res.status).toBe(200);
  return (await res.json()) as { username: string | null; bio: string | null; isPremium: boolean };
}

/** A write behind the app's back: with no notification, the cached copies must not see it. */
async function backdoorBio(user: ApiUser, bio: string) {
  await api.ctx.database.db.update(users).set({ bio }).where(eq(users.id, user.id));
}

/**
 * Fills the caches of `user` (public JSON, the user row, the list) and shows that they are
 * cached: a bio written directly in the database afterwards is not seen by any of them.
 * (`pending`: a subscription awaits payment, and GET /api/auth/user asks Stripe each time,
 * so the user row is read through the list call instead.)
 */
async function primed(user: ApiUser, { pending = false } = {}): Promise<void> {
  const name = user.username as string;
  await publicProfile(name);
  await list(user);
  if (!pending) await me(user);
  const before = (await publicProfile(name)).body.user.bio;
  await backdoorBio(user, "written behind the app's back");
  expect((await publicProfile(name)).body.user.bio).toBe(before);
  if (!pending) expect((await me(user)).bio).toBe(before);
  expect(api.ctx.caches.getUser(user.id)).toBeDefined();
}

async function addSupplement(user: ApiUser, name: string, extra: Record<string, unknown> = {}): Promise<Listed> {
  const res = await call(user, "POST", "/api/supplements", {
    name,
    quantityType: "Capsule(s)",
    frequency: "daily",
    ...extra,
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Listed;
}

test("the notifications are really off for this instance (the writes below send them: none is applied)", async () => {
  const user = await createUser(api, { username: uniqueName("quiet") });
  const before = heard;
  await primed(user);
  await addSupplement(user, "Heard of");
  // PGlite delivers NOTIFY when the statement's transaction commits: give it the same
  // chance as every test below, then see that it came (and was ignored).
  const deadline = Date.now() + 2000;
  while (heard === before && Date.now() < deadline) await Bun.sleep(10);
  expect(heard).toBeGreaterThan(before);
});

describe("PUT /api/profile", () => {
  test("a rename: the old name answers 404 and the new one (cached as a 404 before) the profile, at once", async () => {
    const user = await createUser(api, { username: uniqueName("before") });
    const oldName = user.username as string;
    const newName = uniqueName("after");
    await primed(user);
    // The new name is cached too, as not found.
    expect((await publicProfile(newName)).status).toBe(404);
    expect((api.ctx.caches.responses.get(`/api/profile/${newName}`) as { status: number } | undefined)?.status).toBe(
      404,
    );

    const res = await call(user, "PUT", "/api/profile", { username: newName, bio: "renamed" });
    expect(res.status).toBe(200);
    expect((await publicProfile(oldName)).status).toBe(404);
    const renamed = await publicProfile(newName);
    expect(renamed.status).toBe(200);
    expect(renamed.body.user).toMatchObject({ username: newName, bio: "renamed" });
    expect(await me(user)).toMatchObject({ username: newName, bio: "renamed" });
  });

  test("a bio edit is on the public profile and in the session's user at once", async () => {
    const user = await createUser(api, { username: uniqueName("bio") });
    await primed(user);
    expect((await call(user, "PUT", "/api/profile", { bio: "edited" })).status).toBe(200);
    expect((await publicProfile(user.username as string)).body.user.bio).toBe("edited");
    expect((await me(user)).bio).toBe("edited");
  });

  test("an uploaded avatar, once saved, is on the public profile at once", async () => {
    const user = await createUser(api, { username: uniqueName("avatar") });
    await primed(user);
    const imageUrl = await uploadAvatar(api, user, "#3366cc");
    expect((await call(user, "PUT", "/api/profile", { profileImageUrl: imageUrl })).status).toBe(200);
    expect((await publicProfile(user.username as string)).body.user.profileImageUrl).toBe(imageUrl);
  });
});

describe("better-auth's update-user", () => {
  test("a new avatar is on the public profile and in the session's user at once", async () => {
    const user = await createUser(api, { username: uniqueName("authupd") });
    await primed(user);
    const imageUrl = await uploadAvatar(api, user, "#cc6633");
    // Server-side, as the app would call it (the endpoint is not served over HTTP: api/auth/paths.ts).
    await api.ctx.auth.api.updateUser({
      headers: new Headers({ cookie: user.cookie }),
      body: { image: imageUrl, name: "Renamed Person" },
    });
    expect((await publicProfile(user.username as string)).body.user.profileImageUrl).toBe(imageUrl);
    expect((await me(user)) as Record<string, unknown>).toMatchObject({ profileImageUrl: imageUrl });
  });
});

describe("supplements: the public profile and the owner's list are fresh at once", () => {
  const names = async (user: ApiUser) => ({
    page: (await publicProfile(user.username as string)).body.supplements.map((s) => s.name),
    list: (await list(user)).map((s) => s.name),
  });

  test("add", async () => {
    const user = await createUser(api, { username: uniqueName("add") });
    await addSupplement(user, "First");
    await primed(user);
    await addSupplement(user, "Second");
    expect(await names(user)).toEqual({ page: ["First", "Second"], list: ["First", "Second"] });
  });

  test("update", async () => {
    const user = await createUser(api, { username: uniqueName("upd") });
    const first = await addSupplement(user, "First");
    await primed(user);
    const res = await call(user, "PUT", `/api/supplements/${first.id}`, {
      name: "Renamed",
      quantityType: "Capsule(s)",
      frequency: "daily",
    });
    expect(res.status).toBe(200);
    expect(await names(user)).toEqual({ page: ["Renamed"], list: ["Renamed"] });
  });

  test("delete", async () => {
    const user = await createUser(api, { username: uniqueName("del") });
    const first = await addSupplement(user, "First");
    await addSupplement(user, "Second");
    await primed(user);
    expect((await call(user, "DELETE", `/api/supplements/${first.id}`)).status).toBe(204);
    expect(await names(user)).toEqual({ page: ["Second"], list: ["Second"] });
  });

  test("reorder", async () => {
    const user = await createUser(api, { username: uniqueName("ord") });
    const first = await addSupplement(user, "First");
    const second = await addSupplement(user, "Second");
    await primed(user);
    const res = await call(user, "PUT", "/api/supplements/reorder", { supplementIds: [second.id, first.id] });
    expect(res.status).toBe(200);
    expect(await names(user)).toEqual({ page: ["Second", "First"], list: ["Second", "First"] });
  });
});

describe("billing changes that flip premium: badge, session user and list fields at once", () => {
  async function subscribed(): Promise<{ user: ApiUser; subscriptionId: string; clientSecret: string }> {
    const user = await createUser(api, { username: uniqueName("bill") });
    // Premium fields stored (as from a premium past): hidden while free, shown once premium.
    const row = await addSupplement(user, "Creatine");
    await api.ctx.database.db
      .update(supplements)
      .set({ notes: "with breakfast", affiliateLink: "https://shop.example/creatine" })
      .where(eq(supplements.id, row.id));
    const res = await call(user, "POST", "/api/get-or-create-subscription");
    expect(res.status).toBe(200);
    const { clientSecret } = (await res.json()) as { clientSecret: string };
    const subscriptionId = (await userRow(api, user)).stripeSubscriptionId as string;
    return { user, subscriptionId, clientSecret };
  }

  async function expectPremium(user: ApiUser, premium: boolean) {
    expect((await publicProfile(user.username as string)).body.user.isPremium).toBe(premium);
    expect((await list(user)).map((s) => s.notes)).toEqual([premium ? "with breakfast" : null]);
    expect((await me(user)).isPremium).toBe(premium);
  }

  function paidEvent(subscriptionId: string): Stripe.Event {
    const event = fake.eventsOf("invoice.paid").find((e) => {
      const ref = (e.data.object as Stripe.Invoice).parent?.subscription_details?.subscription;
      return (typeof ref === "string" ? ref : ref?.id) === subscriptionId;
    });
    if (!event) throw new Error("no invoice.paid event");
    return event;
  }

  async function premiumUser() {
    const made = await subscribed();
    fake.pay(made.subscriptionId);
    expect((await fake.deliver(paidEvent(made.subscriptionId))).status).toBe(200);
    return made;
  }

  test("the webhook (invoice.paid) makes the user premium", async () => {
    const { user, subscriptionId } = await subscribed();
    await primed(user, { pending: true });
    fake.pay(subscriptionId);
    expect((await fake.deliver(paidEvent(subscriptionId))).status).toBe(200);
    // Read through the caches the webhook must have dropped (the list first: GET /api/auth/user
    // syncs with Stripe itself and would drop them again).
    expect((await list(user)).map((s) => s.notes)).toEqual(["with breakfast"]);
    expect((await publicProfile(user.username as string)).body.user.isPremium).toBe(true);
    await expectPremium(user, true);
  });

  test("the sync on GET /api/auth/user (paid, no webhook yet) makes the user premium", async () => {
    const { user, clientSecret } = await subscribed();
    await primed(user, { pending: true });
    fake.confirmPayment(clientSecret);
    expect((await me(user)).isPremium).toBe(true);
    await expectPremium(user, true);
  });

  test("cancel makes the user free", async () => {
    const { user } = await premiumUser();
    await primed(user);
    expect((await call(user, "POST", "/api/cancel-subscription")).status).toBe(200);
    await expectPremium(user, false);
  });

  test("the sync on GET /api/billing (cancelled in the portal, no webhook yet) makes the user free", async () => {
    const { user, subscriptionId } = await premiumUser();
    await primed(user);
    fake.cancelSubscription(subscriptionId);
    const res = await call(user, "GET", "/api/billing");
    expect(((await res.json()) as { isPremium: boolean }).isPremium).toBe(false);
    await expectPremium(user, false);
  });
});

describe("DELETE /api/account (issue 15)", () => {
  test("the deleted profile answers 404 and its sessions 401 at once (they were cached)", async () => {
    const user = await createUser(api, { username: uniqueName("leaving") });
    await primed(user);
    const res = await call(user, "DELETE", "/api/account", { password: user.password, confirm: user.username });
    expect(res.status).toBe(200);
    expect((await publicProfile(user.username as string)).status).toBe(404);
    expect((await call(user, "GET", "/api/auth/user")).status).toBe(401);
    expect(api.ctx.caches.getUser(user.id)).toBeUndefined();
  });
});

describe("an ended session stops working at once, however it ended", () => {
  const tokenCookie = (cookie: string) =>
    cookie
      .split("; ")
      .filter((c) => c.includes("session_token"))
      .join("; ");

  /** Signs in again: a second session of the same account. */
  async function secondSession(user: ApiUser): Promise<string> {
    const res = await api.fetch("/api/auth/sign-in/email", {
      method: "POST",
      body: { email: user.email, password: user.password },
    });
    expect(res.status).toBe(200);
    return res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
  }

  const auth = () => api.ctx.auth.api;
  const cookieHeaders = (cookie: string) => new Headers({ cookie });
  /** A server-side better-auth call, answered as a 200 when it does not throw. */
  const viaServer = async (run: () => Promise<unknown>) => {
    await run();
    return new Response(null, { status: 200 });
  };

  const ENDINGS: [string, (user: ApiUser, other: string) => Promise<Response>][] = [
    // better-auth's own endpoints, as the app calls them (not served over HTTP: api/auth/paths.ts).
    ["better-auth sign-out", (user) => viaServer(() => auth().signOut({ headers: cookieHeaders(user.cookie) }))],
    ["GET /api/logout", (user) => call(user, "GET", "/api/logout")],
    [
      "revoke-session (from the other session)",
      (user, other) =>
        viaServer(() =>
          auth().revokeSession({
            headers: cookieHeaders(other),
            body: { token: decodeURIComponent(tokenCookie(user.cookie).split("=")[1] ?? "").split(".")[0] ?? "" },
          }),
        ),
    ],
    [
      "revoke-other-sessions (from the other session)",
      (_user, other) => viaServer(() => auth().revokeOtherSessions({ headers: cookieHeaders(other) })),
    ],
    [
      "change-password with revokeOtherSessions (from the other session)",
      (user, other) =>
        viaServer(() =>
          auth().changePassword({
            headers: cookieHeaders(other),
            body: { currentPassword: user.password, newPassword: "a brand new password", revokeOtherSessions: true },
          }),
        ),
    ],
    [
      "reset-password",
      async (user) => {
        const asked = await api.fetch("/api/auth/request-password-reset", {
          method: "POST",
          body: { email: user.email, redirectTo: "/auth/reset-password" },
        });
        expect(asked.status).toBe(200);
        const [row] = await api.ctx.database.db
          .select({ identifier: verifications.identifier })
          .from(verifications)
          .where(sql`${verifications.value} = ${user.id} and ${verifications.identifier} like 'reset-password:%'`);
        const token = row?.identifier.slice("reset-password:".length) ?? "";
        return api.fetch("/api/auth/reset-password", {
          method: "POST",
          body: { token, newPassword: "a brand new password" },
        });
      },
    ],
    // Issue 15, /settings.
    [
      "DELETE /api/account/sessions/:id (Sign out, from the other session)",
      async (_user, other) => {
        const listed = (await (await api.fetch("/api/account/sessions", { headers: { cookie: other } })).json()) as {
          id: string;
          current: boolean;
        }[];
        const target = listed.find((s) => !s.current) as { id: string };
        return api.fetch(`/api/account/sessions/${target.id}`, { method: "DELETE", headers: { cookie: other } });
      },
    ],
    [
      "POST /api/account/sessions/revoke-others (from the other session)",
      (_user, other) =>
        api.fetch("/api/account/sessions/revoke-others", { method: "POST", headers: { cookie: other } }),
    ],
    [
      "POST /api/account/password signing out the other devices (from the other session)",
      (user, other) =>
        api.fetch("/api/account/password", {
          method: "POST",
          headers: { cookie: other },
          body: { currentPassword: user.password, newPassword: "a brand new password" },
        }),
    ],
    [
      "DELETE /api/account",
      (user) => call(user, "DELETE", "/api/account", { password: user.password, confirm: "DELETE" }),
    ],
  ];

  for (const [how, end] of ENDINGS) {
    test(how, async () => {
      const user = await createUser(api);
      const other = await secondSession(user);
      const whoAmI = () => call(user, "GET", "/api/auth/user");
      expect((await whoAmI()).status).toBe(200);
      // Remembered: the next request would need no session look-up.
      expect(api.ctx.caches.getSession(tokenCookie(user.cookie), 60_000)).toBe(user.id);
      const res = await end(user, other);
      expect(res.status, await res.clone().text()).toBeLessThan(400);
      expect((await whoAmI()).status).toBe(401);
      expect((await call(user, "GET", "/api/supplements")).status).toBe(401);
    });
  }
});

// ------------------------------------------------------------------ the public page

describe.skipIf(skipWithoutBuild("own-drops.test.ts: the public page"))(
  "the public page (cached by server.ts), on a database that sends no notifications",
  () => {
    let db: SharedDatabase;
    let server: Instance;
    let site: TestApi;

    beforeAll(async () => {
      db = await sharedDatabase();
      // No change notification is ever sent: only the server's own drops can refresh its pages.
      await db.withDb(async (d) => {
        for (const table of ["users", "supplements", "sessions"]) {
          await d.execute(sql.raw(`alter table ${table} disable trigger user`));
        }
      });
      server = await startInstance({ ...db.env }, { timeoutMs: 90_000 });
      site = {
        url: server.url,
        origin: server.url,
        fetch: (path, init) => fetch(buildRequest(server.url, server.url, path, init)),
      } as TestApi;
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    const send = (user: ApiUser, method: string, path: string, body?: Record<string, unknown> | unknown[]) =>
      site.fetch(path, { method, headers: { cookie: user.cookie }, body });
    const page = async (name: string) => {
      const res = await fetch(`${server.url}/${name}`);
      return { status: res.status, html: await res.text() };
    };
    const add = async (user: ApiUser, name: string) => {
      const res = await send(user, "POST", "/api/supplements", { name, quantityType: "Other", frequency: "daily" });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: number };
    };
    /** The page is cached: rendered twice with the same ETag (the second from memory). */
    async function cachedPage(name: string): Promise<string> {
      const first = await fetch(`${server.url}/${name}`);
      await first.text();
      const etag = first.headers.get("etag") ?? "";
      expect(etag).not.toBe("");
      const again = await fetch(`${server.url}/${name}`, { headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
      return etag;
    }

    test("a rename: the old page is 404 and the new one (cached as 404 before) the profile; a bio edit shows", async () => {
      const user = await createUser(site, { username: uniqueName("pg_old") });
      const oldName = user.username as string;
      const newName = uniqueName("pg_new");
      await cachedPage(oldName);
      expect((await page(newName)).status).toBe(404);
      await cachedPage(newName);
      expect((await send(user, "PUT", "/api/profile", { username: newName, bio: "renamed bio" })).status).toBe(200);
      expect((await page(oldName)).status).toBe(404);
      const renamed = await page(newName);
      expect(renamed.status).toBe(200);
      expect(renamed.html).toContain("renamed bio");
    });

    test("a saved avatar shows at once", async () => {
      const user = await createUser(site, { username: uniqueName("pg_av") });
      await cachedPage(user.username as string);
      const imageUrl = await uploadAvatar(site, user, "#cc3366");
      expect((await send(user, "PUT", "/api/profile", { profileImageUrl: imageUrl })).status).toBe(200);
      expect((await page(user.username as string)).html).toContain(imageUrl);
    });

    test("add, update, reorder and delete of supplements show at once", async () => {
      const user = await createUser(site, { username: uniqueName("pg_sup") });
      const name = user.username as string;
      const first = await add(user, "Alpha supplement");
      await cachedPage(name);
      const second = await add(user, "Beta supplement");
      expect((await page(name)).html).toContain("Beta supplement");

      await cachedPage(name);
      const update = await send(user, "PUT", `/api/supplements/${first.id}`, {
        name: "Gamma supplement",
        quantityType: "Other",
        frequency: "daily",
      });
      expect(update.status).toBe(200);
      const updated = (await page(name)).html;
      expect(updated).toContain("Gamma supplement");
      expect(updated).not.toContain("Alpha supplement");

      await cachedPage(name);
      const order = await send(user, "PUT", "/api/supplements/reorder", { supplementIds: [second.id, first.id] });
      expect(order.status).toBe(200);
      const reordered = (await page(name)).html;
      expect(reordered.indexOf("Beta supplement")).toBeLessThan(reordered.indexOf("Gamma supplement"));

      await cachedPage(name);
      expect((await send(user, "DELETE", `/api/supplements/${second.id}`)).status).toBe(204);
      expect((await page(name)).html).not.toContain("Beta supplement");
    });
  },
);
