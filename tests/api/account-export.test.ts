/**
 * Issue 15, GET /api/account/export?format=json|csv. The JSON is compared with the database
 * column by column (every column of the user's row and of each supplement, read from the
 * schema, not from a hand list); the CSV is parsed as RFC 4180 and compared with the rows;
 * spreadsheet formulas are defused; nothing secret is in either.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq, getTableColumns } from "drizzle-orm";
import { WITHHELD_SUPPLEMENT_COLUMNS, WITHHELD_USER_COLUMNS } from "../../api/account/export";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { type CardFacts, cardFacts, cardVersion } from "../../api/sharing/card-facts";
import { accounts, sessions, supplements, users } from "../../db/schema";
import { EXPORT_FORMAT } from "../../src/lib/account";
import { PRODUCT_NAME } from "../../src/lib/constants";
import { dateIn } from "../../src/lib/dates";
import { cardPath } from "../../src/lib/sharing";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, makePremium, supplementRows, userRow } from "../support/users";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});
afterEach(() => resetClock());

type Doc = Record<string, unknown> & {
  format: string;
  account: Record<string, unknown>;
  profile: Record<string, unknown>;
  billing: Record<string, unknown>;
  supplements: Record<string, unknown>[];
  sessions: Record<string, unknown>[];
};

const plain = (v: unknown) => (v instanceof Date ? v.toISOString() : v);

/** A premium user with every column of their row set (so a missing one shows) and supplements. */
async function seededUser(): Promise<ApiUser> {
  const user = await createUser(api, { username: `exp_${crypto.randomUUID().slice(0, 6)}` });
  await makePremium(api, user);
  const tag = crypto.randomUUID().slice(0, 6);
  await api.ctx.database.db
    .update(users)
    .set({
      emailVerified: true,
      firstName: `First${tag}`,
      lastName: `Last${tag}`,
      profileImageUrl: `/images/${"a".repeat(20)}${tag}.webp`,
      bio: `Bio with accents: café, naïve ${tag}`,
      stripeCustomerId: `cus_SECRET${tag}`,
      stripeSubscriptionId: `sub_SECRET${tag}`,
      subscriptionStatus: "active",
      instagramUrl: `https://instagram.com/${tag}`,
      twitterUrl: `https://x.com/${tag}`,
      facebookUrl: `https://facebook.com/${tag}`,
      etsyUrl: `https://etsy.com/shop/${tag}`,
      youtubeUrl: `https://youtube.com/@${tag}`,
      tiktokUrl: `https://tiktok.com/@${tag}`,
      linkedinUrl: `https://linkedin.com/in/${tag}`,
      websiteUrl: `https://example.com/${tag}`,
      timeZone: "Europe/Berlin",
      showSchedule: true,
    })
    .where(eq(users.id, user.id));
  for (const [name, notes] of [
    ["Vitamin D3", "with breakfast"],
    ['Magnesium, "glycinate"', "two lines\nof notes"],
  ]) {
    const res = await api.fetch("/api/supplements", {
      method: "POST",
      headers: { cookie: user.cookie },
      body: {
        name,
        quantityType: "Capsule(s)",
        frequency: "daily",
        affiliateLink: `https://shop.example/${encodeURIComponent(name as string)}`,
        notes,
        doseAmount: 2,
        schedule: { times: ["morning", "evening"], days: [1, 3, 5] },
      },
    });
    expect(res.status).toBe(201);
  }
  return user;
}

async function exportOf(user: ApiUser, format = "json"): Promise<Response> {
  return api.fetch(`/api/account/export?format=${format}`, { headers: { cookie: user.cookie } });
}

describe("JSON", () => {
  test("every stored field of the user and of each supplement, as stored (compared with the database)", async () => {
    const user = await seededUser();
    const res = await exportOf(user);
    expect(res.status).toBe(200);
    const text = await res.text();
    const doc = JSON.parse(text) as Doc;
    expect(doc.format).toBe(EXPORT_FORMAT);
    expect(doc.format).toBe(`${PRODUCT_NAME.toLowerCase()}-export/1`);

    const row = await userRow(api, user);
    const sections = [doc.account, doc.profile, doc.billing];
    for (const column of Object.keys(getTableColumns(users)) as (keyof typeof row)[]) {
      const value = row[column];
      expect(value, `the seed sets ${column}`).not.toBeNull();
      if (column in WITHHELD_USER_COLUMNS) {
        expect(text, `${column} is withheld`).not.toContain(String(value));
        continue;
      }
      const holder = sections.find((s) => column in s);
      expect(holder, `${column} is exported`).toBeDefined();
      expect(holder?.[column], column).toEqual(plain(value));
    }
    // Only Stripe's references are withheld.
    expect(Object.keys(WITHHELD_USER_COLUMNS).sort()).toEqual(["stripeCustomerId", "stripeSubscriptionId"]);

    const stored = await supplementRows(api, user);
    expect(doc.supplements).toHaveLength(stored.length);
    stored.forEach((s, i) => {
      for (const column of Object.keys(getTableColumns(supplements)) as (keyof typeof s)[]) {
        if (WITHHELD_SUPPLEMENT_COLUMNS.has(column)) continue;
        expect(doc.supplements[i]?.[column], `supplement ${i} ${column}`).toEqual(plain(s[column]));
      }
    });
    expect(doc.supplements.map((s) => s.affiliateLink)).toEqual(stored.map((s) => s.affiliateLink));
    expect(doc.supplements.map((s) => s.notes)).toEqual(stored.map((s) => s.notes));

    // Issue 19's log and issue 14's counts are sections of their own (empty here; see below).
    expect(doc.intakes).toEqual([]);
    expect(doc.insights).toEqual({ profileDays: [], linkClicks: [] });

    expect(doc.billing.plan).toBe("premium");
    expect(doc.account.signInMethods).toEqual([expect.objectContaining({ method: "password" })]);
    expect(doc.sessions).toHaveLength(1);
    expect(doc.sessions[0]?.device).toBe("Unknown device");

    // No password hash, no session token, no Stripe id.
    const [account] = await api.ctx.database.db.select().from(accounts).where(eq(accounts.userId, user.id));
    expect(account?.password).toBeTruthy();
    expect(text).not.toContain(account?.password as string);
    for (const s of await api.ctx.database.db.select().from(sessions).where(eq(sessions.userId, user.id))) {
      expect(text).not.toContain(s.token);
    }
    expect(text).not.toMatch(/cus_|sub_|"password":|"token":|"accessToken":/);
  });

  test("issue 19: every logged dose, with the name it had, in `intakes`", async () => {
    const user = await createUser(api);
    const added = await api.fetch("/api/supplements", {
      method: "POST",
      headers: { cookie: user.cookie },
      body: { name: "Creatine", quantityType: "Capsule(s)", frequency: "daily" },
    });
    const { id } = (await added.json()) as { id: number };
    const today = dateIn(null, Date.now());
    const tick = await api.fetch(`/api/intakes/${today}/${id}/anytime`, {
      method: "PUT",
      headers: { cookie: user.cookie },
      body: { status: "taken" },
    });
    expect(tick.status).toBe(200);
    const doc = (await (await exportOf(user)).json()) as Doc;
    expect(doc.intakes).toEqual([
      {
        date: today,
        supplementId: id,
        name: "Creatine",
        time: "anytime",
        status: "taken",
        at: expect.any(String),
        count: 1,
      },
    ]);
  });

  test("issue 16: every kept version of the social card, with what it showed, in `socialCards`", async () => {
    const user = await createUser(api, { username: `card_${crypto.randomUUID().slice(0, 6)}` });
    const shown: CardFacts[] = [];
    for (const bio of ["First bio", "Second bio"]) {
      const put = await api.fetch("/api/profile", { method: "PUT", headers: { cookie: user.cookie }, body: { bio } });
      expect(put.status).toBe(200);
      const facts = cardFacts(await (await api.fetch(`/api/profile/${user.username}`)).json());
      // Drawing the card records its version.
      expect((await api.fetch(cardPath(facts.username, cardVersion(facts)))).status).toBe(200);
      shown.push(facts);
    }
    const doc = (await (await exportOf(user)).json()) as Doc;
    expect(doc.socialCards).toEqual(
      shown.map((facts) => ({ version: cardVersion(facts), recordedAt: expect.any(String), facts })),
    );
    expect(doc.socialCards).toEqual([
      expect.objectContaining({ facts: expect.objectContaining({ username: user.username, bio: "First bio" }) }),
      expect.objectContaining({ facts: expect.objectContaining({ username: user.username, bio: "Second bio" }) }),
    ]);
  });

  test("headers: a download named {username}-{date}.json, no-store; 'account' without a username", async () => {
    freezeClock("2031-02-03T23:59:30Z");
    const user = await seededUser();
    const res = await exportOf(user);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${user.username}-2031-02-03.json"`);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(((await res.json()) as Doc).exportedAt).toBe("2031-02-03T23:59:30.000Z");
    const noname = await createUser(api);
    const csv = await exportOf(noname, "csv");
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="account-2031-02-03.csv"');
    const json = (await (await exportOf(noname)).json()) as Doc;
    expect(json.profile.username).toBeNull();
    expect(json.supplements).toEqual([]);
  });

  test("another user's data is never in it", async () => {
    const mine = await seededUser();
    const theirs = await seededUser();
    const text = await (await exportOf(mine)).text();
    expect(text).not.toContain(theirs.email);
    expect(text).not.toContain(theirs.username as string);
  });
});

/** RFC 4180: fields split by commas, records by CRLF, quoted fields may hold both and "" for ". */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') {
      expect(field, "a quote only opens a field").toBe("");
      quoted = true;
    } else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else {
      expect(ch === "\r" || ch === "\n", "a bare CR or LF outside quotes").toBe(false);
      field += ch;
    }
  }
  expect(quoted).toBe(false);
  expect(field === "" && row.length === 0, "the file ends with CRLF").toBe(true);
  return rows;
}

describe("CSV", () => {
  const HOSTILE = [
    '=HYPERLINK("https://evil.example","click")',
    "+SUM(A1:A2)",
    "-2+3",
    "@SUM(1)",
    "\tTab first",
    "\rCarriage return first",
    "Plain, with a comma",
    'Quote "inside"',
    "Line\nbreak",
    "Crème brûlée çà",
    "a=b+c (not at the start)",
  ];

  test("UTF-8 with a BOM, a header row, one RFC 4180 row per supplement, formulas defused, equal to the database", async () => {
    const user = await seededUser();
    await api.ctx.database.db.insert(supplements).values(
      HOSTILE.map((name, i) => ({
        userId: user.id,
        name,
        quantityType: "Other",
        frequency: i % 2 ? "-weekly" : "daily",
        notes: i === 0 ? "=cmd|' /C calc'!A0" : null,
        sortOrder: 10 + i,
      })),
    );
    const res = await exportOf(user, "csv");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    expect(text.startsWith("\uFEFF")).toBe(true);
    const [header, ...rows] = parseCsv(text.slice(1));
    // The schedule (issue 19) is three readable columns at the end instead of its JSON.
    const columns = Object.keys(getTableColumns(supplements)).filter(
      (c) => !WITHHELD_SUPPLEMENT_COLUMNS.has(c) && c !== "schedule" && c !== "doseAmount" && c !== "ingredients",
    );
    // Issue 47: the ingredients as one readable column after them (tests/api/ingredients-private.test.ts).
    expect(header).toEqual([
      ...columns,
      "Times",
      "Days",
      "Amount",
      "Starts",
      "Ends",
      "Repeat",
      "Amounts",
      "Ingredients",
    ]);
    const stored = await supplementRows(api, user);
    expect(rows).toHaveLength(stored.length);
    const defused = (v: unknown) => {
      if (v === null || v === undefined) return "";
      // A JSON column (issue 40's refills) as JSON.
      const s = typeof v === "object" && !(v instanceof Date) ? JSON.stringify(v) : String(plain(v));
      return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
    };
    stored.forEach((s, i) => {
      columns.forEach((column, j) => {
        expect(rows[i]?.[j], `row ${i} ${column}`).toBe(defused(s[column as keyof typeof s]));
      });
    });
    // The seeded schedule: morning and evening on Mon, Wed, Fri, 2 capsules; the inserted rows
    // got the column's default (any time, every day) and no amount.
    expect(rows[0]?.slice(columns.length)).toEqual([
      "Morning; Evening",
      "Mon; Wed; Fri",
      "2 Capsule(s)",
      "",
      "",
      "",
      "",
      "",
    ]);
    expect(rows[2]?.slice(columns.length)).toEqual(["Any time", "Every day", "", "", "", "", "", ""]);
    // Every hostile name is there, and none starts a cell with a formula character.
    const names = rows.map((r) => r[columns.indexOf("name")] as string);
    for (const name of HOSTILE) expect(names).toContain(/^[=+\-@\t\r]/.test(name) ? `'${name}` : name);
    for (const row of rows) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    expect(text).toContain("Crème brûlée çà");
  });

  test("no supplements: the header row alone", async () => {
    const user = await createUser(api);
    const text = await (await exportOf(user, "csv")).text();
    expect(parseCsv(text.replace(/^\uFEFF/, ""))).toHaveLength(1);
  });
});

test.each([["xml"], ["JSON"], [""], ["csv,json"]])("format=%s: 400 with the field named", async (format) => {
  const user = await createUser(api);
  const res = await exportOf(user, format);
  expect(res.status).toBe(400);
  expect(((await res.json()) as { errors: Record<string, string[]> }).errors.format).toBeDefined();
});

test("signed out: 401 JSON, in either format", async () => {
  for (const format of ["json", "csv"]) {
    const res = await api.fetch(`/api/account/export?format=${format}`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toBe("Unauthorized");
  }
});
