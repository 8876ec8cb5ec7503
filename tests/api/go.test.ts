/**
 * Issue 14 in one process (the API over HTTP on a fresh database): 'View Product' in the
 * public JSON, the owner's two switches, /go/{id}'s redirect, its 404s and what it counts.
 * The public page itself, instances and SIGTERM: tests/api/go-instances.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { counterOf } from "../../api/insights/counter";
import { supplementDailyClicks, supplements, users } from "../../db/schema";
import { notificationBarrier } from "../support/notifications";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, makePremium, uniqueName, userRow } from "../support/users";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
const LINK = "https://shop.example/omega-3?ref=abc&utm=x";

let api: TestApi;
const statements: string[] = [];
/** Resolves once the app has applied every change notification sent before the call. */
let notificationsApplied: () => Promise<void>;

beforeAll(async () => {
  api = await startApi({ INSIGHTS_FLUSH_MS: "0" }, { onQuery: (q) => statements.push(q) });
  notificationsApplied = await notificationBarrier(api.ctx.database);
});

afterAll(async () => {
  await api?.close();
});

async function addSupplement(owner: ApiUser, fields: Record<string, unknown> = {}): Promise<number> {
  const res = await api.fetch("/api/supplements", {
    method: "POST",
    headers: { cookie: owner.cookie },
    body: { name: "Omega-3", quantityType: "Soft Gel", frequency: "daily", ...fields },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

/** A premium owner with one supplement that has an affiliate link (and notes). */
async function premiumWithLink(): Promise<{ owner: ApiUser; id: number }> {
  const owner = await createUser(api, { username: uniqueName("prem"), premium: true });
  const id = await addSupplement(owner, { affiliateLink: LINK, notes: "with food" });
  return { owner, id };
}

const go = (id: number | string, init: { method?: string; cookie?: string; agent?: string | null } = {}) => {
  const headers: Record<string, string> = {};
  if (init.agent !== null) headers["user-agent"] = init.agent ?? BROWSER;
  if (init.cookie) headers.cookie = init.cookie;
  return api.fetch(`/go/${id}`, { method: init.method ?? "GET", headers, origin: null });
};

/** Clicks stored for a supplement, after flushing what this instance holds. */
async function storedClicks(id: number): Promise<number> {
  await counterOf(api.ctx).flush();
  const rows = await api.ctx.database.db
    .select({ clicks: supplementDailyClicks.clicks })
    .from(supplementDailyClicks)
    .where(eq(supplementDailyClicks.supplementId, id));
  return rows.reduce((n, r) => n + r.clicks, 0);
}

interface PublicJson {
  user: Record<string, unknown>;
  supplements: Record<string, unknown>[];
}
const publicJson = async (owner: ApiUser) => {
  const res = await api.fetch(`/api/profile/${owner.username}`);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, body: JSON.parse(text) as PublicJson };
};

describe("the owner's switches", () => {
  test("GET /api/auth/user: showNotes off and showAffiliateLinks on by default; PUT /api/profile sets each", async () => {
    const owner = await createUser(api, { username: uniqueName("sw") });
    const me = async () =>
      (await (await api.fetch("/api/auth/user", { headers: { cookie: owner.cookie } })).json()) as Record<
        string,
        unknown
      >;
    expect(await me()).toMatchObject({ showNotes: false, showAffiliateLinks: true });
    for (const [body, want] of [
      [{ showNotes: true }, { showNotes: true, showAffiliateLinks: true }],
      [{ showAffiliateLinks: false }, { showNotes: true, showAffiliateLinks: false }],
      [
        { showNotes: false, showAffiliateLinks: true },
        { showNotes: false, showAffiliateLinks: true },
      ],
    ] as const) {
      const res = await api.fetch("/api/profile", { method: "PUT", headers: { cookie: owner.cookie }, body });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject(want);
      expect(await me()).toMatchObject(want);
    }
  });

  test.each([
    ["showNotes", "true"],
    ["showNotes", 1],
    ["showNotes", null],
    ["showNotes", "on"],
    ["showAffiliateLinks", "false"],
    ["showAffiliateLinks", 0],
    ["showAffiliateLinks", null],
    ["showAffiliateLinks", []],
  ])("%s = %p is a 400 naming the field, and nothing is written", async (field, value) => {
    const owner = await createUser(api, { username: uniqueName("bad") });
    const before = await userRow(api, owner);
    const res = await api.fetch("/api/profile", {
      method: "PUT",
      headers: { cookie: owner.cookie },
      body: { bio: "changed", [field]: value },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string; errors: Record<string, string[]> };
    expect(body.errors[field]?.length).toBeGreaterThan(0);
    const after = await userRow(api, owner);
    expect(after.bio).toBe(before.bio);
    expect([after.showNotes, after.showAffiliateLinks]).toEqual([before.showNotes, before.showAffiliateLinks]);
  });
});

describe("GET /api/profile/{name}", () => {
  test("a premium owner's link: productUrl is the absolute /go/{id} URL; the affiliate URL and e-mail never appear", async () => {
    const { owner, id } = await premiumWithLink();
    const plain = await addSupplement(owner, { name: "Zinc" });
    const { text, body } = await publicJson(owner);
    expect(body.supplements).toEqual([
      { id, name: "Omega-3", quantityType: "Soft Gel", frequency: "daily", productUrl: `${api.url}/go/${id}` },
      { id: plain, name: "Zinc", quantityType: "Soft Gel", frequency: "daily" },
    ]);
    expect(text).not.toContain("shop.example");
    expect(text).not.toContain(owner.email);
  });

  test("notes only when the premium owner turns them on; links only while not turned off", async () => {
    const { owner, id } = await premiumWithLink();
    const put = (body: Record<string, unknown>) =>
      api.fetch("/api/profile", { method: "PUT", headers: { cookie: owner.cookie }, body });
    const row = async () => (await publicJson(owner)).body.supplements[0];
    expect(await row()).not.toHaveProperty("notes");
    expect((await put({ showNotes: true })).status).toBe(200);
    expect(await row()).toMatchObject({ notes: "with food", productUrl: `${api.url}/go/${id}` });
    expect((await put({ showAffiliateLinks: false })).status).toBe(200);
    expect(await row()).not.toHaveProperty("productUrl");
    expect(await row()).toHaveProperty("notes", "with food");
    // Premium ends: neither, whatever the switches say.
    expect((await put({ showAffiliateLinks: true })).status).toBe(200);
    await makePremium(api, owner, false);
    api.ctx.caches.invalidate({ userId: owner.id }); // PGlite in one process: no notification round trip to wait for
    expect(Object.keys((await row()) ?? {}).sort()).toEqual(["frequency", "id", "name", "quantityType"]);
  });
});

describe("GET /go/{id}", () => {
  test("302 to the stored URL, no-store, no Referer passed on; one click counted", async () => {
    const { id } = await premiumWithLink();
    const res = await go(id);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(LINK);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await storedClicks(id)).toBe(1);
    await go(id);
    await go(id);
    expect(await storedClicks(id)).toBe(3);
  });

  test("a warm /go costs no SQL statement: the first request reads the link once, later GETs (counted) and HEADs none", async () => {
    const { id } = await premiumWithLink();
    await counterOf(api.ctx).flush();
    await notificationsApplied(); // the supplement's own creation would drop what we fill next
    statements.length = 0;
    expect((await go(id)).status).toBe(302);
    expect(statements.length).toBeGreaterThan(0); // the look-up that fills the cache
    statements.length = 0;
    for (let i = 0; i < 3; i++) expect((await go(id)).status).toBe(302);
    expect((await go(id, { method: "HEAD" })).status).toBe(302);
    expect(statements).toEqual([]);
    // The "no link" answer is kept as well: a 404 asked again costs nothing.
    const missing = 2_000_000_001;
    expect((await go(missing)).status).toBe(404);
    statements.length = 0;
    expect((await go(missing)).status).toBe(404);
    expect(statements).toEqual([]);
    expect(await storedClicks(id)).toBe(4);
  });

  test("a flush is one statement, whatever it holds", async () => {
    const a = await premiumWithLink();
    const b = await premiumWithLink();
    await counterOf(api.ctx).flush();
    for (const id of [a.id, b.id, a.id]) await go(id);
    counterOf(api.ctx).view(a.owner.id, { address: "10.1.1.1", agent: BROWSER });
    counterOf(api.ctx).view(b.owner.id, { address: "10.1.1.2", agent: BROWSER });
    statements.length = 0;
    await counterOf(api.ctx).flush();
    expect(statements.length).toBe(1);
  });

  const BOTS = [
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Twitterbot/1.0",
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    "WhatsApp/2.23.20.0",
    "TelegramBot (like TwitterBot)",
    "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
    "curl/8.5.0",
    "python-requests/2.31.0",
    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
    "",
    null,
  ];

  test.each(BOTS)("a crawler or link-preview fetcher (%p) is redirected but not counted", async (agent) => {
    const { id } = await premiumWithLink();
    const res = await go(id, { agent });
    expect(res.status).toBe(302);
    expect(await storedClicks(id)).toBe(0);
  });

  test("the signed-in owner and HEAD are redirected but not counted; another signed-in member is", async () => {
    const { owner, id } = await premiumWithLink();
    expect((await go(id, { cookie: owner.cookie })).status).toBe(302);
    expect((await go(id, { method: "HEAD" })).status).toBe(302);
    expect(await storedClicks(id)).toBe(0);
    const visitor = await createUser(api, { username: uniqueName("vis") });
    expect((await go(id, { cookie: visitor.cookie })).status).toBe(302);
    expect(await storedClicks(id)).toBe(1);
  });

  test.each(["abc", "0", "-1", "01", "1.5", "1e3", "1%00", "99999999999", "2147483648", "1%2F2", "+1", " 1"])(
    "an ill-formed id (%p) is a 404",
    async (raw) => {
      const res = await go(raw);
      expect(res.status).toBe(404);
      expect(res.headers.get("location")).toBeNull();
    },
  );

  test("404 and no count: unknown id, free owner, lapsed owner, no link, links turned off, deleted", async () => {
    const cases: [string, () => Promise<number>][] = [
      ["unknown id", async () => 2_000_000_000],
      [
        "a free owner with a stored link",
        async () => {
          const { owner, id } = await premiumWithLink();
          await makePremium(api, owner, false);
          return id;
        },
      ],
      [
        "no link",
        async () => {
          const owner = await createUser(api, { username: uniqueName("nolink"), premium: true });
          return addSupplement(owner);
        },
      ],
      [
        "links turned off",
        async () => {
          const { owner, id } = await premiumWithLink();
          const res = await api.fetch("/api/profile", {
            method: "PUT",
            headers: { cookie: owner.cookie },
            body: { showAffiliateLinks: false },
          });
          expect(res.status).toBe(200);
          return id;
        },
      ],
      [
        "a stored link that is not http(s)",
        async () => {
          const { id } = await premiumWithLink();
          await api.ctx.database.db
            .update(supplements)
            .set({ affiliateLink: "javascript:alert(1)" })
            .where(eq(supplements.id, id));
          return id;
        },
      ],
      [
        "a deleted supplement",
        async () => {
          const { owner, id } = await premiumWithLink();
          expect(
            (await api.fetch(`/api/supplements/${id}`, { method: "DELETE", headers: { cookie: owner.cookie } })).status,
          ).toBe(204);
          return id;
        },
      ],
    ];
    for (const [what, make] of cases) {
      const id = await make();
      const res = await go(id);
      expect(res.status, what).toBe(404);
      expect(res.headers.get("location"), what).toBeNull();
      expect(await storedClicks(id), what).toBe(0);
    }
  });
});

describe("counts are deleted with their owner", () => {
  test("deleting a supplement deletes its clicks; deleting a user deletes their views and visitors", async () => {
    const { owner, id } = await premiumWithLink();
    await go(id);
    counterOf(api.ctx).view(owner.id, { address: "10.9.9.9", agent: BROWSER });
    expect(await storedClicks(id)).toBe(1);
    const db = api.ctx.database.db;
    await db.delete(supplements).where(eq(supplements.id, id));
    expect(await storedClicks(id)).toBe(0);
    const { profileDailyCounts, visitorBatches } = await import("../../db/schema");
    const viewsOf = () => db.select().from(profileDailyCounts).where(eq(profileDailyCounts.userId, owner.id));
    const hashesOf = () => db.select().from(visitorBatches).where(eq(visitorBatches.userId, owner.id));
    expect((await viewsOf()).length).toBe(1);
    expect((await hashesOf()).length).toBe(1);
    await db.delete(users).where(eq(users.id, owner.id));
    expect(await viewsOf()).toEqual([]);
    expect(await hashesOf()).toEqual([]);
  });

  test("counts held for a user deleted before the flush are dropped, and the flush still writes the rest", async () => {
    const gone = await premiumWithLink();
    const kept = await premiumWithLink();
    await go(gone.id);
    await go(kept.id);
    counterOf(api.ctx).view(gone.owner.id, { address: "10.9.9.8", agent: BROWSER });
    await api.ctx.database.db.delete(users).where(eq(users.id, gone.owner.id));
    expect(await storedClicks(kept.id)).toBe(1);
    expect(counterOf(api.ctx).pending).toEqual({ views: 0, clicks: 0 });
  });
});
