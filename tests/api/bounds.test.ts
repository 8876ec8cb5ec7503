/**
 * Issue 36, "Work a request can cause is bounded by its input": every route of the app is
 * listed here, either with the parameters its cost grows with and their bound (SECURITY.md
 * "Bounds on work per request" is this table in words), or with why none grows it. A route
 * added to the app without an entry fails the first test; each bound is probed just past it
 * (refused, quickly) and at it (answered).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../api/app";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { HISTORY_FLOOR } from "../../api/tracking/queries";
import { supplements } from "../../db/schema";
import { MAX_BODY_BYTES, withBodyLimit } from "../../server/body-limit";
import {
  BIO_MAX,
  MAX_SUPPLEMENTS,
  PROFILE_IMAGE_MAX_BYTES,
  SUPPLEMENT_TEXT_MAX,
  USERNAME_MAX,
} from "../../src/lib/constants";
import { addDays } from "../../src/lib/dates";
import { REPORT_MAX_DAYS, REPORT_MAX_IDS } from "../../src/lib/report";
import { BATCH_MAX, EDITABLE_DAYS, HISTORY_MAX_DAYS } from "../../src/lib/schedule";
import { PACKS_MAX, REFILLS_MAX, STOCK_MAX } from "../../src/lib/stock";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser } from "../support/users";

const TODAY = "2026-11-23";
/** A refusal must come before the work: well under the time the unbounded work took. */
const REFUSED_WITHIN_MS = 2000;

interface Probe {
  what: string;
  method?: "GET" | "POST" | "PUT" | "DELETE";
  /** `{id}` is the user's supplement; `{big}` one of MAX_SUPPLEMENTS supplements' user. */
  path: string;
  body?: unknown;
  /** Multipart upload of this many bytes as profileImage. */
  upload?: number;
  status: number;
  user?: "big";
}

interface Bound {
  route: string;
  parameter: string;
  bound: string;
  over: Probe[];
  within: Probe[];
}

const history = (from: string, to: string) => `/api/history?from=${from}&to=${to}`;
const back = (days: number) => addDays(TODAY, -days);

/** Routes whose cost grows with something the request says. */
const BOUNDS: Bound[] = [
  {
    route: "GET /api/history",
    parameter: "from, to",
    bound: `${HISTORY_MAX_DAYS} days, none before ${HISTORY_FLOOR}, none after today; the database reads the account's days only`,
    over: [
      { what: "year 1 (740,000 days before today)", path: history("0001-01-01", "0001-12-31"), status: 400 },
      { what: "the day before the floor", path: history("1999-12-31", "2000-01-01"), status: 400 },
      { what: "a year before the floor", path: history("1999-01-01", "1999-12-31"), status: 400 },
      { what: `${HISTORY_MAX_DAYS + 1} days`, path: history(back(HISTORY_MAX_DAYS), TODAY), status: 400 },
      { what: "to after today", path: history(TODAY, back(-1)), status: 400 },
    ],
    within: [
      { what: "the floor's year", path: history(HISTORY_FLOOR, "2000-12-31"), status: 200 },
      { what: `${HISTORY_MAX_DAYS} days`, path: history(back(HISTORY_MAX_DAYS - 1), TODAY), status: 200 },
    ],
  },
  ...(["GET /api/report", "GET /api/report.csv"] as const).map((route) => {
    const path = route.slice(4);
    const report = (query: string) => `${path}?${query}`;
    return {
      route,
      parameter: "from, to, supplements",
      bound: `${REPORT_MAX_DAYS} days, none before ${HISTORY_FLOOR}, none after today; at most ${REPORT_MAX_IDS} ids, each the user's own`,
      over: [
        { what: "year 1", path: report("from=0001-01-01&to=0001-12-31"), status: 400 },
        { what: `${REPORT_MAX_DAYS + 1} days`, path: report(`from=${back(REPORT_MAX_DAYS)}&to=${TODAY}`), status: 400 },
        { what: "to after today", path: report(`from=${TODAY}&to=${back(-1)}`), status: 400 },
        {
          what: `${REPORT_MAX_IDS + 1} ids`,
          path: report(`supplements=${Array.from({ length: REPORT_MAX_IDS + 1 }, (_, i) => i + 1).join(",")}`),
          status: 400,
        },
        { what: "a 10,000-digit id", path: report(`supplements=${"9".repeat(10_000)}`), status: 400 },
      ],
      within: [
        { what: `${REPORT_MAX_DAYS} days`, path: report(`from=${back(REPORT_MAX_DAYS - 1)}&to=${TODAY}`), status: 200 },
      ],
    };
  }),
  {
    route: "GET /api/stack/totals",
    parameter: "date",
    bound: `today or the ${HISTORY_MAX_DAYS} days before; never a day to come`,
    over: [
      {
        what: `${HISTORY_MAX_DAYS + 1} days back`,
        path: `/api/stack/totals?date=${back(HISTORY_MAX_DAYS + 1)}`,
        status: 400,
      },
      { what: "year 1", path: "/api/stack/totals?date=0001-01-01", status: 400 },
      { what: "tomorrow", path: `/api/stack/totals?date=${back(-1)}`, status: 400 },
    ],
    within: [
      { what: `${HISTORY_MAX_DAYS} days back`, path: `/api/stack/totals?date=${back(HISTORY_MAX_DAYS)}`, status: 200 },
    ],
  },
  {
    route: "GET /api/today",
    parameter: "date",
    bound: `today or the ${EDITABLE_DAYS} days before`,
    over: [
      { what: `${EDITABLE_DAYS + 1} days back`, path: `/api/today?date=${back(EDITABLE_DAYS + 1)}`, status: 400 },
      { what: "year 1", path: "/api/today?date=0001-01-01", status: 400 },
    ],
    within: [{ what: `${EDITABLE_DAYS} days back`, path: `/api/today?date=${back(EDITABLE_DAYS)}`, status: 200 }],
  },
  ...(["PUT", "DELETE"] as const).map(
    (method): Bound => ({
      route: `${method} /api/intakes/:date/:supplementId/:time`,
      parameter: "date, supplementId",
      bound: `today or the ${EDITABLE_DAYS} days before; an id of at most 12 digits and 2^31 − 1`,
      over: [
        {
          what: "a day out of the window",
          method,
          path: `/api/intakes/${back(EDITABLE_DAYS + 1)}/{id}/anytime`,
          body: { status: "taken" },
          status: 400,
        },
        { what: "a 13-digit id", method, path: `/api/intakes/${TODAY}/1234567890123/anytime`, body: {}, status: 400 },
      ],
      within: [
        {
          what: "today",
          method,
          path: `/api/intakes/${TODAY}/{id}/anytime`,
          body: { status: "taken" },
          status: method === "PUT" ? 200 : 204,
        },
      ],
    }),
  ),
  {
    route: "PUT /api/intakes/:date",
    parameter: "date, doses (list length)",
    bound: `today or the ${EDITABLE_DAYS} days before; ${BATCH_MAX} different doses, read in one statement`,
    over: [
      {
        what: "a day out of the window",
        method: "PUT",
        path: `/api/intakes/${back(EDITABLE_DAYS + 1)}`,
        body: { status: "taken", doses: [{ supplementId: "{id}", time: "anytime" }] },
        status: 400,
      },
      {
        what: `${BATCH_MAX + 1} doses`,
        method: "PUT",
        path: `/api/intakes/${TODAY}`,
        body: {
          status: "taken",
          doses: Array.from({ length: BATCH_MAX + 1 }, (_, i) => ({ supplementId: i + 1, time: "anytime" })),
        },
        status: 400,
      },
    ],
    within: [
      {
        what: "today",
        method: "PUT",
        path: `/api/intakes/${TODAY}`,
        body: { status: "taken", doses: [{ supplementId: "{id}", time: "anytime" }] },
        status: 200,
      },
    ],
  },
  {
    route: "GET /api/insights",
    parameter: "days",
    bound: "7, 30 or 90, once",
    over: [
      { what: "365 days", path: "/api/insights?days=365", status: 400 },
      { what: "the parameter twice", path: "/api/insights?days=7&days=90", status: 400 },
    ],
    within: [{ what: "90 days", path: "/api/insights?days=90", status: 200 }],
  },
  {
    route: "PUT /api/supplements/reorder",
    parameter: "supplementIds (list length)",
    bound: `${MAX_SUPPLEMENTS} ids`,
    over: [
      {
        what: `${MAX_SUPPLEMENTS + 1} ids`,
        method: "PUT",
        path: "/api/supplements/reorder",
        body: { supplementIds: Array.from({ length: MAX_SUPPLEMENTS + 1 }, (_, i) => i + 1) },
        status: 400,
      },
    ],
    within: [
      {
        what: "the user's list",
        method: "PUT",
        path: "/api/supplements/reorder",
        body: { supplementIds: ["{id}"] },
        status: 200,
      },
    ],
  },
  {
    route: "POST /api/supplements",
    parameter: "how many supplements; text lengths",
    bound: `${MAX_SUPPLEMENTS} supplements a user; names ${SUPPLEMENT_TEXT_MAX} characters`,
    over: [
      {
        what: `the ${MAX_SUPPLEMENTS + 1}th supplement`,
        method: "POST",
        path: "/api/supplements",
        body: { name: "X", quantityType: "Capsule(s)", frequency: "daily" },
        status: 400,
        user: "big",
      },
      {
        what: "a name one too long",
        method: "POST",
        path: "/api/supplements",
        body: { name: "x".repeat(SUPPLEMENT_TEXT_MAX + 1), quantityType: "Capsule(s)", frequency: "daily" },
        status: 400,
      },
    ],
    within: [
      {
        what: "a supplement",
        method: "POST",
        path: "/api/supplements",
        body: { name: "Y", quantityType: "Capsule(s)", frequency: "daily" },
        status: 201,
      },
    ],
  },
  ...(["GET", "PUT", "DELETE"] as const).map(
    (method): Bound => ({
      route: `${method} /api/supplements/:id`,
      parameter: "id",
      bound: "at most 12 digits, at most 2^31 − 1",
      over: [
        { what: "13 digits", method, path: "/api/supplements/1234567890123", body: {}, status: 400 },
        { what: "2^31", method, path: "/api/supplements/2147483648", body: {}, status: 404 },
      ],
      within: [{ what: "the user's", method: "GET", path: "/api/supplements/{id}", status: 200 }],
    }),
  ),
  {
    route: "POST /api/supplements/:id/restore",
    parameter: "id",
    bound: "at most 12 digits, at most 2^31 − 1; one trashed copy, read by its owner within the Undo window",
    over: [
      { what: "13 digits", method: "POST", path: "/api/supplements/1234567890123/restore", body: {}, status: 400 },
      { what: "2^31", method: "POST", path: "/api/supplements/2147483648/restore", body: {}, status: 404 },
    ],
    within: [],
  },
  ...(
    [
      ["PUT", "stock", { count: 1 }],
      ["POST", "refills", { packs: 1 }],
    ] as const
  ).map(
    ([method, tail, body]): Bound => ({
      route: `${method} /api/supplements/:id/${tail}`,
      parameter: "id, body",
      bound: `at most 12 digits, at most 2^31 − 1; one row; count and pack size at most ${STOCK_MAX}, packs at most ${PACKS_MAX}, at most ${REFILLS_MAX} refills kept since a count`,
      over: [
        { what: "13 digits", method, path: `/api/supplements/1234567890123/${tail}`, body, status: 400 },
        { what: "2^31", method, path: `/api/supplements/2147483648/${tail}`, body, status: 404 },
        {
          what: "over the bound",
          method,
          path: `/api/supplements/{id}/${tail}`,
          body: method === "PUT" ? { count: STOCK_MAX + 1 } : { packs: PACKS_MAX + 1 },
          status: 400,
        },
      ],
      within: [
        { what: "the user's", method: "PUT", path: "/api/supplements/{id}/stock", body: { count: 1 }, status: 200 },
      ],
    }),
  ),
  {
    route: "GET /api/profile/:username",
    parameter: "username",
    bound: `${USERNAME_MAX} characters; a profile lists at most ${MAX_SUPPLEMENTS} supplements`,
    over: [{ what: "10,000 characters", path: `/api/profile/${"a".repeat(10_000)}`, status: 404 }],
    within: [],
  },
  {
    route: "PUT /api/profile",
    parameter: "text fields",
    bound: `bio ${BIO_MAX} characters, username ${USERNAME_MAX}`,
    over: [
      {
        what: "a bio one too long",
        method: "PUT",
        path: "/api/profile",
        body: { bio: "b".repeat(BIO_MAX + 1) },
        status: 400,
      },
    ],
    within: [
      {
        what: "a bio at the bound",
        method: "PUT",
        path: "/api/profile",
        body: { bio: "b".repeat(BIO_MAX) },
        status: 200,
      },
    ],
  },
  {
    route: "POST /api/upload/profile-image",
    parameter: "file size, pixels",
    bound: `${PROFILE_IMAGE_MAX_BYTES / 1024 / 1024} MB, 40 megapixels decoded`,
    over: [
      {
        what: "one byte over",
        method: "POST",
        path: "/api/upload/profile-image",
        upload: PROFILE_IMAGE_MAX_BYTES + 1,
        status: 413,
      },
    ],
    within: [],
  },
  {
    route: "GET /go/:id",
    parameter: "id",
    bound: "at most 10 digits, at most 2^31 − 1",
    over: [{ what: "30 digits", path: `/go/${"9".repeat(30)}`, status: 404 }],
    within: [],
  },
  ...(["GET", "HEAD"] as const).flatMap((method): Bound[] => [
    {
      route: `${method} /og/:username/:file`,
      parameter: "username, version",
      bound: `${USERNAME_MAX} characters and a fixed version pattern, before any query or drawing`,
      over: [{ what: "a 10,000-character name", method: "GET", path: `/og/${"a".repeat(10_000)}/1.png`, status: 404 }],
      within: [],
    },
    {
      route: `${method} /:username/qr.svg`,
      parameter: "username",
      bound: `${USERNAME_MAX} characters, before any query`,
      over: [{ what: "a 10,000-character name", method: "GET", path: `/${"a".repeat(10_000)}/qr.svg`, status: 404 }],
      within: [],
    },
    {
      route: `${method} /images/:file`,
      parameter: "file",
      bound: "a 16-64 character id, before any query",
      over: [
        { what: "a 10,000-character name", method: "GET", path: `/images/${"a".repeat(10_000)}.webp`, status: 404 },
      ],
      within: [],
    },
  ]),
  {
    route: "GET /api/account/export",
    parameter: "format",
    bound: `json or csv; its size is the account's own rows (at most ${MAX_SUPPLEMENTS} supplements, doses only on days logged)`,
    over: [{ what: "another format", path: "/api/account/export?format=xml", status: 400 }],
    within: [{ what: "json", path: "/api/account/export?format=json", status: 200 }],
  },
];

/** Routes whose cost no request parameter grows (bodies: MAX_BODY_BYTES in server.ts, probed below). */
const FIXED: Record<string, string> = {
  "GET /api/health": "one select 1",
  "GET /api/auth/user": "the session's user",
  "GET /api/supplements": `the user's list: at most ${MAX_SUPPLEMENTS} rows`,
  "GET /api/nutrients": "the nutrient table: one constant answer",
  "GET /api/login": "a redirect",
  "GET /api/logout": "one session",
  "POST /api/logout": "one session",
  "GET /api/auth/*": "better-auth; its own limits; bodies at most MAX_BODY_BYTES",
  "POST /api/auth/*": "better-auth; its own limits; bodies at most MAX_BODY_BYTES",
  "POST /api/get-or-create-subscription": "one user's subscription",
  "POST /api/cancel-subscription": "one user's subscription",
  "POST /api/create-portal-session": "one user's subscription",
  "GET /api/billing": "one user's subscription",
  "POST /api/stripe/webhook": "one signed event; bodies at most MAX_BODY_BYTES",
  "GET /api/calendar": "one user's feed row",
  "GET /api/calendar/:file{[^/]+\\.ics}":
    "one feed: 38 days of one user's doses (at most 200 supplements), 60 fetches an hour",
  "PUT /api/calendar": "two switches (a strict schema); one user's feed row",
  "POST /api/calendar/reset": "one user's feed row",
  "GET /api/account": "one user's sign-in methods",
  "DELETE /api/account": "one user's rows",
  "POST /api/account/password": "one password check",
  "POST /api/account/email": "one password check, two mails",
  "GET /api/account/email/confirm": "one token (at most 200 characters), one user row, one mail",
  "GET /api/account/sessions": "one user's live sessions (each expires; sign-ins are limited)",
  "POST /api/account/sessions/revoke-others": "one user's sessions",
  "DELETE /api/account/sessions/:id": "one session by id",
  // Issue 39 (reminders.test.ts)
  "GET /api/reminders": "one user's settings and at most MAX_PUSH_DEVICES devices",
  "PUT /api/reminders": "one row",
  "POST /api/reminders/test": "at most MAX_PUSH_DEVICES pushes and one mail; 5 an hour",
  "POST /api/copies":
    "at most MAX_SUPPLEMENTS ids (a strict schema), rows only up to the 200 limit, 30 requests an hour per account",
  "GET /api/reminders/unsubscribe": "one HMAC check",
  "POST /api/reminders/unsubscribe": "one HMAC check, one row",
  // Issue 45 (email-confirm.test.ts)
  "GET /api/reminders/confirm": "one token hash looked up, one user row and one confirmation row written",
  "GET /api/push/key": "one key, loaded once",
  "POST /api/push/subscriptions": "one row; the user keeps at most MAX_PUSH_DEVICES (oldest go)",
  "DELETE /api/push/subscriptions/:id": "one row by id",
};

let api: TestApi;
let user: ApiUser;
let big: ApiUser;
let supplementId = 0;

beforeAll(async () => {
  api = await startApi({}, { database: await migratedDatabase() });
  user = await createUser(api, { username: `bounds_${crypto.randomUUID().slice(0, 6)}` });
  big = await createUser(api);
  freezeClock(`${TODAY}T10:00:00Z`);
  const res = await api.fetch("/api/supplements", {
    method: "POST",
    headers: { cookie: user.cookie },
    body: { name: "X", quantityType: "Capsule(s)", frequency: "daily" },
  });
  supplementId = ((await res.json()) as { id: number }).id;
  await api.ctx.database.db.insert(supplements).values(
    Array.from({ length: MAX_SUPPLEMENTS }, (_, i) => ({
      userId: big.id,
      name: `S${i}`,
      quantityType: "Capsule(s)",
      frequency: "daily",
      sortOrder: i,
    })),
  );
});
afterAll(async () => {
  resetClock();
  await api?.close();
});

async function send(probe: Probe): Promise<Response> {
  const fill = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value ?? null).replaceAll('"{id}"', String(supplementId)));
  const init: Parameters<TestApi["fetch"]>[1] = {
    method: probe.method ?? "GET",
    headers: { cookie: (probe.user === "big" ? big : user).cookie },
  };
  if (probe.upload !== undefined) {
    const form = new FormData();
    form.append("profileImage", new Blob([new Uint8Array(probe.upload)], { type: "image/png" }), "a.png");
    init.body = form;
  } else if (probe.body !== undefined && init.method !== "GET") init.body = fill(probe.body) as Record<string, unknown>;
  return api.fetch(probe.path.replaceAll("{id}", String(supplementId)), init);
}

describe("every route has a declared bound", () => {
  test("the app's route table: each route is in BOUNDS or FIXED, and nothing listed is gone", () => {
    const routes = new Set(
      createApp(api.ctx)
        .routes.filter((r) => r.path !== "/*")
        .map((r) => `${r.method} ${r.path}`),
    );
    const listed = new Set([...BOUNDS.map((b) => b.route), ...Object.keys(FIXED)]);
    expect([...routes].filter((r) => !listed.has(r)).sort()).toEqual([]);
    expect([...listed].filter((r) => !routes.has(r)).sort()).toEqual([]);
  });
});

describe("each bound refuses just past it, quickly, and answers at it", () => {
  const over = BOUNDS.flatMap((b) => b.over.map((p) => [b.route, p.what, p] as const));
  test.each(over)("%s: %s → refused", async (_route, _what, probe) => {
    const started = performance.now();
    const res = await send(probe);
    expect(res.status).toBe(probe.status);
    expect(performance.now() - started).toBeLessThan(REFUSED_WITHIN_MS);
    if (res.headers.get("content-type")?.includes("json"))
      expect(typeof ((await res.json()) as { message?: unknown }).message).toBe("string");
  });

  const within = BOUNDS.flatMap((b) => b.within.map((p) => [b.route, p.what, p] as const));
  test.each(within)("%s: %s → answered", async (_route, _what, probe) => {
    const res = await send(probe);
    expect(res.status).toBe(probe.status);
  });

  test("history: asked days before the account's first schedule are answered empty, all of them", async () => {
    const res = await send({ what: "", path: history(HISTORY_FLOOR, "2000-12-31"), status: 200 });
    const body = (await res.json()) as { from: string; to: string; days: { date: string; due: number }[] };
    expect([body.from, body.to, body.days.length, body.days.every((d) => d.due === 0)]).toEqual([
      HISTORY_FLOOR,
      "2000-12-31",
      366,
      true,
    ]);
  });

  test("any body: a declared length over MAX_BODY_BYTES is refused with 413 before it is read", async () => {
    let read = false;
    const request = new Request("http://localhost/api/profile", {
      method: "PUT",
      headers: { "content-length": String(MAX_BODY_BYTES + 1) },
      body: "x",
    });
    const res = await withBodyLimit(request, () => {
      read = true;
      return new Response("read");
    });
    expect([res.status, read]).toEqual([413, false]);
  });
});
