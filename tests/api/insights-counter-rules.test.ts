/**
 * Who counts in a member's insights (issue 14), over HTTP on the built server, read back only
 * through GET /api/insights as the owner: a table of visitors (anonymous, another signed-in
 * member, the owner, a bot, a HEAD request) × kinds (a view of the public page, a click on a
 * 'View Product' link). Behaviour only, no counter internals, so the table holds whatever the
 * counter's inside becomes. StrykerJS runs it per mutant of the counter (docs/mutation-testing.md).
 * Needs `bun --bun astro build`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { InsightsAnswer } from "../../src/lib/insights";
import { cookieHeader } from "../support/auth";
import { type ControlledApp, startControlledApp } from "../support/e2e-app";
import { skipWithoutBuild } from "../support/process";

const FLUSH_MS = 50;
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

interface Member {
  email: string;
  cookie: string;
}

const skip = skipWithoutBuild("insights-counter-rules.test.ts: who counts, on the built server");

let app: ControlledApp;
let owner: Member;
let member: Member;
let username: string;
let linkId: number;
/** A new User-Agent per row: each row's visitor is a new one. */
let agents = 0;
const freshAgent = () => `${BROWSER} Visitor/${++agents}`;

const call = (path: string, init: RequestInit & { cookie?: string; agent?: string } = {}) => {
  const headers = new Headers(init.headers);
  headers.set("user-agent", init.agent ?? freshAgent());
  headers.set("origin", app.url);
  if (init.cookie) headers.set("cookie", init.cookie);
  return fetch(`${app.url}${path}`, { ...init, headers, redirect: "manual" });
};

async function signUp(name: string): Promise<Member> {
  const email = `${name}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const res = await call("/api/auth/sign-up/email", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "correct horse battery", name: "Test User" }),
  });
  expect(res.status).toBe(200);
  return { email, cookie: cookieHeader(res) };
}

async function totals(): Promise<InsightsAnswer["totals"]> {
  const res = await call("/api/insights?days=7", { cookie: owner.cookie });
  expect(res.status).toBe(200);
  return ((await res.json()) as InsightsAnswer).totals;
}

/** Waits until the totals read `expected` (the counter flushes every FLUSH_MS), then that they stay so. */
async function settlesAt(expected: InsightsAnswer["totals"]): Promise<void> {
  const deadline = Date.now() + 10_000;
  let seen = await totals();
  while (JSON.stringify(seen) !== JSON.stringify(expected) && Date.now() < deadline) {
    await Bun.sleep(FLUSH_MS);
    seen = await totals();
  }
  expect(seen).toEqual(expected);
  await Bun.sleep(FLUSH_MS * 4);
  expect(await totals()).toEqual(expected);
}

describe.skipIf(skip)("who counts (visitors × kinds)", () => {
  beforeAll(async () => {
    app = await startControlledApp({ INSIGHTS_FLUSH_MS: String(FLUSH_MS) });
    owner = await signUp("owner");
    member = await signUp("member");
    await app.setPremium(owner.email);
    username = `Counted_${crypto.randomUUID().slice(0, 6)}`;
    const named = await call("/api/profile", {
      method: "PUT",
      cookie: owner.cookie,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username }),
    });
    expect(named.status).toBe(200);
    const added = await call("/api/supplements", {
      method: "POST",
      cookie: owner.cookie,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "Creatine",
        quantityType: "Capsule(s)",
        frequency: "Daily",
        affiliateLink: "https://shop.example/creatine",
      }),
    });
    expect(added.status).toBe(201);
    linkId = ((await added.json()) as { id: number }).id;
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
  });

  type Visitor = { cookie?: () => string; agent?: string; method?: string };
  const VISITORS: [string, Visitor, boolean][] = [
    ["anonymous", {}, true],
    ["another signed-in member", { cookie: () => member.cookie }, true],
    ["the owner, signed in", { cookie: () => owner.cookie }, false],
    ["a bot", { agent: BOT }, false],
    ["a link-preview fetcher", { agent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)" }, false],
    ["no User-Agent at all", { agent: "" }, false],
    ["a HEAD request", { method: "HEAD" }, false],
  ];
  const KINDS: [string, () => string, (answer: Response) => void][] = [
    ["a page view", () => `/${username}`, (answer) => expect(answer.status).toBe(200)],
    [
      "a /go click",
      () => `/go/${linkId}`,
      (answer) => {
        expect(answer.status).toBe(302);
        expect(answer.headers.get("location")).toBe("https://shop.example/creatine");
      },
    ],
  ];

  test.each(
    KINDS.flatMap(([kind, path, check]) =>
      VISITORS.map(([who, visitor, counted]) => [kind, who, counted, path, check, visitor] as const),
    ),
  )(
    "%s by %s: counted %p",
    async (kind, _who, counted, path, check, visitor) => {
      const before = await totals();
      const agent = visitor.agent ?? freshAgent();
      // Twice: the first may fill the server's caches, the second is answered from them.
      for (let i = 0; i < 2; i++) {
        const answer = await call(path(), {
          method: visitor.method ?? "GET",
          cookie: visitor.cookie?.(),
          agent,
        });
        check(answer);
      }
      const n = counted ? 2 : 0;
      await settlesAt(
        kind === "a page view"
          ? { views: before.views + n, visitors: before.visitors + (counted ? 1 : 0), clicks: before.clicks }
          : { ...before, clicks: before.clicks + n },
      );
    },
    30_000,
  );
});
