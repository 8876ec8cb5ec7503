/**
 * Issue 45, "the auth edges": the per-account sign-in limit counts every password check
 * whatever the body's content type (better-auth reads JSON, urlencoded and multipart forms),
 * and the limits' table stays bounded: a refused request writes no row, and rows of windows
 * that are over are deleted (api/lib/rate-limit.ts). Every request comes from its own address
 * (TRUST_PROXY), so only the account's budget can refuse, unless a test says otherwise.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { sql } from "drizzle-orm";
import { LIMITS, sweepExpired } from "../../api/lib/rate-limit";
import { startApi, type TestApi } from "../support/server";
import { inOneWindow } from "../support/windows";

let api: TestApi;
beforeAll(async () => {
  api = await startApi({ RATE_LIMIT: "on", TRUST_PROXY: "true" });
});
afterAll(async () => {
  setSystemTime();
  await api?.close();
});
afterEach(() => setSystemTime());

let n = 0;
/** A new client address each call. */
const nextIp = () => {
  n += 1;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};
const PASSWORD = "correct horse battery";

async function signUp(): Promise<string> {
  const email = `limit-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const res = await api.fetch("/api/auth/sign-up/email", {
    method: "POST",
    body: { email, password: PASSWORD, name: "Limit Test" },
    headers: { "x-forwarded-for": nextIp() },
  });
  expect(res.status).toBe(200);
  return email;
}

type Encode = (fields: Record<string, string>) => { body: BodyInit; type?: string };
const json =
  (type: string): Encode =>
  (f) => ({ body: JSON.stringify(f), type });
const form =
  (type: string): Encode =>
  (f) => ({ body: new URLSearchParams(f).toString(), type });
const ENCODINGS: [string, Encode, boolean][] = [
  // [what, how, whether better-auth reads it as fields (and so checks the password)]
  ["JSON", json("application/json"), true],
  ["JSON; charset=utf-8", json("application/json; charset=utf-8"), true],
  ["JSON in capitals", json("Application/JSON;Charset=UTF-8"), true],
  // better-auth takes only JSON and urlencoded bodies (415 for others); counted or not, no check.
  ["a +json type", json("application/vnd.api+json"), false],
  ["form-urlencoded", form("application/x-www-form-urlencoded"), true],
  ["form-urlencoded; charset", form("application/x-www-form-urlencoded; charset=ISO-8859-1"), true],
  ["form named inside another type", form("text/plain; x=application/x-www-form-urlencoded"), false],
  [
    "multipart",
    (f) => {
      const data = new FormData();
      for (const [k, v] of Object.entries(f)) data.append(k, v);
      return { body: data };
    },
    false,
  ],
  ["text/plain", json("text/plain"), false],
  ["no content type", (f) => ({ body: new TextEncoder().encode(JSON.stringify(f)) }), false],
];

async function signIn(email: string, password: string, encode: Encode = json("application/json"), ip = nextIp()) {
  const { body, type } = encode({ email, password });
  const headers: Record<string, string> = { "x-forwarded-for": ip };
  if (type) headers["content-type"] = type;
  const res = await api.fetch("/api/auth/sign-in/email", { method: "POST", body, headers });
  return res.status;
}

describe("every password check counts against the account, whatever the content type", () => {
  const { max } = LIMITS.password;
  for (const [what, encode, read] of ENCODINGS) {
    test(`${what}: ${read ? `${max} wrong guesses, then even the right password is refused` : "415, no password checked"}`, async () => {
      await inOneWindow(async () => {
        const email = await signUp();
        const guesses: number[] = [];
        for (let i = 0; i < max; i++) guesses.push(await signIn(email, `wrong guess ${i}`, encode));
        expect(guesses.filter((s) => s === 200)).toEqual([]);
        expect(guesses).toEqual(guesses.map(() => (read ? 401 : 415)));
        // Counted or not (the limit may count a body better-auth refuses), never an 11th check.
        const last = await signIn(email, PASSWORD);
        if (read) expect(last).toBe(429);
        else expect([200, 429]).toContain(last);
      }, LIMITS.password);
    });
  }

  const spellings: [string, (email: string) => string][] = [
    ["upper case", (e) => e.toUpperCase()],
    ["mixed case", (e) => e[0]?.toUpperCase() + e.slice(1)],
    ["spaces around", (e) => `  ${e}  `],
    ["a tab and a newline", (e) => `\t${e}\n`],
  ];
  for (const [what, spell] of spellings) {
    for (const [encoding, encode] of [ENCODINGS[0], ENCODINGS[4]] as [string, Encode, boolean][]) {
      test(`the e-mail in ${what} (${encoding}) is the same account`, async () => {
        await inOneWindow(async () => {
          const email = await signUp();
          for (let i = 0; i < max; i++) expect(await signIn(spell(email), `wrong ${i}`, encode)).not.toBe(200);
          expect(await signIn(email, PASSWORD)).toBe(429);
        }, LIMITS.password);
      });
    }
  }
});

async function rowCount(): Promise<number> {
  const result = await api.ctx.database.db.execute(sql`select count(*)::int as n from rate_limits`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { n: number }[];
  return Number(rows[0]?.n);
}

describe("the limits' table stays small", () => {
  test("1,000 sign-ins with new e-mails from one address write its row and the first accounts', no more; a window later they are gone", async () => {
    const ip = nextIp();
    const { max } = LIMITS.passwordFromAddress;
    await inOneWindow(async () => {
      await api.ctx.database.db.execute(sql`delete from rate_limits`);
      const statuses = new Map<number, number>();
      for (let i = 0; i < 1000; i++) {
        const status = await signIn(
          `flood-${i}-${crypto.randomUUID().slice(0, 6)}@example.com`,
          "guess",
          undefined,
          ip,
        );
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      expect(Object.fromEntries(statuses)).toEqual({ 401: max, 429: 1000 - max });
      // The address's row and one per account tried before the address was refused.
      expect(await rowCount()).toBe(max + 1);
    }, LIMITS.passwordFromAddress);
    // An hour and a minute later, the next limited request sweeps what is over.
    setSystemTime(new Date(Date.now() + 3_660_000));
    expect(await signIn(`later-${crypto.randomUUID()}@example.com`, "guess")).toBe(401);
    expect(await rowCount()).toBe(2);
  }, 120_000);

  test("the sweep deletes each budget's rows once its own window is over, unknown prefixes after the longest", async () => {
    const db = api.ctx.database.db;
    await db.execute(sql`delete from rate_limits`);
    const now = Math.floor(Date.now() / 1000);
    const minute = Math.floor(now / 60) * 60;
    const hour = Math.floor(now / 3600) * 3600;
    const rows: [string, number, boolean][] = [
      // [key, window start, kept]
      ["password:current", minute, true],
      ["password:last-minute", minute - 60, false],
      ["password:long-ago", minute - 86_400, false],
      ["mailFromAccount:current", hour, true],
      ["mailFromAccount:last-hour", hour - 3600, false],
      ["profile:current-minute", minute, true],
      ["profile:last-minute", minute - 60, false],
      ["profile:an-hour-ago", now - 3600, false],
      // A prefix no budget names: kept for the longest window (a day, the mail budgets'), then gone.
      ["unknown:an-hour-ago", now - 3600, true],
      ["unknown:two-days-ago", now - 2 * 86_400, false],
    ];
    for (const [key, start] of rows) {
      await db.execute(sql`insert into rate_limits (key, window_start, count) values (${key}, ${start}, 3)`);
    }
    await sweepExpired(api.ctx, true);
    const left = await db.execute(sql`select key from rate_limits order by key`);
    const keys = ((Array.isArray(left) ? left : (left as { rows: unknown[] }).rows) as { key: string }[]).map(
      (r) => r.key,
    );
    expect(keys).toEqual(
      rows
        .filter(([, , kept]) => kept)
        .map(([key]) => key)
        .sort(),
    );
  });
});
