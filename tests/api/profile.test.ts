/**
 * Issues 3 and 5, profiles: PUT /api/profile (the username, bio and URL rules, with the
 * spec's messages, nothing written on any refusal), GET /api/profile/{username} (public,
 * case-insensitive, never the e-mail), the race for one name, and the server-rendered
 * /{username} page (markup in a bio is text, javascript: links never reach the page).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { images, supplements, users } from "../../db/schema";
import { PRODUCT_NAME } from "../../src/lib/constants";
import { createTestDatabase, seedTestDatabase, type TestDatabase } from "../support/db";
import { type ServerProcess, skipWithoutBuild, startServer } from "../support/process";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, insertSupplements, uniqueName, userRow } from "../support/users";

const TAKEN = "Username is already taken";
const SHORT = "Username must be at least 3 characters";
const LONG = "Username must be less than 50 characters";
const CHARS = "Username can only contain letters, numbers, and underscores";
const BAD_URL = "Please enter a valid URL";
const SOCIAL = [
  "instagramUrl",
  "twitterUrl",
  "facebookUrl",
  "youtubeUrl",
  "tiktokUrl",
  "linkedinUrl",
  "etsyUrl",
  "websiteUrl",
] as const;

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

/** An image row of `owner`'s (what an upload stores), so that `url` may be their avatar. */
const PAT_AVATAR = "/images/pat_avatar_0123456789ab.webp";
async function ownImage(owner: ApiUser, url: string) {
  const id = url.slice("/images/".length, -".webp".length);
  const data = new Uint8Array([0x52, 0x49, 0x46, 0x46]);
  await api.ctx.database.db
    .insert(images)
    .values({ id, userId: owner.id, contentType: "image/webp", data, byteSize: 4 });
}

interface ErrorBody {
  message: string;
  errors?: Record<string, string[]>;
}

const put = (user: ApiUser | null, body: unknown, init: { origin?: string; headers?: Record<string, string> } = {}) =>
  api.fetch("/api/profile", {
    method: "PUT",
    headers: { ...(user ? { cookie: user.cookie } : {}), ...init.headers },
    origin: init.origin,
    body: body as Record<string, unknown>,
  });

/** Sends a PUT that must be refused with `status` and `message`, and checks that nothing was written. */
async function expectRefused(user: ApiUser, body: unknown, status: number, message: string, field?: string) {
  const before = await userRow(api, user);
  const res = await put(user, body);
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/json");
  const json = (await res.json()) as ErrorBody;
  expect(json.message).toBe(message);
  if (field) expect(json.errors?.[field]).toContain(message);
  expect(await userRow(api, user)).toEqual(before);
}

describe("PUT /api/profile: username rules", () => {
  let user: ApiUser;
  let holder: ApiUser;
  beforeAll(async () => {
    user = await createUser(api);
    holder = await createUser(api, { username: "Taken_Name" });
  });

  test("a name under 3 characters: 400 'Username must be at least 3 characters'", async () => {
    for (const username of ["ab", "a", "", "  ab  "]) await expectRefused(user, { username }, 400, SHORT, "username");
  });

  test("a name over 50 characters: 400 'Username must be less than 50 characters'", async () => {
    await expectRefused(user, { username: "a".repeat(51) }, 400, LONG, "username");
    await expectRefused(user, { username: "b".repeat(200) }, 400, LONG, "username");
  });

  test("anything but letters, digits and underscores: 400 with the spec's message", async () => {
    for (const username of [
      "bad name",
      "bad-name",
      "bad.name",
      "héllo",
      "name!",
      "<script>",
      "a/b",
      "ünïcode",
      "emoji😀x",
    ]) {
      await expectRefused(user, { username }, 400, CHARS, "username");
    }
  });

  test("a username that is not a string: 400, nothing written", async () => {
    for (const username of [123, null, true, ["abc"], { a: 1 }]) {
      const before = await userRow(api, user);
      const res = await put(user, { username });
      expect(res.status).toBe(400);
      expect(typeof ((await res.json()) as ErrorBody).message).toBe("string");
      expect(await userRow(api, user)).toEqual(before);
    }
  });

  test("3 and 50 characters are accepted (the boundaries)", async () => {
    const three = await createUser(api);
    const res3 = await put(three, { username: `q${crypto.randomUUID().slice(0, 2)}` });
    expect(res3.status).toBe(200);
    const fifty = `${uniqueName("x")}_`.padEnd(50, "z");
    expect(fifty).toHaveLength(50);
    const res = await put(user, { username: fifty });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { username: string }).username).toBe(fifty);
    expect((await userRow(api, user)).username).toBe(fifty);
  });

  test("a name another user holds: 409 'Username is already taken', in any case", async () => {
    for (const username of ["Taken_Name", "taken_name", "TAKEN_NAME", "tAkEn_NaMe"]) {
      const before = await userRow(api, user);
      const res = await put(user, { username, bio: "must not be saved either" });
      expect(res.status).toBe(409);
      const body = (await res.json()) as ErrorBody;
      expect(body.message).toBe(TAKEN);
      expect(body.errors?.username).toEqual([TAKEN]);
      expect(await userRow(api, user)).toEqual(before);
    }
    expect((await userRow(api, holder)).username).toBe("Taken_Name");
  });

  test("reserved names: 409 'Username is already taken', in any case", async () => {
    const reserved = [
      "admin",
      "Admin",
      "api",
      "API",
      "auth",
      "dashboard",
      "Dashboard",
      "subscribe",
      "billing",
      "profile",
      "images",
      "uploads",
      "_astro",
      "assets",
      "root",
      "support",
      "help",
      "settings",
      "login",
      "logout",
      "signup",
      "signin",
      "about",
      "terms",
      "privacy",
      "www",
    ];
    for (const username of reserved) await expectRefused(user, { username }, 409, TAKEN, "username");
  });

  test("a user may change the case of their own name", async () => {
    const own = await createUser(api, { username: "Case_Owner" });
    const res = await put(own, { username: "CASE_OWNER" });
    expect(res.status).toBe(200);
    expect((await userRow(api, own)).username).toBe("CASE_OWNER");
  });

  test("a renamed user's old name becomes free", async () => {
    const mover = await createUser(api, { username: "Old_Name_1" });
    expect((await put(mover, { username: "New_Name_1" })).status).toBe(200);
    expect((await api.fetch("/api/profile/Old_Name_1")).status).toBe(404);
    expect((await api.fetch("/api/profile/new_name_1")).status).toBe(200);
    const next = await createUser(api);
    expect((await put(next, { username: "old_name_1" })).status).toBe(200);
  });
});

describe("PUT /api/profile: bio, URLs and the body", () => {
  let user: ApiUser;
  beforeAll(async () => {
    user = await createUser(api, { username: uniqueName("bio") });
  });

  test("a bio of 500 characters is saved; 501 is refused with 400", async () => {
    const ok = await put(user, { bio: "b".repeat(500) });
    expect(ok.status).toBe(200);
    expect((await userRow(api, user)).bio).toBe("b".repeat(500));
    await expectRefused(user, { bio: "c".repeat(501) }, 400, "Bio must be at most 500 characters", "bio");
  });

  test("every social URL: javascript:, data: and other non-http(s) values get 400 'Please enter a valid URL'", async () => {
    const bad = [
      "javascript:alert(1)",
      "JavaScript:alert(document.cookie)",
      " javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
      "ftp://example.com/file",
      "file:///etc/passwd",
      "not a url",
      "example.com",
      "https://",
      "//evil.example",
      `https://example.com/${"a".repeat(2048)}`,
    ];
    for (const field of SOCIAL) {
      for (const value of bad) {
        // Issue 51: a Website without a scheme gets https:// (tests/unit/social-links.test.ts).
        if (field === "websiteUrl" && value === "example.com") continue;
        await expectRefused(user, { [field]: value }, 400, BAD_URL, field);
      }
    }
  });

  test("a refused URL in one field writes none of the other fields", async () => {
    await expectRefused(
      user,
      { bio: "new bio", websiteUrl: "https://fine.example", instagramUrl: "javascript:alert(1)" },
      400,
      BAD_URL,
      "instagramUrl",
    );
  });

  test("http and https URLs are saved for all eight fields; an empty string clears one", async () => {
    const body = Object.fromEntries(SOCIAL.map((f, i) => [f, `${i % 2 ? "http" : "https"}://${f}.example/u?x=${i}`]));
    const res = await put(user, body);
    expect(res.status).toBe(200);
    const json = (await res.json()) as Record<string, unknown>;
    const row = await userRow(api, user);
    for (const f of SOCIAL) {
      expect(json[f]).toBe(body[f]);
      expect(row[f]).toBe(body[f] as string);
    }
    const cleared = await put(user, { websiteUrl: "", instagramUrl: "" });
    expect(cleared.status).toBe(200);
    const after = await userRow(api, user);
    expect(after.websiteUrl).toBeNull();
    expect(after.instagramUrl).toBeNull();
    expect(after.twitterUrl).toBe(body.twitterUrl as string);
  });

  test("profileImageUrl must be an image of this user's or empty (the full table: user-fields.test.ts)", async () => {
    await expectRefused(user, { profileImageUrl: "javascript:alert(1)" }, 400, BAD_URL, "profileImageUrl");
    await expectRefused(user, { profileImageUrl: "data:image/png;base64,AAAA" }, 400, BAD_URL, "profileImageUrl");
    await expectRefused(user, { profileImageUrl: "https://cdn.example/avatar.png" }, 400, BAD_URL, "profileImageUrl");
    const other = await createUser(api);
    await ownImage(other, "/images/other_avatar_0123456789.webp");
    await expectRefused(user, { profileImageUrl: "/images/other_avatar_0123456789.webp" }, 400, BAD_URL);
    expect((await put(user, { profileImageUrl: "" })).status).toBe(200);
    expect((await userRow(api, user)).profileImageUrl).toBeNull();
  });

  test("unknown and private fields are ignored", async () => {
    const before = await userRow(api, user);
    const res = await put(user, {
      bio: "only this changes",
      isPremium: true,
      email: "hijack@example.org",
      id: "someone-else",
      stripeCustomerId: "cus_FAKE",
      stripeSubscriptionId: "sub_FAKE",
      subscriptionStatus: "active",
      createdAt: "2000-01-01T00:00:00Z",
      unknownField: "x",
    });
    expect(res.status).toBe(200);
    const after = await userRow(api, user);
    expect(after.bio).toBe("only this changes");
    expect(after).toMatchObject({
      id: before.id,
      email: before.email,
      isPremium: false,
      stripeCustomerId: null,
      stripeSubscriptionId: null,
      subscriptionStatus: null,
      createdAt: before.createdAt,
      username: before.username,
    });
  });

  test("a body that is not JSON, or not an object: 400 JSON with a message, nothing written", async () => {
    for (const raw of ["{bad json", "username=hacker", "<xml/>", "null", "[]", '"abc"', "42"]) {
      const before = await userRow(api, user);
      const res = await api.fetch("/api/profile", {
        method: "PUT",
        headers: { cookie: user.cookie, "content-type": "application/json" },
        body: raw,
      });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/json");
      const body = (await res.json()) as ErrorBody;
      expect(typeof body.message).toBe("string");
      expect(body.message.length).toBeGreaterThan(0);
      expect(await userRow(api, user)).toEqual(before);
    }
  });

  test("signed out: 401 {message: 'Unauthorized'}", async () => {
    const res = await put(null, { bio: "anonymous" });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: "Unauthorized" });
  });

  test("from another origin (or with no Origin): 403, nothing written", async () => {
    for (const origin of ["https://evil.example", `${api.origin}.evil.example`, "null"]) {
      const before = await userRow(api, user);
      const res = await put(user, { bio: "cross-site write", username: uniqueName("csrf") }, { origin });
      expect(res.status).toBe(403);
      expect(typeof ((await res.json()) as ErrorBody).message).toBe("string");
      expect(await userRow(api, user)).toEqual(before);
    }
    const before = await userRow(api, user);
    const res = await api.fetch("/api/profile", {
      method: "PUT",
      origin: null,
      headers: { cookie: user.cookie },
      body: { bio: "no origin" },
    });
    expect(res.status).toBe(403);
    expect(await userRow(api, user)).toEqual(before);
  });
});

describe("two users racing for one name", () => {
  test("concurrent claims end with exactly one 200 and one 409, and one owner", async () => {
    const pairs = await Promise.all(
      Array.from({ length: 5 }, async () => [await createUser(api), await createUser(api)] as const),
    );
    for (const [round, [a, b]] of pairs.entries()) {
      const name = `Race_${round}_${crypto.randomUUID().slice(0, 6)}`;
      // The second claim in another case: one name, case-insensitively.
      const [ra, rb] = await Promise.all([put(a, { username: name }), put(b, { username: name.toLowerCase() })]);
      const statuses = [ra.status, rb.status].sort();
      expect(statuses).toEqual([200, 409]);
      const loser = ra.status === 409 ? ra : rb;
      expect(((await loser.json()) as ErrorBody).message).toBe(TAKEN);
      const owners = await api.ctx.database.db.select({ id: users.id, username: users.username }).from(users);
      const holding = owners.filter((o) => o.username?.toLowerCase() === name.toLowerCase());
      expect(holding).toHaveLength(1);
      expect(holding[0]?.id).toBe(ra.status === 200 ? a.id : b.id);
    }
  });
});

describe("GET /api/profile/{username}", () => {
  let owner: ApiUser;
  beforeAll(async () => {
    owner = await createUser(api, { name: "Secret Person", username: "Public_Pat" });
    await ownImage(owner, PAT_AVATAR);
    const res = await put(owner, {
      bio: "Morning stack",
      instagramUrl: "https://instagram.com/pat",
      websiteUrl: "https://pat.example",
      profileImageUrl: PAT_AVATAR,
    });
    expect(res.status).toBe(200);
    await api.ctx.database.db
      .update(users)
      .set({ stripeCustomerId: "cus_PRIVATE", isPremium: true })
      .where(eq(users.id, owner.id));
    for (const [name, sortOrder] of [
      ["Third", 2],
      ["First", 0],
      ["Second", 1],
    ] as const) {
      await api.ctx.database.db.insert(supplements).values({
        userId: owner.id,
        name,
        quantityType: "Tablet(s)",
        frequency: "daily",
        affiliateLink: "https://shop.example/aff?tag=secret",
        notes: "private notes",
        sortOrder,
      });
    }
  });

  test("public (no session), case-insensitive, with the stored spelling, user and ordered supplements", async () => {
    for (const asked of ["Public_Pat", "public_pat", "PUBLIC_PAT"]) {
      const res = await api.fetch(`/api/profile/${asked}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        user: Record<string, unknown>;
        supplements: Record<string, unknown>[];
      };
      expect(body.user.username).toBe("Public_Pat");
      expect(body.user).toMatchObject({
        bio: "Morning stack",
        instagramUrl: "https://instagram.com/pat",
        websiteUrl: "https://pat.example",
        profileImageUrl: PAT_AVATAR,
      });
      expect(body.supplements.map((s) => s.name)).toEqual(["First", "Second", "Third"]);
      // The list carries id, name, quantity type and frequency, and (issue 14, a premium owner's
      // link) the /go URL: no notes (off by default), never the affiliate URL itself.
      for (const s of body.supplements) {
        expect(Object.keys(s).sort()).toEqual(["frequency", "id", "name", "productUrl", "quantityType"]);
        expect(s.productUrl).toBe(`${api.url}/go/${s.id}`);
      }
    }
  });

  test("never the e-mail, the Stripe ids or any other private field (raw text searched)", async () => {
    for (const cookie of [undefined, owner.cookie]) {
      const res = await api.fetch("/api/profile/public_pat", { headers: cookie ? { cookie } : {} });
      const text = await res.text();
      expect(text).not.toContain(owner.email);
      expect(text).not.toContain("@example");
      expect(text).not.toContain("cus_PRIVATE");
      expect(text).not.toContain("private notes");
      expect(text).not.toContain("aff?tag=secret");
      expect(text).not.toContain(owner.id);
      const body = JSON.parse(text) as { user: Record<string, unknown> };
      for (const key of ["email", "id", "stripeCustomerId", "stripeSubscriptionId", "firstName", "lastName", "name"]) {
        expect(body.user).not.toHaveProperty(key);
      }
    }
  });

  test("an unknown name: 404 JSON", async () => {
    const res = await api.fetch("/api/profile/nobody_by_this_name");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(typeof ((await res.json()) as ErrorBody).message).toBe("string");
  });

  test("reserved and ill-formed names: 404, even if a row somehow holds a reserved name", async () => {
    const legacy = await createUser(api);
    await api.ctx.database.db.update(users).set({ username: "admin" }).where(eq(users.id, legacy.id));
    for (const name of ["admin", "Admin", "api", "dashboard", "ab", "bad%20name", "a".repeat(51)]) {
      const res = await api.fetch(`/api/profile/${name}`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain(legacy.email);
    }
  });

  test("a user without a username has no profile", async () => {
    const nameless = await createUser(api);
    const res = await api.fetch(`/api/profile/${encodeURIComponent(nameless.email)}`);
    expect(res.status).toBe(404);
  });

  test("the supplement list comes back empty, not missing, for a user with none", async () => {
    const empty = await createUser(api, { username: uniqueName("empty") });
    const res = await api.fetch(`/api/profile/${empty.username}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { supplements: unknown[] }).supplements).toEqual([]);
  });

  test("a user's edit is visible on the next request", async () => {
    const editor = await createUser(api, { username: uniqueName("editor") });
    await insertSupplements(api, editor, 2);
    expect((await put(editor, { bio: "first version" })).status).toBe(200);
    const first = (await (await api.fetch(`/api/profile/${editor.username}`)).json()) as { user: { bio: string } };
    expect(first.user.bio).toBe("first version");
    expect((await put(editor, { bio: "second version" })).status).toBe(200);
    const second = (await (await api.fetch(`/api/profile/${editor.username}`)).json()) as { user: { bio: string } };
    expect(second.user.bio).toBe("second version");
  });
});

describe.skipIf(skipWithoutBuild("profile.test.ts: the /{username} page (bun server.ts)"))(
  "the /{username} page (bun server.ts)",
  () => {
    let database: TestDatabase;
    let server: ServerProcess;
    const EMAIL = "page-owner-secret@example.com";
    const BIO = `<script>alert("bio")</script><img src=x onerror=alert(1)> & "quotes"`;

    beforeAll(async () => {
      // Seed the database before the server takes it: one user whose stored links include
      // a javascript: URL (as if written before the rules existed) and a bio with markup.
      database = await createTestDatabase({ pgliteDir: true });
      await seedTestDatabase(database, async (db) => {
        await db.insert(users).values({
          id: "page-owner",
          name: "Page Owner",
          email: EMAIL,
          username: "Page_Owner",
          bio: BIO,
          websiteUrl: "javascript:alert(document.cookie)",
          instagramUrl: "https://instagram.com/page_owner",
          twitterUrl: "data:text/html,<script>alert(1)</script>",
          stripeCustomerId: "cus_PAGE_PRIVATE",
        });
        await db.insert(supplements).values([
          {
            userId: "page-owner",
            name: "Zinc <b>bold</b>",
            quantityType: "Tablet(s)",
            frequency: "daily",
            sortOrder: 1,
          },
          {
            userId: "page-owner",
            name: "Magnesium",
            quantityType: "Capsule(s)",
            frequency: "at night",
            notes: "secret note",
            affiliateLink: "https://shop.example/secret-aff",
            sortOrder: 0,
          },
        ]);
      });
      server = await startServer(database.env);
    });
    afterAll(async () => {
      await server?.stop();
      await database?.drop();
    });

    test("markup in the bio and names is escaped, never run; javascript:/data: links never reach the page", async () => {
      const res = await fetch(`${server.url}/page_owner`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
      const html = await res.text();
      // Parsed as a browser would: no script or img element, no event-handler attribute, and
      // the bio and the supplement name are text.
      // The page's own script (issue 16's Print button: one module bundled under /_astro/) is
      // counted apart; any other script element is user text that became markup.
      const found = { scripts: 0, ownScripts: 0, imgs: 0, handlers: 0, bio: "", names: [] as string[] };
      let inName = false;
      await new HTMLRewriter()
        .on("script", {
          element: (el) => {
            if (/^\/_astro\/[\w.-]+\.js$/.test(el.getAttribute("src") ?? "")) found.ownScripts++;
            else found.scripts++;
          },
        })
        .on("img", { element: () => void found.imgs++ })
        .on("*", {
          element(el) {
            for (const [name] of el.attributes) if (name.toLowerCase().startsWith("on")) found.handlers++;
          },
        })
        .on("main section p.whitespace-pre-line", {
          text: (t) => {
            found.bio += t.text;
          },
        })
        .on("ol li p.font-semibold", {
          element: () => {
            inName = true;
            found.names.push("");
          },
          text: (t) => {
            if (inName) found.names[found.names.length - 1] += t.text;
          },
        })
        .transform(new Response(html))
        .text();
      expect(found.scripts).toBe(0);
      expect(found.ownScripts).toBeLessThanOrEqual(1);
      expect(found.imgs).toBe(0);
      expect(found.handlers).toBe(0);
      expect(found.bio).toBe(
        "&lt;script&gt;alert(&quot;bio&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;",
      );
      // The list in its order, without notes or links.
      expect(found.names).toEqual(["Magnesium", "Zinc &lt;b&gt;bold&lt;/b&gt;"]);
      expect(html).not.toContain("secret note");
      expect(html).not.toContain("secret-aff");
      // Only http(s) links are rendered.
      expect(html.toLowerCase()).not.toContain("javascript:");
      expect(html).not.toContain("data:text/html");
      expect(html).toContain('href="https://instagram.com/page_owner"');
      expect(html).toContain("@Page_Owner");
    });

    test("the page never contains the e-mail or Stripe ids", async () => {
      const html = await (await fetch(`${server.url}/PAGE_OWNER`)).text();
      expect(html).not.toContain(EMAIL);
      expect(html).not.toContain("page-owner-secret");
      expect(html).not.toContain("cus_PAGE_PRIVATE");
    });

    test("server-rendered head: title, description from the bio, canonical with the stored spelling", async () => {
      const html = await (await fetch(`${server.url}/page_owner`)).text();
      expect(html).toContain(`<title>@Page_Owner · ${PRODUCT_NAME}</title>`);
      expect(html).toMatch(/<link[^>]+rel="canonical"[^>]+href="http:\/\/127\.0\.0\.1:\d+\/Page_Owner"/);
      expect(html).toMatch(/<meta[^>]+(property|name)="og:title"/);
      // The description is the bio, inside a quoted attribute whose quotes are escaped.
      expect(html).toContain('<meta name="description" content="<script>alert(&quot;bio&quot;)');
    });

    test("an unknown or reserved name answers HTTP 404 with the Profile Not Found screen", async () => {
      for (const name of ["no_such_user_here", "admin"]) {
        const res = await fetch(`${server.url}/${name}`);
        expect(res.status).toBe(404);
        const html = await res.text();
        expect(html).toContain("Profile Not Found");
        expect(html).toMatch(new RegExp(`The user @${name} doesn('|&#39;|&#x27;)t exist or their profile is private`));
        expect(html).toContain("Go Home");
      }
    });
  },
);
