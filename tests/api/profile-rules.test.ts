/**
 * api/profile/routes.ts, its rules one by one over HTTP on one API: the public profile's exact
 * contents and the limit on its API, and what PUT /api/profile stores for each field.
 * Small and fast on purpose: StrykerJS runs it once per mutant of the module (docs/mutation-testing.md).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { LIMITS } from "../../api/lib/rate-limit";
import { images, users } from "../../db/schema";
import { MESSAGES } from "../../src/lib/account-messages";
import { migratedDatabase } from "../support/pglite-template";
import { expectConsoleError } from "../support/preload";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, insertSupplements, makePremium, userRow } from "../support/users";

let api: TestApi;
let owner: ApiUser;
let editor: ApiUser;

beforeAll(async () => {
  // TRUST_PROXY: the limit test below reads as a client address of its own (one forwarded entry).
  api = await startApi({ TRUST_PROXY: "true" }, { database: await migratedDatabase() });
  // The profile limiter is made (once per app) on the first public read, from this setting.
  (api.ctx.config as { RATE_LIMIT: string }).RATE_LIMIT = "on";
  [owner, editor] = await Promise.all([createUser(api, { username: "Owner_One" }), createUser(api)]);
});

afterAll(async () => {
  await api?.close();
});

/**
 * Holds back this instance's change notifications (from the database) until the returned
 * function is called: what a read then sees is the editing request's own cache drop.
 */
function holdNotifications(): () => void {
  const caches = api.ctx.caches;
  const deliver = caches.applyNotification.bind(caches);
  const held: string[] = [];
  caches.applyNotification = (payload: string) => {
    held.push(payload);
  };
  return () => {
    caches.applyNotification = deliver;
    for (const payload of held) deliver(payload);
  };
}

const put = (user: ApiUser, body: Record<string, unknown>) =>
  api.fetch("/api/profile", { method: "PUT", headers: { cookie: user.cookie }, body });

describe("the public profile API's limit", () => {
  test("one address gets exactly LIMITS.publicProfile.max reads a window, then 429 with Retry-After", async () => {
    const { max } = LIMITS.publicProfile;
    const read = (address: string) =>
      api.fetch("/api/profile/nobody_here", { headers: { "x-forwarded-for": address } });
    const statuses: number[] = [];
    for (let i = 0; i < max; i++) statuses.push((await read("203.0.113.9")).status);
    expect(statuses.filter((s) => s !== 404)).toEqual([]);
    const over = await read("203.0.113.9");
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ message: "Too many requests. Please wait a moment and try again." });
    // Another address is counted apart.
    expect((await read("203.0.113.10")).status).toBe(404);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // The counts reach the shared table under the "profile:" prefix (flushed once a second).
    const deadline = Date.now() + 10_000;
    let keys: string[] = [];
    while (keys.length === 0) {
      if (Date.now() > deadline) throw new Error("the profile limiter never flushed");
      await new Promise<void>((resolve) => setImmediate(resolve));
      // Only the profile limiter's keys: the sign-ups above spent their own budget (issue 36).
      const result = (await api.ctx.database.db.execute(
        sql`select key from rate_limits where key like 'profile:%'`,
      )) as unknown;
      const rows = (Array.isArray(result) ? result : (result as { rows: { key: string }[] }).rows) as { key: string }[];
      keys = rows.map((r) => r.key);
    }
    expect(keys.sort()).toEqual(["profile:203.0.113.10", "profile:203.0.113.9"]);
  });
});

describe("GET /api/profile/:username", () => {
  test("exactly the public fields and the supplement list, in order, for any case of the name", async () => {
    await makePremium(api, owner);
    await api.ctx.database.db
      .update(users)
      .set({ bio: "Hi", websiteUrl: "https://me.example", stripeCustomerId: "cus_secret" })
      .where(eq(users.id, owner.id));
    const seeded = await insertSupplements(api, owner, 3);
    // Two in one place: the lower id first.
    await api.ctx.database.db.execute(
      sql`update supplements set sort_order = 0, notes = 'private', affiliate_link = 'https://aff.example' where user_id = ${owner.id}`,
    );
    api.ctx.caches.invalidate({ userId: owner.id, names: ["Owner_One"] });
    for (const name of ["Owner_One", "owner_one", "OWNER_ONE"]) {
      const res = await api.fetch(`/api/profile/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(await res.json()).toEqual({
        user: {
          username: "Owner_One",
          bio: "Hi",
          profileImageUrl: null,
          isPremium: true,
          instagramUrl: null,
          twitterUrl: null,
          facebookUrl: null,
          youtubeUrl: null,
          tiktokUrl: null,
          linkedinUrl: null,
          etsyUrl: null,
          websiteUrl: "https://me.example",
        },
        // Issue 14: a premium owner's link is the /go URL (never the affiliate URL); notes are off by default.
        supplements: seeded.map((s) => ({
          id: s.id,
          name: s.name,
          quantityType: s.quantityType,
          frequency: s.frequency,
          productUrl: `${api.url}/go/${s.id}`,
        })),
      });
    }
  });

  test.each(["no_such_user", "ab", "bad-name", "x".repeat(51), "api", "dashboard"])("%p: 404", async (name) => {
    const res = await api.fetch(`/api/profile/${name}`);
    expect(res.status).toBe(404);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(await res.json()).toEqual({ message: "Profile not found" });
  });

  test("an edit shows in the next read of the same instance, under the old name and the new", async () => {
    const release = holdNotifications();
    try {
      const read = (name: string) => api.fetch(`/api/profile/${name}`);
      const first = await read("Owner_One");
      expect(first.status).toBe(200);
      const etag = first.headers.get("etag") ?? "";
      expect((await api.fetch("/api/profile/Owner_One", { headers: { "if-none-match": etag } })).status).toBe(304);
      expect((await put(owner, { bio: "Changed" })).status).toBe(200);
      expect(((await (await read("Owner_One")).json()) as { user: { bio: string } }).user.bio).toBe("Changed");
      // The new name was read (and its 404 kept) before the rename.
      expect((await read("Owner_Two")).status).toBe(404);
      expect((await put(owner, { username: "Owner_Two" })).status).toBe(200);
      expect((await read("Owner_One")).status).toBe(404);
      expect((await read("Owner_Two")).status).toBe(200);
      expect((await put(owner, { username: "Owner_One" })).status).toBe(200);
      expect((await read("Owner_One")).status).toBe(200);
      expect((await read("Owner_Two")).status).toBe(404);
      // A change to the list (dropped by user id only) shows on the public profile too.
      const before = ((await (await read("Owner_One")).json()) as { supplements: unknown[] }).supplements.length;
      const added = await api.fetch("/api/supplements", {
        method: "POST",
        headers: { cookie: owner.cookie },
        body: { name: "New one", quantityType: "Other", frequency: "Daily" },
      });
      expect(added.status).toBe(201);
      const after = ((await (await read("Owner_One")).json()) as { supplements: unknown[] }).supplements;
      expect(after).toHaveLength(before + 1);
    } finally {
      release();
    }
  });

  test("a stored name that is reserved or ill-formed (older rules) is not public", async () => {
    const legacy = await createUser(api);
    for (const username of ["dashboard", "bad-name"]) {
      await api.ctx.database.db.update(users).set({ username }).where(eq(users.id, legacy.id));
      const res = await api.fetch(`/api/profile/${username}`);
      expect(res.status).toBe(404);
    }
    await api.ctx.database.db.update(users).set({ username: null }).where(eq(users.id, legacy.id));
  });
});

describe("PUT /api/profile", () => {
  test("an empty body changes nothing and answers the user", async () => {
    const before = await userRow(api, editor);
    const res = await put(editor, {});
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: string; updatedAt: string };
    expect(body.id).toBe(editor.id);
    expect(body.updatedAt).toBe(before.updatedAt.toISOString());
    expect((await userRow(api, editor)).updatedAt.toISOString()).toBe(before.updatedAt.toISOString());
  });

  test("each field is stored; empty strings (and a blank bio) clear to null", async () => {
    const set = {
      username: "Editor_1",
      bio: "About me",
      instagramUrl: "https://instagram.com/e",
      twitterUrl: "https://x.com/e",
      facebookUrl: "https://facebook.com/e",
      youtubeUrl: "https://youtube.com/e",
      tiktokUrl: "https://tiktok.com/e",
      linkedinUrl: "https://linkedin.com/in/e",
      etsyUrl: "https://etsy.com/e",
      websiteUrl: "https://e.example",
    };
    const before = await userRow(api, editor);
    const res = await put(editor, set);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject(set);
    const row = await userRow(api, editor);
    expect(row).toMatchObject(set);
    expect(row.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    expect(body.updatedAt).toBe(row.updatedAt.toISOString());

    const clear = Object.fromEntries(
      Object.keys(set)
        .filter((k) => k !== "username")
        .map((k) => [k, ""]),
    );
    expect((await put(editor, clear)).status).toBe(200);
    const cleared = await userRow(api, editor);
    for (const key of Object.keys(clear)) expect(cleared[key as keyof typeof cleared]).toBeNull();
    expect(cleared.username).toBe("Editor_1");

    expect((await put(editor, { bio: "   " })).status).toBe(200);
    expect((await userRow(api, editor)).bio).toBeNull();
    expect((await put(editor, { bio: " spaced " })).status).toBe(200);
    expect((await userRow(api, editor)).bio).toBe(" spaced ");
  });

  test("a reserved or taken username is a 409 with the spec's message, in any case", async () => {
    const taken = { message: "Username is already taken", errors: { username: ["Username is already taken"] } };
    for (const username of ["admin", "API", "Dashboard", "owner_one", "OWNER_ONE"]) {
      const res = await put(editor, { username });
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual(taken);
    }
    expect((await userRow(api, editor)).username).toBe("Editor_1");
  });

  test("a changed avatar removes the old stored image; an unchanged one keeps it", async () => {
    const insertImage = async (id: string) =>
      api.ctx.database.db.insert(images).values({
        id,
        userId: editor.id,
        contentType: "image/webp",
        data: new Uint8Array([1, 2, 3]),
        byteSize: 3,
      });
    const stored = async () =>
      (await api.ctx.database.db.select({ id: images.id }).from(images).where(eq(images.userId, editor.id)))
        .map((r) => r.id)
        .sort();
    await insertImage("aaaaaaaaaaaaaaaaaaaa");
    await insertImage("bbbbbbbbbbbbbbbbbbbb");
    expect((await put(editor, { profileImageUrl: "/images/aaaaaaaaaaaaaaaaaaaa.webp" })).status).toBe(200);
    expect(await stored()).toEqual(["aaaaaaaaaaaaaaaaaaaa"]);
    await insertImage("cccccccccccccccccccc");
    // The same avatar again: nothing is pruned.
    expect((await put(editor, { profileImageUrl: "/images/aaaaaaaaaaaaaaaaaaaa.webp", bio: "x" })).status).toBe(200);
    expect(await stored()).toEqual(["aaaaaaaaaaaaaaaaaaaa", "cccccccccccccccccccc"]);
    // Only a bio change: nothing is pruned either.
    expect((await put(editor, { bio: "y" })).status).toBe(200);
    expect(await stored()).toEqual(["aaaaaaaaaaaaaaaaaaaa", "cccccccccccccccccccc"]);
    expect((await put(editor, { profileImageUrl: "" })).status).toBe(200);
    expect(await stored()).toEqual([]);
  });

  test("an avatar that is not the user's own upload: 400 on profileImageUrl, nothing written", async () => {
    await api.ctx.database.db.insert(images).values({
      id: "oooooooooooooooooooo",
      userId: owner.id,
      contentType: "image/webp",
      data: new Uint8Array([1, 2, 3]),
      byteSize: 3,
    });
    const before = await userRow(api, editor);
    for (const profileImageUrl of ["/images/oooooooooooooooooooo.webp", "/images/nnnnnnnnnnnnnnnnnnnn.webp"]) {
      const res = await put(editor, { profileImageUrl, bio: "changed with it" });
      expect([profileImageUrl, res.status]).toEqual([profileImageUrl, 400]);
      expect(await res.json()).toEqual({ message: MESSAGES.url, errors: { profileImageUrl: [MESSAGES.url] } });
    }
    const after = await userRow(api, editor);
    expect([after.profileImageUrl, after.bio]).toEqual([before.profileImageUrl, before.bio]);
  });

  test("signed out: 401", async () => {
    expect((await api.fetch("/api/profile", { method: "PUT", body: { bio: "x" } })).status).toBe(401);
  });

  test("a database error other than a taken name is not reported as a taken name", async () => {
    // A trigger makes the update itself fail (as a lost connection or a full disk would).
    await api.ctx.database.db.execute(sql`
      create or replace function profile_rules_fail() returns trigger language plpgsql as $$
      begin
        if new.bio = 'make the update fail' then raise exception 'planted failure'; end if;
        return new;
      end $$`);
    await api.ctx.database.db.execute(sql`
      create trigger profile_rules_fail before update on users for each row execute function profile_rules_fail()`);
    try {
      expectConsoleError(/"msg":"unhandled error".*"path":"\/api\/profile"/);
      const before = await userRow(api, editor);
      const res = await api.fetch("/api/profile", {
        method: "PUT",
        body: { bio: "make the update fail" },
        headers: { cookie: editor.cookie },
      });
      expect(res.status).toBe(500);
      expect(((await res.json()) as { message: string }).message).not.toBe(MESSAGES.usernameTaken);
      expect((await userRow(api, editor)).bio).toBe(before.bio);
    } finally {
      await api.ctx.database.db.execute(sql`drop trigger profile_rules_fail on users`);
    }
  });
});
