/**
 * Issue 14 on built servers sharing one Postgres: a free, a lapsed and an empty premium
 * member's page and JSON byte for byte as before issue 14 (tests/api/fixtures/profile-*.golden;
 * GOLDEN_WRITE=1 rewrites them, only on purpose); premium ending on A hides links and notes and
 * makes /go 404 on B at once; counts of two instances add up and survive a SIGTERM.
 * Needs Postgres (TEST_DATABASE_URL or its own cluster) and the build.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { batchedVisitors } from "../../api/insights/counter";
import { type Database, openDatabase } from "../../db/client";
import { users } from "../../db/schema";
import { type Instance, startInstance } from "../support/instances";
import { postgresDatabase, skipWithoutPostgres } from "../support/pg-cluster";
import { skipWithoutBuild } from "../support/process";

const FIXTURES = join(import.meta.dir, "fixtures");
const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";

const skip =
  skipWithoutBuild("go-instances.test.ts: issue 14 on built servers") ||
  skipWithoutPostgres("go-instances.test.ts: issue 14 on built servers");

interface Account {
  id: string;
  cookie: string;
  username: string;
}

/**
 * The body with what differs per run or build (the origin, built asset names, the inlined
 * stylesheet's rules, the print date of issue 16, the footer's year) replaced. The golden files
 * are the pages as they were before issue 14, with what later issues added on purpose for
 * everyone (issue 16's card tags and print markup, issue 19's manifest link, issue 51's
 * stylesheet in the page); regenerate them with GOLDEN_WRITE=1 only for such a change.
 */
function normalise(body: string, origin: string): string {
  return body
    .replaceAll(origin, "ORIGIN")
    .replace(/\/_astro\/[A-Za-z0-9_.-]+/g, "/_astro/ASSET")
    .replace(/<style>[\s\S]*?<\/style>/g, "<style>STYLESHEET</style>")
    .replace(/Printed \d{1,2} [A-Z][a-z]+ \d{4}/g, "Printed DATE")
    .replace(/&copy; \d{4} /g, "&copy; YEAR ");
}

function golden(name: string, actual: string) {
  const file = join(FIXTURES, `${name}.golden`);
  if (process.env.GOLDEN_WRITE === "1") {
    mkdirSync(FIXTURES, { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  if (!existsSync(file)) throw new Error(`missing fixture ${file} (GOLDEN_WRITE=1 writes it)`);
  expect(actual).toBe(readFileSync(file, "utf8"));
}

describe.skipIf(skip)("issue 14 on built servers", () => {
  let pg: Awaited<ReturnType<typeof postgresDatabase>>;
  let a: Instance;
  let b: Instance;
  let direct: Database;
  let sharedEnv: Record<string, string>;
  const ORIGIN = "http://stacktrack.test";

  const call = (
    on: Instance,
    path: string,
    init: { method?: string; cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${on.url}${path}`, {
      method: init.method ?? "GET",
      redirect: "manual",
      headers: {
        origin: ORIGIN,
        "user-agent": BROWSER_UA,
        ...(init.cookie ? { cookie: init.cookie } : {}),
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
        ...(init.headers ?? {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });

  /** Signs up on A; with a username set unless `username` is null. */
  async function signUp(username: string | null, name = "Golden Test"): Promise<Account> {
    const email = `${username ?? "nameless"}-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const res = await call(a, "/api/auth/sign-up/email", {
      method: "POST",
      body: { email, password: "correct horse battery", name },
    });
    expect(res.status).toBe(200);
    const id = ((await res.json()) as { user: { id: string } }).user.id;
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0] ?? "")
      .join("; ");
    if (username === null) return { id, cookie, username: "" };
    const named = await call(a, "/api/profile", { method: "PUT", cookie, body: { username } });
    expect(named.status).toBe(200);
    return { id, cookie, username };
  }

  const setPremium = (who: Account, premium: boolean) =>
    direct.db.update(users).set({ isPremium: premium }).where(eq(users.id, who.id));

  async function addSupplement(who: Account, fields: Record<string, string>): Promise<number> {
    const res = await call(a, "/api/supplements", {
      method: "POST",
      cookie: who.cookie,
      body: { quantityType: "Capsule(s)", frequency: "daily", ...fields },
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: number }).id;
  }

  beforeAll(async () => {
    pg = await postgresDatabase();
    const env = {
      DATABASE_URL: pg.url,
      PUBLIC_ORIGIN: ORIGIN,
      BETTER_AUTH_SECRET: "one-secret-shared-by-every-instance-0123456789",
      INSIGHTS_FLUSH_MS: "1000",
    };
    sharedEnv = env;
    [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
    direct = await openDatabase({ url: pg.url, dataDir: ":memory:", poolSize: 2 });
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await direct?.close();
    await pg?.release();
  });

  test("free, lapsed and empty profiles: page and JSON byte for byte as before issue 14", async () => {
    const free = await signUp("golden_free");
    await addSupplement(free, { name: "Vitamin D3" });
    await addSupplement(free, { name: "Magnesium glycinate", frequency: "twice a day" });
    // Premium once: a link and notes stored, then premium ended.
    const lapsed = await signUp("golden_lapsed");
    await setPremium(lapsed, true);
    await addSupplement(lapsed, {
      name: "Creatine",
      affiliateLink: "https://shop.example/creatine?ref=golden",
      notes: "with breakfast",
    });
    await setPremium(lapsed, false);
    const empty = await signUp("golden_empty");
    await setPremium(empty, true);
    for (const who of [free, lapsed, empty]) {
      const page = await call(b, `/${who.username}`);
      expect(page.status).toBe(200);
      golden(`profile-page-${who.username}`, normalise(await page.text(), ORIGIN));
      const json = await call(b, `/api/profile/${who.username}`);
      expect(json.status).toBe(200);
      golden(`profile-json-${who.username}`, normalise(await json.text(), ORIGIN));
    }
  });

  /**
   * Clicks, views and visitors stored in Postgres (what the instances flushed): a day's
   * visitors are its added-up count plus the distinct hashes of its batches (as /api/insights).
   */
  async function stored(supplementId: number, owner: Account) {
    const clicks = await direct.db.execute(
      sql`select coalesce(sum(clicks), 0)::int as n from supplement_daily_clicks where supplement_id = ${supplementId}`,
    );
    const views = await direct.db.execute(
      sql`select coalesce(sum(views), 0)::int as v, coalesce(sum(visitors), 0)::int as u from profile_daily_counts where user_id = ${owner.id}`,
    );
    const first = <T>(r: unknown) => (Array.isArray(r) ? r[0] : (r as { rows: T[] }).rows[0]) as T;
    let batched = 0;
    for (const n of (await batchedVisitors(direct.db, owner.id)).values()) batched += n;
    return {
      clicks: first<{ n: number }>(clicks).n,
      views: first<{ v: number; u: number }>(views).v,
      visitors: first<{ v: number; u: number }>(views).u + batched,
    };
  }

  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
    const deadline = Date.now() + ms;
    let value = await read();
    while (!ok(value) && Date.now() < deadline) {
      await Bun.sleep(100);
      value = await read();
    }
    return value;
  }

  test("a premium owner's page: 'View Product' to /go/{id} with rel, new tab, 'Paid link' and the disclosure above the list", async () => {
    const owner = await signUp("shop_owner");
    await setPremium(owner, true);
    const id = await addSupplement(owner, { name: "Omega-3", affiliateLink: "https://shop.example/o3?ref=x" });
    await addSupplement(owner, { name: "Zinc" });
    const page = await (await call(b, `/${owner.username}`)).text();
    const link = page.match(/<a[^>]*href="([^"]*\/go\/[^"]*)"[^>]*>/);
    expect(link?.[1]).toBe(`${ORIGIN}/go/${id}`);
    expect(link?.[0]).toContain('rel="sponsored nofollow noopener"');
    expect(link?.[0]).toContain('target="_blank"');
    expect(page).toContain(">View Product<");
    expect(page.match(/>Paid link</g)?.length).toBe(1);
    const disclosure =
      "Some links on this page are affiliate links: @shop_owner may earn a commission from purchases made through them.";
    expect(page).toContain(disclosure);
    expect(page.indexOf(disclosure)).toBeLessThan(page.indexOf("<ol"));
    expect(page).not.toContain("shop.example");
    // /go answers the redirect, and an unknown id the site's 404 page.
    const go = await call(b, `/go/${id}`);
    expect(go.status).toBe(302);
    expect(go.headers.get("location")).toBe("https://shop.example/o3?ref=x");
    const missing = await call(b, "/go/999999");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toContain("text/html");
    expect(await missing.text()).toContain("404 Page Not Found");
  });

  test("premium ending on one instance hides links and notes on the other at once, and its /go answers 404", async () => {
    const owner = await signUp("lapsing");
    await setPremium(owner, true);
    const id = await addSupplement(owner, { name: "Creatine", affiliateLink: "https://shop.example/c", notes: "am" });
    expect(
      (await call(a, "/api/profile", { method: "PUT", cookie: owner.cookie, body: { showNotes: true } })).status,
    ).toBe(200);
    const pageOnB = async () => (await call(b, `/${owner.username}`)).text();
    const jsonOnB = async () => (await call(b, `/api/profile/${owner.username}`)).text();
    expect(await pageOnB()).toContain("View Product"); // now cached on B
    expect(await jsonOnB()).toContain('"notes":"am"');
    expect((await call(b, `/go/${id}`)).status).toBe(302);
    await setPremium(owner, false); // as the webhook would, on neither instance
    // B holds /go in memory (the host's response cache, server/cache.ts): the change notification drops it.
    expect(
      await until(
        async () => (await call(b, `/go/${id}`)).status,
        (s) => s === 404,
        1000,
      ),
    ).toBe(404);
    const page = await until(pageOnB, (p) => !p.includes("View Product"), 1000);
    expect(page).not.toContain("View Product");
    expect(page).not.toContain("Paid link");
    expect(page).not.toContain(">am<");
    expect(await until(jsonOnB, (j) => !j.includes("productUrl"), 1000)).not.toContain('"notes"');
  });

  test("a dead /go link: each visitor gets the 404 page made for them, never one made for another", async () => {
    // Signed in but without a username yet: the 404 page is the set-up screen, with the member's name.
    const { cookie } = await signUp(null, "Nameless Person");
    const dead = `/go/${2_000_000_000 + Math.floor(Math.random() * 100_000_000)}`;
    const visitors = [
      ["nameless member", { cookie }, true],
      ["signed out", {}, false],
      ["nameless member again", { cookie }, true],
      ["signed out again", {}, false],
    ] as const;
    for (const [who, init, named] of visitors) {
      const answer = await call(a, dead, init);
      const html = await answer.text();
      expect([who, answer.status, html.includes("Nameless")]).toEqual([who, 404, named]);
    }
  });

  test("views and clicks counted on two instances add up (owner, bots and HEAD left out; a 304 and another member's view count)", async () => {
    const owner = await signUp("two_sided");
    const member = await signUp("other_member");
    await setPremium(owner, true);
    const id = await addSupplement(owner, { name: "Iron", affiliateLink: "https://shop.example/iron" });
    const bot = { "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" };
    for (const on of [a, a, a, b, b]) expect((await call(on, `/go/${id}`)).status).toBe(302);
    expect((await call(b, `/go/${id}`, { headers: bot })).status).toBe(302);
    expect((await call(a, `/go/${id}`, { cookie: owner.cookie })).status).toBe(302);
    expect((await call(a, `/go/${id}`, { method: "HEAD" })).status).toBe(302);
    const first = await call(a, `/${owner.username}`);
    const etag = first.headers.get("etag") ?? "";
    expect((await call(a, `/${owner.username}`, { headers: { "if-none-match": etag } })).status).toBe(304);
    expect((await call(b, `/${owner.username}`, { headers: { "x-forwarded-for": "198.51.100.9" } })).status).toBe(200);
    expect((await call(b, `/${owner.username}`, { headers: bot })).status).toBe(200);
    expect((await call(b, `/${owner.username}`, { method: "HEAD" })).status).toBe(200);
    expect((await call(a, `/${owner.username}`, { cookie: owner.cookie })).status).toBe(200);
    expect((await call(b, `/${owner.username}`, { cookie: member.cookie })).status).toBe(200);
    const want = { clicks: 5, views: 4, visitors: 1 };
    // Each instance flushes every second (INSIGHTS_FLUSH_MS=1000); the owner's own view is decided after its answer.
    const got = await until(
      () => stored(id, owner),
      (v) => v.clicks >= want.clicks && v.views >= want.views,
      6000,
    );
    // Same address (no TRUST_PROXY: the socket's) and User-Agent on both instances: one visitor.
    expect(got).toEqual(want);
    const insights = await call(b, "/api/insights?days=7", { cookie: owner.cookie });
    expect(((await insights.json()) as { totals: unknown }).totals).toEqual(want);
  });

  test("counts held in memory survive a SIGTERM (an instance that only flushes at shutdown)", async () => {
    const c = await startInstance({ ...sharedEnv, INSIGHTS_FLUSH_MS: "0" });
    try {
      const owner = await signUp("sigterm_owner");
      await setPremium(owner, true);
      const id = await addSupplement(owner, { name: "Zinc", affiliateLink: "https://shop.example/zinc" });
      for (let i = 0; i < 4; i++) expect((await call(c, `/go/${id}`)).status).toBe(302);
      expect((await call(c, `/${owner.username}`)).status).toBe(200);
      expect(await stored(id, owner)).toEqual({ clicks: 0, views: 0, visitors: 0 });
      expect(await c.kill("SIGTERM")).toBe(0);
      expect(await stored(id, owner)).toEqual({ clicks: 4, views: 1, visitors: 1 });
    } finally {
      await c.stop();
    }
  });
});
