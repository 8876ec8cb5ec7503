/**
 * Hostile input. fast-check bodies over every endpoint that takes one (FUZZ_RUNS cases each,
 * 300 by default): every answer a 4xx or 2xx JSON, never a 5xx; a refused request leaves every
 * table as it was; nothing pollutes Object.prototype. Then, against the built server with its
 * memory watched: decompression bombs, truncated images, broken multipart and a 100 MB body
 * (with and without Content-Length): a clean 413 JSON, fast, nothing buffered.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { deflateSync } from "node:zlib";
import fc from "fast-check";
import sharp from "sharp";
import { createApp } from "../../api/app";
import type { AppContext } from "../../api/lib/context";
import { SURROGATE_MESSAGE } from "../../api/lib/http";
import { changeEmailSchema, changePasswordSchema, deleteAccountSchema } from "../../src/lib/account";
import { calendarInputSchema } from "../../src/lib/calendar";
import { QUANTITY_TYPES } from "../../src/lib/constants";
import { DEFAULT_PUSH_HOSTS } from "../../src/lib/push-hosts";
import { pushSubscriptionSchemaFor, reminderSettingsSchema } from "../../src/lib/reminders";
import { refillInputSchema, stockInputSchema } from "../../src/lib/stock-input";
import { profileUpdateSchema, reorderSchema, supplementInputSchema } from "../../src/lib/validation";
import { type FakeStripe, startFakeStripe } from "../fakes/stripe-server";
import { type Instance, type SharedDatabase, sharedDatabase, startInstance } from "../support/instances";
import { expectConsoleError } from "../support/preload";
import { skipWithoutBuild } from "../support/process";
import { startApi, type TestApi } from "../support/server";
import { settledTrash, snapshotTables } from "../support/snapshot";
import { type ApiUser, createUser, userRow } from "../support/users";

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/**
 * The seeds every property runs with. `FUZZ_SEED=n` alone when set (to replay a failure);
 * in CI a fixed seed and a fresh random one, half the cases each (the same total, so no
 * slower); elsewhere a fresh random one. Every failure names its seed.
 */
const FIXED_SEED = 2101606596;
const randomSeed = () => Math.floor(Math.random() * 2 ** 31);
const SEEDS: number[] = process.env.FUZZ_SEED
  ? [Number(process.env.FUZZ_SEED)]
  : process.env.CI
    ? [FIXED_SEED, randomSeed()]
    : [randomSeed()];
if (!SEEDS.every(Number.isSafeInteger)) throw new Error(`FUZZ_SEED must be an integer, not ${process.env.FUZZ_SEED}`);
console.log(`hostile-input: fast-check seed(s) ${SEEDS.join(", ")}; replay one with FUZZ_SEED=<seed>`);
const MB = 1024 * 1024;

// ---------------------------------------------------------------- arbitraries

/** Strings a careless server trips on. */
const EDGE_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff\ud800",
  "\u202eevil\u202c",
  "\ufeffbom",
  "e\u0301\u0301\u0301",
  "🧪".repeat(40),
  "\u200b".repeat(10),
  "<script>alert(1)</script>",
  "' or 1=1 --",
  "'); drop table users; --",
  "$" + "{jndi:ldap://127.0.0.1/x}",
  "%00%27",
  "javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "http://",
  `https://${"a".repeat(3000)}.com`,
  "x".repeat(101),
  "x".repeat(1001),
  "__proto__",
  "constructor",
  "1e309",
  "NaN",
];

const edgeString = fc.constantFrom(...EDGE_STRINGS);
const hugeString = fc
  .tuple(fc.integer({ min: 1_000, max: 200_000 }), fc.constantFrom("x", "é", "🧪", "\u0000", "<", "\\"))
  .map(([n, c]) => c.repeat(n));
const anyString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 60 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 60 }) },
  { weight: 3, arbitrary: edgeString },
  { weight: 1, arbitrary: hugeString },
);
const outOfRangeNumber = fc.constantFrom(
  0,
  -1,
  -0,
  0.5,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  Number.MIN_VALUE,
);
/** Any JSON value, prototype keys included, nested a few levels. */
const jsonish: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    anyString,
    fc.integer(),
    fc.double(),
    outOfRangeNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(
      fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("__proto__", "constructor", "prototype")),
      tie("value"),
      {
        maxKeys: 5,
      },
    ),
  ),
})).value;

/** Raw bodies that are not what any endpoint expects. */
const rawBody = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.integer({ min: 100, max: 20_000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
  fc.integer({ min: 100, max: 20_000 }).map((n) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`),
  fc.constantFrom(
    "{",
    "}",
    "[]",
    "null",
    "true",
    "0",
    '"string"',
    "NaN",
    "{'single': 'quotes'}",
    '{"a":1,}',
    '{"__proto__":{"isPremium":true,"polluted":1}}',
    '{"constructor":{"prototype":{"isPremium":true,"polluted":1}}}',
    '{"name":"a","name":{"__proto__":{"polluted":1}}}',
    "\ufeff{}",
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    `{"a":${"9".repeat(400)}}`,
  ),
);

/** A body near the valid one: each field kept, dropped or made hostile, plus hostile extras. */
function nearValid(valid: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<string> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, arb] of Object.entries(valid)) {
    // A valid value with an edge character spliced in is the likeliest to get past a schema.
    const poisoned = fc
      .tuple(arb, fc.constantFrom("\u0000", "\ud800", "\u202e", "\ufeff", "\u0085"), fc.nat())
      .map(([v, ch, at]) => {
        if (typeof v !== "string") return v;
        const i = at % (v.length + 1);
        return v.slice(0, i) + ch + v.slice(i);
      });
    fields[key] = fc.oneof(
      { weight: 3, arbitrary: arb },
      { weight: 2, arbitrary: jsonish },
      { weight: 1, arbitrary: anyString },
      { weight: 1, arbitrary: poisoned },
    );
  }
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.dictionary(
        fc.constantFrom("__proto__", "constructor", "isPremium", "userId", "id", "sortOrder", "extra"),
        jsonish,
        {
          maxKeys: 3,
        },
      ),
    )
    .map(([base, extra]) => {
      // JSON text, so that "__proto__" really is a key of the sent object.
      const parts = [...Object.entries(base), ...Object.entries(extra)].map(
        ([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`,
      );
      return `{${parts.join(",")}}`;
    });
}

/** Either a near-valid body (as JSON text), a random JSON value, or raw garbage. */
const bodyFor = (valid: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 5, arbitrary: nearValid(valid) },
    { weight: 2, arbitrary: jsonish.map((v) => JSON.stringify(v) ?? "null") },
    { weight: 2, arbitrary: rawBody },
  );

const validUrl = fc.constantFrom("https://example.com/x", "http://a.b/c?d=e", "");
const supplementFields = {
  name: fc.string({ minLength: 1, maxLength: 30 }),
  quantityType: fc.constantFrom(...QUANTITY_TYPES),
  frequency: fc.string({ minLength: 1, maxLength: 30 }),
  affiliateLink: validUrl,
  notes: fc.string({ maxLength: 50 }),
};

// ---------------------------------------------------------------- harness

let api: TestApi;
let fake: FakeStripe;
const PROTO_KEYS = Object.getOwnPropertyNames(Object.prototype).sort().join(",");

/** Every table, less Undo copies about to expire: their purge timer is not the request's write. */
const snapshot = (where: Record<string, string>) => snapshotTables(api.ctx.database.db, undefined, where);

interface Outcome {
  status: number;
  type: string;
  body: string;
}

async function send(method: string, path: string, body: string | undefined, cookie?: string): Promise<Outcome> {
  const res = await api.fetch(path, {
    method,
    body,
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
  });
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
}

function parsed(body: string): unknown {
  try {
    // A UTF-8 byte order mark is dropped on decoding, as a server should; no body is `{}` (api/lib/http.ts).
    const text = body.replace(/^\ufeff/, "");
    return text === "" ? {} : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The property for one endpoint: never a 5xx, always JSON; a body the schema refuses is
 * a 400; a refused request changes nothing; the server's Object.prototype stays clean.
 */
async function checkCase(
  method: string,
  path: string,
  body: string,
  cookie: string | undefined,
  schema?: { safeParse(v: unknown): { success: boolean } },
): Promise<void> {
  const settled = settledTrash();
  const before = await snapshot(settled);
  const out = await send(method, path, body, cookie);
  const where = `${method} ${path} ${JSON.stringify(body.slice(0, 200))} → ${out.status} ${out.body.slice(0, 200)}`;
  expect(out.status, where).toBeLessThan(500);
  if (out.status !== 204) {
    expect(out.type, where).toContain("application/json");
    if (out.status >= 400) expect(typeof (parsed(out.body) as { message?: unknown })?.message, where).toBe("string");
  }
  if (schema) {
    const value = parsed(body);
    if (value === undefined || !schema.safeParse(value).success) expect(out.status, where).toBe(400);
  }
  if (out.status >= 400) expect(await snapshot(settled), `${where}: the database changed`).toBe(before);
  expect(Object.getOwnPropertyNames(Object.prototype).sort().join(","), where).toBe(PROTO_KEYS);
  expect(({} as Record<string, unknown>).isPremium, where).toBeUndefined();
  expect(({} as Record<string, unknown>).polluted, where).toBeUndefined();
}

/** The longest encoded path segment the fuzz sends: the request head must stay under Bun's 16 KiB. */
const MAX_ROUTED_SEGMENT = 15_000;

/** Any string as a path segment; lone surrogates go as the invalid UTF-8 a client could send. */
const pathSegment = (s: string) =>
  s.isWellFormed() ? encodeURIComponent(s) : `${encodeURIComponent(s.toWellFormed())}%ED%A0%80`;

/** Checks `property` for RUNS cases over SEEDS; a failure says which seed replays it. */
async function fuzz<Ts extends unknown[]>(property: fc.IAsyncPropertyWithHooks<Ts>, runs = RUNS): Promise<void> {
  const perSeed = Math.max(1, Math.ceil(runs / SEEDS.length));
  for (const seed of SEEDS) {
    try {
      await fc.assert(property, { numRuns: perSeed, seed, endOnFailure: true });
    } catch (error) {
      throw new Error(
        `Failed with FUZZ_SEED=${seed} (${perSeed} cases); replay with FUZZ_SEED=${seed} FUZZ_RUNS=${perSeed} ` +
          `bun test tests/api/hostile-input.test.ts -t '<this test>'\n${(error as Error).message}`,
        { cause: error },
      );
    }
  }
}

/** Non-GET routes and how each is fuzzed; a new one without an entry fails the coverage test. */
const FUZZED: Record<string, string> = {
  "PUT /api/profile": "profile fields",
  "POST /api/supplements": "supplement fields",
  "PUT /api/supplements/:id": "supplement fields and path ids",
  "PUT /api/supplements/reorder": "id lists",
  "DELETE /api/supplements/:id": "path ids",
  "POST /api/supplements/:id/restore": "path ids",
  "PUT /api/supplements/:id/stock": "stock bodies and path ids, below",
  "POST /api/supplements/:id/refills": "refill bodies and path ids, below",
  "POST /api/auth/*": "sign-up, sign-in, update-user, change-password, reset requests",
  "POST /api/get-or-create-subscription": "ignored body",
  "POST /api/cancel-subscription": "ignored body",
  "POST /api/create-portal-session": "ignored body",
  "POST /api/logout": "no body read; ends the caller's session (security-sessions.test.ts, malformed-json.test.ts)",
  "POST /api/stripe/webhook": "raw payloads and signatures",
  "POST /api/upload/profile-image": "multipart, below (real server)",
  "DELETE /api/account": "deletion bodies (password, confirm); nothing may be deleted",
  "POST /api/account/password": "password change bodies",
  "POST /api/account/email": "e-mail change bodies",
  "POST /api/account/sessions/revoke-others": "no body read; ends the caller's other sessions (account.test.ts)",
  "DELETE /api/account/sessions/:id": "path ids, below",
  "PUT /api/intakes/:date/:supplementId/:time": "dates, ids, times and status bodies, below",
  "DELETE /api/intakes/:date/:supplementId/:time": "dates, ids and times, below",
  "PUT /api/intakes/:date": "Take all: dates and dose lists, below",
  "PUT /api/reminders": "reminder settings bodies, below",
  "POST /api/reminders/test": "no body read; needs a channel, 5 an hour (reminders.test.ts)",
  "POST /api/reminders/unsubscribe": "no body read; a signed query, HTML answers (reminders.test.ts)",
  "POST /api/push/subscriptions": "push subscription bodies, below",
  "DELETE /api/push/subscriptions/:id": "path ids, below",
  "PUT /api/calendar": "calendar feed switches, below",
  "POST /api/calendar/reset": "no body read, below",
  "POST /api/copies": "copy requests, below",
};

describe("coverage", () => {
  test("every route that takes a body is fuzzed here", () => {
    const app = createApp({} as AppContext);
    const writes = [
      ...new Set(
        app.routes.filter((r) => !["GET", "HEAD", "ALL"].includes(r.method)).map((r) => `${r.method} ${r.path}`),
      ),
    ];
    expect(writes.filter((r) => !(r in FUZZED))).toEqual([]);
  });
});

/**
 * Text Postgres cannot store as sent, fixed cases. The first is the fuzz case (seed
 * 2101606596) that answered 500 on reset-password: a lone high surrogate, U+0085, a lone
 * low surrogate, then an astral character. PGlite's protocol writer counts a lone low
 * surrogate as the second half of a pair and skips the character before it, so the token
 * went out one byte short, cut inside its last character ("invalid byte sequence for
 * encoding UTF8"). Lone surrogates elsewhere were stored silently as U+FFFD. Every JSON
 * body, ours and better-auth's, is refused with a 400 keyed by the field instead.
 */
describe("lone surrogates in any JSON body: 400 keyed by the field, nothing written", () => {
  const TRIGGER = "\ud951\u0085\udced\u{cd1b3}";
  const VARIANTS = [
    TRIGGER,
    "\ud800",
    "\udfff",
    "é\udc00",
    "中\udfff",
    "\u0085\udced",
    "x\ud83e",
    "\ude00\ud83d",
    "\ud800\ud800🧪",
    "ok🧪\udbff",
  ];
  let text: TestApi;
  let owner: ApiUser;
  let supplementId: number;
  const okSupplement = { name: "Zinc", quantityType: "Other", frequency: "daily" };

  beforeAll(async () => {
    text = await startApi();
    owner = await createUser(text, { username: `lone_${crypto.randomUUID().slice(0, 6)}`, premium: true });
    const res = await text.fetch("/api/supplements", {
      method: "POST",
      headers: { cookie: owner.cookie },
      body: okSupplement,
    });
    supplementId = ((await res.json()) as { id: number }).id;
  }, 60_000);
  afterAll(async () => {
    await text?.close();
  });

  /** Route, the field that carries the text, and the body around it; `auth` sends the owner's cookie. */
  const ROUTES: [string, string, string, (v: string) => Record<string, unknown>, boolean][] = [
    ["POST", "/api/auth/reset-password", "token", (v) => ({ token: v, newPassword: "long enough password" }), false],
    ["PUT", "/api/profile", "bio", (v) => ({ bio: v }), true],
    ["PUT", "/api/profile", "username", (v) => ({ username: v }), true],
    ["POST", "/api/supplements", "name", (v) => ({ ...okSupplement, name: v }), true],
    ["POST", "/api/supplements", "notes", (v) => ({ ...okSupplement, notes: v }), true],
    ["PUT", "/api/supplements/:id", "frequency", (v) => ({ ...okSupplement, frequency: v }), true],
    [
      "POST",
      "/api/auth/sign-up/email",
      "name",
      (v) => ({ email: "new@example.com", password: "long enough", name: v }),
      false,
    ],
    ["POST", "/api/auth/sign-in/email", "email", (v) => ({ email: v, password: "long enough" }), false],
    ["POST", "/api/account/password", "newPassword", (v) => ({ currentPassword: "x", newPassword: v }), true],
    [
      "POST",
      "/api/account/email",
      "currentPassword",
      (v) => ({ newEmail: "moved@example.com", currentPassword: v }),
      true,
    ],
    ["POST", "/api/auth/request-password-reset", "email", (v) => ({ email: v }), false],
  ];

  for (const [method, route, field, body, auth] of ROUTES) {
    test(`${method} ${route} with a lone surrogate in ${field} (${VARIANTS.length} variants)`, async () => {
      const path = route.replace(":id", String(supplementId));
      const before = await snapshotTables(text.ctx.database.db);
      for (const value of VARIANTS) {
        const res = await text.fetch(path, {
          method,
          headers: auth ? { cookie: owner.cookie } : {},
          body: body(value),
        });
        const answer = await res.text();
        const where = `${JSON.stringify(value)} → ${res.status} ${answer.slice(0, 200)}`;
        expect(res.status, where).toBe(400);
        const parsedAnswer = JSON.parse(answer) as { message: string; errors?: Record<string, string[]> };
        expect(parsedAnswer.message, where).toBe(SURROGATE_MESSAGE);
        expect(parsedAnswer.errors?.[field], where).toEqual([SURROGATE_MESSAGE]);
      }
      // As a key, too.
      const keyed = await text.fetch(path, {
        method,
        headers: auth ? { cookie: owner.cookie } : {},
        body: { ...body("fine"), "\udc00key": "x" },
      });
      expect(keyed.status).toBe(400);
      expect(await snapshotTables(text.ctx.database.db)).toBe(before);
    });
  }

  test("well-formed text outside the Basic Multilingual Plane is stored exactly as sent", async () => {
    for (const value of ["\u{cd1b3}", "é\u{1f600}", "\u0085\u{643ed}\u{cd1b3}", "🧪".repeat(20)]) {
      const res = await text.fetch("/api/profile", {
        method: "PUT",
        headers: { cookie: owner.cookie },
        body: { bio: value },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { bio: string }).bio).toBe(value);
      expect((await userRow(text, owner)).bio).toBe(value);
    }
  });
});

describe("JSON endpoints under fast-check", () => {
  let owner: ApiUser;
  let premium: ApiUser;
  const ownIds: number[] = [];

  beforeAll(async () => {
    fake = await startFakeStripe({ autoDeliver: false });
    api = await startApi(fake.env());
    owner = await createUser(api, { username: `fuzz_${crypto.randomUUID().slice(0, 6)}` });
    premium = await createUser(api, { username: `fuzzp_${crypto.randomUUID().slice(0, 6)}`, premium: true });
    for (let i = 0; i < 3; i++) {
      const res = await api.fetch("/api/supplements", {
        method: "POST",
        headers: { cookie: owner.cookie },
        body: { name: `Seed ${i}`, quantityType: "Other", frequency: "daily" },
      });
      ownIds.push(((await res.json()) as { id: number }).id);
    }
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await fake?.close();
  });

  test(`PUT /api/profile (${RUNS} cases)`, async () => {
    const body = bodyFor({
      username: fc.stringMatching(/^[A-Za-z0-9_]{3,20}$/),
      bio: fc.string({ maxLength: 100 }),
      websiteUrl: validUrl,
      instagramUrl: validUrl,
      profileImageUrl: fc.constantFrom("/images/abcdefghijklmnop.webp", "https://x.y/a.png", ""),
    });
    await fuzz(fc.asyncProperty(body, (b) => checkCase("PUT", "/api/profile", b, owner.cookie, profileUpdateSchema)));
  }, 600_000);

  test(`POST /api/supplements (${RUNS} cases)`, async () => {
    await fuzz(
      fc.asyncProperty(bodyFor(supplementFields), fc.boolean(), (b, asPremium) =>
        checkCase("POST", "/api/supplements", b, asPremium ? premium.cookie : owner.cookie, supplementInputSchema),
      ),
    );
  }, 600_000);

  const pathId = () =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...ownIds).map(String) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          "0",
          "-1",
          "2147483648",
          "99999999999999999999",
          "1e3",
          "0x10",
          "１",
          "1.5",
          "%00",
          "%2e%2e",
          "reorder",
          "NaN",
          "00000000001",
          " 1",
          "1;drop",
        ),
      },
      { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).map(pathSegment) },
      { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String) },
    );

  test(`PUT /api/supplements/:id (${RUNS} cases)`, async () => {
    await fuzz(
      fc.asyncProperty(bodyFor(supplementFields), pathId(), (b, id) =>
        // A bad id may be answered (404/400) before the body is read; the schema rule holds for real ids.
        checkCase(
          "PUT",
          `/api/supplements/${id}`,
          b,
          owner.cookie,
          ownIds.map(String).includes(id) ? supplementInputSchema : undefined,
        ),
      ),
    );
  }, 600_000);

  test(`GET and DELETE /api/supplements/:id and POST …/restore with hostile ids (${RUNS} cases)`, async () => {
    // Only ids that are not the owner's: a real one would (rightly) be deleted.
    const foreignId = pathId().filter((id) => !ownIds.map(String).includes(id));
    await fuzz(
      fc.asyncProperty(foreignId, fc.constantFrom("GET", "DELETE", "restore"), async (id, method) => {
        if (method === "restore") await checkCase("POST", `/api/supplements/${id}/restore`, "", owner.cookie);
        else await checkCase(method, `/api/supplements/${id}`, "", owner.cookie);
      }),
    );
  }, 600_000);

  // Issue 40: stock and refills; anything not valid is a 400 writing nothing.
  test(`PUT /api/supplements/:id/stock and POST …/refills (${RUNS} cases)`, async () => {
    const amount = fc.oneof(fc.constantFrom(0, 1, 2.5, 99_999, 100_000, -1, 1.005, null), jsonish);
    const stock = bodyFor({ count: amount, unitsPerPack: amount });
    const refill = bodyFor({ packs: fc.oneof(fc.constantFrom(1, 20, 21, 0, 1.5, -1), jsonish) });
    await fuzz(
      fc.asyncProperty(pathId(), fc.boolean(), stock, refill, (id, isStock, s, r) => {
        const own = ownIds.map(String).includes(id);
        return isStock
          ? checkCase("PUT", `/api/supplements/${id}/stock`, s, owner.cookie, own ? stockInputSchema : undefined)
          : checkCase("POST", `/api/supplements/${id}/refills`, r, owner.cookie, own ? refillInputSchema : undefined);
      }),
    );
  }, 600_000);

  test(`PUT /api/supplements/reorder (${RUNS} cases)`, async () => {
    const ids = fc.oneof(
      fc.shuffledSubarray(ownIds).map((a) => a as unknown[]),
      fc.array(fc.oneof(fc.constantFrom(...ownIds), outOfRangeNumber, jsonish), { maxLength: 8 }),
      fc.constant([...ownIds, ownIds[0]]),
      fc.integer({ min: 201, max: 5000 }).map((n) => Array.from({ length: n }, (_, i) => i + 1)),
    );
    const body = fc.oneof(
      { weight: 4, arbitrary: ids.map((supplementIds) => JSON.stringify({ supplementIds })) },
      bodyFor({ supplementIds: ids }),
    );
    await fuzz(
      fc.asyncProperty(body, (b) => checkCase("PUT", "/api/supplements/reorder", b, owner.cookie, reorderSchema)),
    );
  }, 600_000);

  test(`GET /api/profile/:username with hostile names (${RUNS} cases)`, async () => {
    // Names whose encoded path fits Bun's request head (16 KiB, --max-http-header-size): a
    // longer one never reaches the app (the test below); a random seed in CI drew ~2,500 emoji.
    const name = fc.oneof(
      anyString.filter((s) => s.length < 5000 && pathSegment(s).length < MAX_ROUTED_SEGMENT),
      fc.constantFrom("..", "%2F", "a/b", "ADMIN", "api"),
    );
    await fuzz(
      fc.asyncProperty(name, async (n) => {
        const res = await api.fetch(`/api/profile/${pathSegment(n)}`);
        const text = await res.text();
        expect(res.status, `${n.slice(0, 50)} → ${res.status} ${text.slice(0, 100)}`).toBeLessThan(500);
        expect(res.headers.get("content-type") ?? "").toContain("application/json");
      }),
    );
  }, 600_000);

  test("a path longer than Bun's 16 KiB request head: 431 from the HTTP layer, and the server keeps serving", async () => {
    for (const segment of [
      encodeURIComponent("🧪".repeat(1500)),
      "a".repeat(17 * 1024),
      encodeURIComponent("ж".repeat(4000)),
    ]) {
      const res = await api.fetch(`/api/profile/${segment}`);
      await res.arrayBuffer();
      expect(res.status).toBe(431);
    }
    const ok = await api.fetch(`/api/profile/${encodeURIComponent("🧪".repeat(100))}`);
    expect(ok.status).toBe(404);
    expect(ok.headers.get("content-type") ?? "").toContain("application/json");
  });

  // better-auth's JSON endpoints. Each gets its own user (a valid change-password would change theirs).
  const AUTH: [string, Record<string, fc.Arbitrary<unknown>>, boolean][] = [
    [
      "/api/auth/sign-up/email",
      {
        email: fc.oneof(fc.emailAddress(), anyString),
        password: fc.oneof(fc.string({ minLength: 8, maxLength: 20 }), anyString),
        name: fc.string({ maxLength: 20 }),
      },
      false,
    ],
    [
      "/api/auth/sign-in/email",
      { email: fc.oneof(fc.emailAddress(), anyString), password: anyString, rememberMe: fc.boolean() },
      false,
    ],
    ["/api/auth/update-user", { name: fc.string({ maxLength: 20 }), image: validUrl }, true],
    [
      "/api/auth/change-password",
      { currentPassword: anyString, newPassword: anyString, revokeOtherSessions: fc.boolean() },
      true,
    ],
    [
      "/api/auth/request-password-reset",
      { email: fc.oneof(fc.emailAddress(), anyString), redirectTo: anyString },
      false,
    ],
    ["/api/auth/reset-password", { token: anyString, newPassword: anyString }, false],
  ];

  for (const [path, fields, signedIn] of AUTH) {
    test(`POST ${path} (${RUNS} cases)`, async () => {
      // better-auth logs refused bodies at error level in some cases; they are answers, not faults.
      expectConsoleError(/auth: /);
      const user = signedIn ? await createUser(api) : undefined;
      await fuzz(fc.asyncProperty(bodyFor(fields), (b) => checkCase("POST", path, b, user?.cookie)));
    }, 600_000);
  }

  // Issue 15: the account routes. The fuzzed user's password and username are never guessed,
  // so every deletion is refused and must write nothing; an e-mail change only sends a link.
  test(`DELETE /api/account (${RUNS} cases)`, async () => {
    expectConsoleError(/auth: /);
    const user = await createUser(api, { username: `fuzzd_${crypto.randomUUID().slice(0, 6)}` });
    const body = bodyFor({ password: anyString, confirm: fc.oneof(anyString, fc.constant("DELETE")) });
    await fuzz(fc.asyncProperty(body, (b) => checkCase("DELETE", "/api/account", b, user.cookie, deleteAccountSchema)));
    expect((await userRow(api, user)).id).toBe(user.id);
  }, 600_000);

  test(`POST /api/account/password (${RUNS} cases)`, async () => {
    expectConsoleError(/auth: /);
    const user = await createUser(api);
    const body = bodyFor({ currentPassword: anyString, newPassword: anyString, revokeOtherSessions: fc.boolean() });
    await fuzz(
      fc.asyncProperty(body, (b) => checkCase("POST", "/api/account/password", b, user.cookie, changePasswordSchema)),
    );
  }, 600_000);

  test(`POST /api/account/email (${RUNS} cases)`, async () => {
    expectConsoleError(/auth: /);
    const user = await createUser(api);
    const body = bodyFor({ newEmail: fc.oneof(fc.emailAddress(), anyString), callbackURL: anyString });
    await fuzz(
      fc.asyncProperty(body, (b) => checkCase("POST", "/api/account/email", b, user.cookie, changeEmailSchema)),
    );
    expect((await userRow(api, user)).email).toBe(user.email);
  }, 600_000);

  test(`DELETE /api/account/sessions/:id with hostile ids (${RUNS} cases)`, async () => {
    await fuzz(
      fc.asyncProperty(pathId(), async (id) => {
        await checkCase("DELETE", `/api/account/sessions/${id}`, "", owner.cookie);
      }),
    );
  }, 600_000);

  // Issue 19: a dose's path is three user-given segments and a status body. Valid ones tick
  // (200) or undo (204); anything else is a 4xx that writes nothing.
  test(`PUT and DELETE /api/intakes/:date/:supplementId/:time (${RUNS} cases)`, async () => {
    const today = new Date().toISOString().slice(0, 10);
    const date = fc.oneof(
      { weight: 2, arbitrary: fc.constant(today) },
      {
        weight: 2,
        arbitrary: fc.constantFrom("2026-02-30", "2026-13-01", "0000-00-00", "20261123", "2026-1-1", "9999-12-31"),
      },
      { weight: 1, arbitrary: anyString.map((s) => pathSegment(s.slice(0, 64))) },
    );
    const time = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom("anytime", "morning", "as-needed", "bedtime") },
      { weight: 1, arbitrary: anyString.map((s) => pathSegment(s.slice(0, 64))) },
    );
    const body = bodyFor({ status: fc.oneof(fc.constantFrom("taken", "skipped"), anyString) });
    await fuzz(
      fc.asyncProperty(fc.constantFrom("PUT", "DELETE"), date, pathId(), time, body, (method, d, id, t, b) =>
        checkCase(method, `/api/intakes/${d}/${id}/${t}`, method === "PUT" ? b : "", owner.cookie),
      ),
    );
  }, 600_000);

  // Issue 38: Take all's date and its list of doses, one status for all (null clears).
  test(`PUT /api/intakes/:date (${RUNS} cases)`, async () => {
    const today = new Date().toISOString().slice(0, 10);
    const date = fc.oneof(
      { weight: 3, arbitrary: fc.constant(today) },
      { weight: 1, arbitrary: fc.constantFrom("2026-02-30", "20261123", "9999-12-31") },
      { weight: 1, arbitrary: anyString.map((s) => pathSegment(s.slice(0, 64))) },
    );
    const doseItem = fc.record({
      supplementId: fc.oneof(fc.constantFrom(...ownIds), fc.integer(), anyString),
      time: fc.oneof(fc.constantFrom("anytime", "morning", "as-needed"), anyString),
    });
    const body = bodyFor({
      status: fc.oneof(fc.constantFrom("taken", "skipped", null), anyString),
      doses: fc.oneof(fc.array(doseItem, { maxLength: 4 }), anyString),
    });
    await fuzz(fc.asyncProperty(date, body, (d, b) => checkCase("PUT", `/api/intakes/${d}`, b, owner.cookie)));
  }, 600_000);

  // Issue 39: reminder settings and push subscriptions; anything not valid is a 400 writing nothing.
  test(`PUT /api/reminders (${RUNS} cases)`, async () => {
    const time = fc.oneof(fc.constantFrom("08:00", "23:59", "00:00", "24:00", "8:00"), anyString);
    const body = bodyFor({
      times: fc.oneof(fc.record({ morning: time, bedtime: time }, { requiredKeys: [] }), jsonish),
      email: fc.oneof(fc.boolean(), jsonish),
      push: fc.oneof(fc.boolean(), jsonish),
      followUpMinutes: fc.oneof(fc.constantFrom(0, 30, 60, 120, 45, -1), jsonish),
      followUps: fc.oneof(fc.constantFrom(0, 1, 2, 3, 4, -1, 1.5), jsonish),
      refillLeadDays: fc.oneof(fc.constantFrom(0, 3, 7, 14, 5, -1), jsonish),
    });
    await fuzz(
      fc.asyncProperty(body, (b) => checkCase("PUT", "/api/reminders", b, owner.cookie, reminderSettingsSchema)),
    );
  }, 600_000);

  // Issue 50: the calendar feed's switches and reset, and copies of another's stack.
  test(`PUT /api/calendar and POST /api/calendar/reset (${RUNS} cases)`, async () => {
    const body = bodyFor({
      enabled: fc.oneof(fc.boolean(), jsonish),
      hideNames: fc.oneof(fc.boolean(), jsonish),
    });
    await fuzz(
      fc.asyncProperty(body, async (b) => {
        await checkCase("PUT", "/api/calendar", b, owner.cookie, calendarInputSchema);
        await checkCase("POST", "/api/calendar/reset", b, owner.cookie);
      }),
    );
  }, 600_000);

  test(`POST /api/copies (${RUNS} cases)`, async () => {
    const body = bodyFor({
      from: fc.oneof(fc.constant(premium.username ?? ""), fc.constant(owner.username ?? ""), anyString, jsonish),
      supplementIds: fc.oneof(fc.array(fc.oneof(fc.integer(), fc.constantFrom(...ownIds)), { maxLength: 4 }), jsonish),
    });
    await fuzz(fc.asyncProperty(body, (b) => checkCase("POST", "/api/copies", b, premium.cookie)));
  }, 600_000);

  test(`POST /api/push/subscriptions and DELETE /api/push/subscriptions/:id (${RUNS} cases)`, async () => {
    const key = (n: number) => fc.string({ unit: fc.constantFrom(..."AZaz09-_"), minLength: n, maxLength: n });
    const body = bodyFor({
      endpoint: fc.oneof(
        fc.constantFrom(
          "https://fcm.googleapis.com/fcm/send/a",
          "https://push.example/a",
          "http://fcm.googleapis.com/a",
          "",
        ),
        anyString,
      ),
      keys: fc.oneof(fc.record({ p256dh: fc.oneof(key(87), anyString), auth: fc.oneof(key(22), anyString) }), jsonish),
    });
    await fuzz(
      fc.asyncProperty(body, (b) =>
        checkCase("POST", "/api/push/subscriptions", b, owner.cookie, pushSubscriptionSchemaFor(DEFAULT_PUSH_HOSTS)),
      ),
    );
    await fuzz(
      fc.asyncProperty(pathId(), async (id) => {
        await checkCase("DELETE", `/api/push/subscriptions/${id}`, "", owner.cookie);
      }),
    );
  }, 600_000);

  test(`billing POSTs ignore whatever body they get (${RUNS} cases)`, async () => {
    await fuzz(
      fc.asyncProperty(
        bodyFor({ priceId: anyString, customer: anyString }),
        fc.constantFrom("/api/get-or-create-subscription", "/api/cancel-subscription", "/api/create-portal-session"),
        (b, path) => checkCase("POST", path, b, premium.cookie),
      ),
    );
  }, 600_000);

  test(`POST /api/stripe/webhook: forged payloads and signatures (${RUNS} cases)`, async () => {
    const signature = fc.oneof(
      anyString.filter(
        (s) =>
          s.length < 5000 && [...s].every((ch) => (ch.codePointAt(0) ?? 0) >= 0x20 && (ch.codePointAt(0) ?? 0) < 0x7f),
      ),
      fc.constantFrom("t=1,v1=abc", `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}`, "v1=", "t="),
    );
    await fuzz(
      fc.asyncProperty(bodyFor({ id: anyString, type: anyString, data: jsonish }), signature, async (b, sig) => {
        const settled = settledTrash();
        const before = await snapshot(settled);
        const res = await api.fetch("/api/stripe/webhook", {
          method: "POST",
          body: b,
          origin: "https://hooks.stripe.example",
          headers: { "content-type": "application/json", "stripe-signature": sig },
        });
        const text = await res.text();
        expect(res.status, `${sig} → ${res.status} ${text.slice(0, 200)}`).toBe(400);
        expect(await snapshot(settled)).toBe(before);
      }),
    );
  }, 600_000);
});

// ---------------------------------------------------------------- uploads and big bodies

/** A PNG header (signature + IHDR with a correct CRC) claiming width × height, then some IDAT. */
function pngClaiming(width: number, height: number): Uint8Array<ArrayBuffer> {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const idat = Bun.deflateSync(new Uint8Array(64 * 1024)); // zeros: a few hundred bytes
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", idat),
    pngChunk("IEND", new Uint8Array()),
  ];
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * A real bomb: a valid 1-bit greyscale PNG of width × height zero pixels. 50,000² comes
 * to about 300 KB on the wire and 2.5 billion pixels decoded.
 */
function pngBomb(width: number, height: number): Uint8Array<ArrayBuffer> {
  const header = pngClaiming(width, height);
  const ihdrEnd = 8 + 12 + 13;
  const ihdr = header.slice(8, ihdrEnd);
  ihdr[8 + 8] = 1; // bit depth 1
  ihdr[8 + 9] = 0; // greyscale
  const rowBytes = 1 + Math.ceil(width / 8);
  const raw = new Uint8Array(rowBytes * height); // filter byte 0 and zero pixels, row after row
  const idat = new Uint8Array(deflateSync(raw, { level: 9 }));
  const ihdrChunk = pngChunk("IHDR", ihdr.subarray(8, 8 + 13));
  return new Uint8Array(
    Buffer.concat([header.subarray(0, 8), ihdrChunk, pngChunk("IDAT", idat), pngChunk("IEND", new Uint8Array())]),
  );
}

/** A PNG chunk: length, type, data and the CRC of type and data. */
function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** A GIF whose logical screen and only image claim width × height (16-bit fields: at most 65535). */
function gifClaiming(width: number, height: number): Uint8Array<ArrayBuffer> {
  const bytes = [
    ...new TextEncoder().encode("GIF89a"),
    width & 0xff,
    width >> 8,
    height & 0xff,
    height >> 8,
    0x80,
    0,
    0, // global colour table of 2
    0,
    0,
    0,
    255,
    255,
    255,
    0x2c,
    0,
    0,
    0,
    0,
    width & 0xff,
    width >> 8,
    height & 0xff,
    height >> 8,
    0,
    2, // LZW minimum code size
    2,
    0x4c,
    0x01,
    0, // a tiny data block
    0x3b,
  ];
  return new Uint8Array(bytes);
}

describe.skipIf(skipWithoutBuild("hostile-input.test.ts: uploads and bodies against the real server"))(
  "uploads and bodies against the real server",
  () => {
    let db: SharedDatabase;
    let server: Instance;
    let cookie = "";
    let realPng: Uint8Array<ArrayBuffer>;
    let realJpeg: Uint8Array<ArrayBuffer>;
    let realGif: Uint8Array<ArrayBuffer>;
    let realWebp: Uint8Array<ArrayBuffer>;

    beforeAll(async () => {
      db = await sharedDatabase();
      server = await startInstance(db.env);
      const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { origin: server.url, "content-type": "application/json" },
        body: JSON.stringify({
          email: `hostile-${crypto.randomUUID().slice(0, 8)}@example.com`,
          password: "correct horse battery",
          name: "H",
        }),
      });
      expect(res.status).toBe(200);
      cookie = res.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const base = sharp({ create: { width: 300, height: 200, channels: 3, background: "#c84" } });
      realPng = new Uint8Array(await base.clone().png().toBuffer());
      realJpeg = new Uint8Array(await base.clone().jpeg().toBuffer());
      realGif = new Uint8Array(await base.clone().gif().toBuffer());
      realWebp = new Uint8Array(await base.clone().webp().toBuffer());
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    async function upload(bytes: Uint8Array<ArrayBuffer>, options: { type?: string; name?: string } = {}) {
      const form = new FormData();
      form.append("profileImage", new File([bytes], options.name ?? "x.png", { type: options.type ?? "image/png" }));
      const started = performance.now();
      const res = await fetch(`${server.url}/api/upload/profile-image`, {
        method: "POST",
        headers: { origin: server.url, cookie },
        body: form,
      });
      const body = await res.text();
      return { status: res.status, body, type: res.headers.get("content-type") ?? "", ms: performance.now() - started };
    }

    for (const [what, make] of [
      ["a PNG header claiming 50,000 × 50,000 pixels", () => pngClaiming(50_000, 50_000)],
      ["a PNG header claiming 1 × 2³¹−1 pixels", () => pngClaiming(1, 2 ** 31 - 1)],
      ["a valid 1-bit PNG of 50,000 × 50,000 pixels (300 KB, 2.5 gigapixels)", () => pngBomb(50_000, 50_000)],
      ["a GIF claiming 50,000 × 50,000 pixels", () => gifClaiming(50_000, 50_000)],
      ["a GIF claiming 65,535 × 65,535 pixels", () => gifClaiming(65_535, 65_535)],
    ] as const) {
      test(`decompression bomb: ${what} is refused (415) in well under a second, memory flat`, async () => {
        const bytes = make();
        expect(bytes.byteLength).toBeLessThan(1024 * 1024);
        const peakBefore = (await server.peakRss()) ?? 0;
        const out = await upload(bytes);
        expect(out.status, out.body).toBe(415);
        expect(out.type).toContain("application/json");
        expect(JSON.parse(out.body).message).toBe("Please select a valid image file");
        expect(out.ms).toBeLessThan(1000);
        const peakAfter = (await server.peakRss()) ?? 0;
        // 50,000² RGB would be 7.5 GB decoded; allow 64 MB of noise.
        expect(peakAfter - peakBefore).toBeLessThan(64 * MB);
      });
    }

    test(`truncated images: every cut of real PNG, JPEG, GIF and WebP files is 415 or a clean 201, never 5xx (${Math.min(RUNS, 120)} cases)`, async () => {
      const files = { png: realPng, jpeg: realJpeg, gif: realGif, webp: realWebp };
      await fuzz(
        fc.asyncProperty(
          fc.constantFrom("png", "jpeg", "gif", "webp" as const),
          fc.double({ min: 0, max: 0.98, noNaN: true }),
          async (kind, cut) => {
            const full = files[kind];
            const bytes = full.subarray(0, Math.max(1, Math.floor(full.length * cut)));
            const out = await upload(bytes, { type: `image/${kind}`, name: `x.${kind}` });
            expect([201, 415], `${kind} cut at ${bytes.length}/${full.length}: ${out.status} ${out.body}`).toContain(
              out.status,
            );
            expect(out.type).toContain("application/json");
          },
        ),
        Math.min(RUNS, 120),
      );
    }, 120_000);

    async function rawMultipart(contentType: string, body: string) {
      const res = await fetch(`${server.url}/api/upload/profile-image`, {
        method: "POST",
        headers: { origin: server.url, cookie, "content-type": contentType },
        body,
      });
      return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
    }

    const part = (boundary: string, payload: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="profileImage"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n${payload}\r\n--${boundary}--\r\n`;

    for (const [what, contentType, body] of [
      ["a boundary that differs from the body's", "multipart/form-data; boundary=AAAA", part("BBBB", "x")],
      ["no boundary parameter", "multipart/form-data", part("BBBB", "x")],
      ["an empty boundary", "multipart/form-data; boundary=", part("", "x")],
      [
        "a body that never closes",
        "multipart/form-data; boundary=AAAA",
        `--AAAA\r\nContent-Disposition: form-data; name="profileImage"; filename="a.png"\r\n\r\nxxxx`,
      ],
      [
        "headers only",
        "multipart/form-data; boundary=AAAA",
        `--AAAA\r\nContent-Disposition: form-data; name="profileImage"`,
      ],
      ["a 200-character boundary", `multipart/form-data; boundary=${"b".repeat(200)}`, part("b".repeat(200), "x")],
      ["garbage", "multipart/form-data; boundary=AAAA", "\u0000\u0001garbage--AAAA--"],
      ["an empty body", "multipart/form-data; boundary=AAAA", ""],
    ] as const) {
      test(`wrong multipart: ${what} → 4xx JSON`, async () => {
        const out = await rawMultipart(contentType, body);
        expect(out.status, out.body).toBeGreaterThanOrEqual(400);
        expect(out.status, out.body).toBeLessThan(500);
        expect(out.type).toContain("application/json");
      });
    }

    /** A lazily generated body of `total` bytes (never held in memory at once). */
    function lazyBody(total: number) {
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= total) {
            controller.close();
            return;
          }
          const n = Math.min(MB, total - sent);
          sent += n;
          controller.enqueue(new Uint8Array(n).fill(0x61));
        },
      });
      return { stream, sent: () => sent };
    }

    for (const [path, withLength] of [
      ["/api/supplements", true],
      ["/api/supplements", false],
      ["/api/upload/profile-image", true],
      ["/api/upload/profile-image", false],
      ["/api/auth/sign-in/email", true],
      ["/api/auth/sign-in/email", false],
      ["/dashboard", true],
    ] as const) {
      test(`a 100 MB body to ${path} ${withLength ? "with" : "without"} Content-Length: 413 JSON within 3 s, not buffered`, async () => {
        const total = 100 * MB;
        const body = lazyBody(total);
        const peakBefore = (await server.peakRss()) ?? 0;
        const started = performance.now();
        const headers: Record<string, string> = {
          origin: server.url,
          cookie,
          "content-type": path.includes("upload") ? "multipart/form-data; boundary=AAAA" : "application/json",
        };
        if (withLength) headers["content-length"] = String(total);
        let status = 0;
        let type = "";
        let text = "";
        try {
          const res = await fetch(`${server.url}${path}`, {
            method: "POST",
            headers,
            body: body.stream,
            // @ts-expect-error: streaming bodies need duplex
            duplex: "half",
          });
          status = res.status;
          type = res.headers.get("content-type") ?? "";
          text = await res.text();
        } catch (error) {
          text = String(error);
        }
        const ms = performance.now() - started;
        expect(status, `${text} after ${Math.round(ms)} ms, ${body.sent()} bytes sent`).toBe(413);
        expect(type).toContain("application/json");
        expect(typeof JSON.parse(text).message).toBe("string");
        expect(ms).toBeLessThan(3000);
        expect(body.sent()).toBeLessThan(total); // refused before the end, not after reading it all
        const peakAfter = (await server.peakRss()) ?? 0;
        expect(peakAfter - peakBefore).toBeLessThan(48 * MB);
        // The server is still fine.
        expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
      }, 20_000);
    }
  },
);
