/**
 * Seed data for the benchmark: bulk rows (users, supplements, WebP avatars) by SQL, for speed;
 * the bench's sessions are real (signed up over HTTP through better-auth, cookies kept).
 */
import { createHash } from "node:crypto";
import pLimit from "p-limit";
import type postgres from "postgres";
import sharp from "sharp";
import { QUANTITY_TYPES } from "../src/lib/constants";

/** A small deterministic PRNG (an LCG), so every run seeds the same data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return a / 4294967296;
  };
}

const SUPPLEMENT_NAMES = (
  "Vitamin D3|Vitamin K2 (MK-7)|Magnesium Glycinate|Omega-3 Fish Oil|Creatine Monohydrate|Zinc Picolinate|" +
  "Vitamin B12 (Methylcobalamin)|Ashwagandha KSM-66|L-Theanine|Probiotic 50 Billion CFU|Vitamin C|" +
  "Iron Bisglycinate|Curcumin with Piperine|Coenzyme Q10|Melatonin 0.5 mg|Collagen Peptides|Electrolyte Mix|" +
  "Psyllium Husk|Rhodiola Rosea|Lion's Mane Mushroom|NAC (N-Acetyl Cysteine)|Berberine|Alpha Lipoic Acid|" +
  "Glycine|Taurine|Folate (Methylfolate)|Vitamin B Complex|Selenium|Iodine (Kelp)|Calcium Citrate|" +
  "Potassium Citrate|Beta-Alanine|Whey Protein Isolate|Caffeine + L-Theanine|Elderberry Syrup|Quercetin|" +
  "Resveratrol|Apple Cider Vinegar Gummies|Multivitamin|Saw Palmetto|Evening Primrose Oil|Biotin|" +
  "Lutein + Zeaxanthin|Spirulina|Chlorella|Inositol|Citrulline Malate|Tart Cherry Extract|Ginkgo Biloba|" +
  "Bacopa Monnieri"
).split("|");
const FREQUENCIES = (
  "Daily|Twice daily|With breakfast|With dinner|Before bed|Every other day|Pre-workout|Morning, empty stomach|" +
  "3x per week|As needed"
).split("|");
const FIRST = ["maya", "liam", "noah", "emma", "olivia", "ava", "lucas", "mia", "ethan", "zoe", "kai", "nora", "leo"];
const LAST = ["patel", "smith", "garcia", "kim", "nguyen", "muller", "rossi", "silva", "khan", "cohen", "lee", "berg"];
const BIOS = [
  "Marathoner, coffee snob and evidence-based supplement nerd. Everything here is what I actually take, in order.",
  "Night-shift nurse trying to sleep better and stay sharp.",
];

/** A 512×512 WebP like the app's avatars (gradient, a disc, some grain), distinct per `i`. */
async function makeAvatar(i: number): Promise<Uint8Array> {
  const size = 512;
  const px = new Uint8Array(size * size * 3);
  const r = prng(i + 1);
  const c1 = [r() * 256, r() * 256, r() * 256];
  const c2 = [r() * 256, r() * 256, r() * 256];
  const [cx, cy, r2] = [size / 2 + r() * 120 - 60, size * 0.45 + r() * 120 - 60, (110 + r() * 70) ** 2];
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const inside = (x - cx) ** 2 + (y - cy) ** 2 < r2;
      const [t, grain] = [(x + y) / (2 * size), Math.floor(r() * 13) - 6];
      for (let k = 0; k < 3; k++) {
        const [a, b] = [c1[k] ?? 0, c2[k] ?? 0];
        px[(y * size + x) * 3 + k] = (inside ? 255 - a : a + (b - a) * t) + grain;
      }
    }
  }
  // As the app's (api/images/routes.ts, quality 82); effort 1 for seeding time.
  const raw = { raw: { width: size, height: size, channels: 3 as const } };
  return new Uint8Array(await sharp(px, raw).webp({ quality: 82, effort: 1 }).toBuffer());
}

const newId = () => crypto.randomUUID().replaceAll("-", "");

function supplementRows(rand: () => number, userId: string, count: number, premium: boolean, tag = "") {
  return Array.from({ length: count }, (_, order) => {
    const name = SUPPLEMENT_NAMES[Math.floor(rand() * SUPPLEMENT_NAMES.length)] ?? "Vitamin D3";
    return {
      user_id: userId,
      name: tag ? `${name} ${tag}${order + 1}` : name,
      quantity_type: QUANTITY_TYPES[Math.floor(rand() * QUANTITY_TYPES.length)] ?? "Capsule(s)",
      frequency: FREQUENCIES[Math.floor(rand() * FREQUENCIES.length)] ?? "Daily",
      affiliate_link: premium ? `https://shop.example.com/p/${Math.floor(rand() * 1e6)}` : null,
      notes: premium ? "Take with food; cycle off one week a month." : null,
      sort_order: order,
    };
  });
}

/** `count` distinct avatars, encoded a few at a time (sharp works off the JS thread). */
export const makeAvatars = (count: number) =>
  pLimit(3).map([...Array(count).keys()], async (i) => {
    const webp = await makeAvatar(i);
    return { id: createHash("sha256").update(webp).digest("base64url").slice(0, 32), webp };
  });

/** Inserts `rows` into `table`, `size` a statement. */
async function insertAll(sql: postgres.Sql, table: string, rows: Record<string, unknown>[], size: number) {
  for (let i = 0; i < rows.length; i += size) await sql`insert into ${sql(table)} ${sql(rows.slice(i, i + size))}`;
}

/** Public users, one per avatar, `perUser` supplements each; ~10% premium, ~60% with a bio, ~40% social links. */
export async function seedUsers(sql: postgres.Sql, avatars: Awaited<ReturnType<typeof makeAvatars>>, perUser: number) {
  const rand = prng(20261101);
  const users = avatars.map((avatar, i) => {
    const first = FIRST[i % FIRST.length] ?? "maya";
    const last = LAST[Math.floor(i / FIRST.length) % LAST.length] ?? "lee";
    const social = rand() < 0.4;
    return {
      id: newId(),
      name: `${first[0]?.toUpperCase()}${first.slice(1)} ${last[0]?.toUpperCase()}${last.slice(1)}`,
      email: `${first}.${last}.${i}@bench.example.com`,
      email_verified: true,
      first_name: first,
      last_name: last,
      username: `${first}_${last}${i}`,
      bio: rand() < 0.6 ? (BIOS[i % BIOS.length] ?? null) : null,
      is_premium: rand() < 0.1,
      instagram_url: social ? `https://instagram.com/${first}${last}${i}` : null,
      twitter_url: social && rand() < 0.5 ? `https://x.com/${first}${last}${i}` : null,
      website_url: social && rand() < 0.5 ? `https://${first}${last}${i}.example.com` : null,
      profile_image_url: `/images/${avatar.id}.webp`,
    };
  });
  const images = avatars.map((avatar, i) => ({
    id: avatar.id,
    user_id: users[i]?.id ?? "",
    content_type: "image/webp",
    data: Buffer.from(avatar.webp),
    byte_size: avatar.webp.byteLength,
  }));
  await insertAll(sql, "users", users, 500);
  await insertAll(sql, "images", images, 100);
  await insertAll(
    sql,
    "supplements",
    users.flatMap((u) => supplementRows(rand, u.id, perUser, u.is_premium)),
    2000,
  );
  return { usernames: users.map((u) => u.username), avatarPaths: users.map((u) => u.profile_image_url) };
}

/** Gives a user exactly `count` supplements (names tagged so the lists differ); returns their ids in order. */
export async function seedSupplementsFor(sql: postgres.Sql, userId: string, count: number, seed: number) {
  await sql`delete from supplements where user_id = ${userId}`;
  if (count === 0) return [];
  const rows = supplementRows(prng(seed), userId, count, false, "#");
  const inserted = await sql<{ id: number }[]>`insert into supplements ${sql(rows)} returning id`;
  return inserted.map((r) => r.id);
}

/**
 * Stock on every supplement of `userId` (issue 40): counted 30 days ago, one refill since, so
 * GET /api/supplements and GET /api/today are measured with what is left derived from a month
 * of doses.
 */
export async function seedStock(sql: postgres.Sql, userId: string): Promise<void> {
  await sql`update supplements set units_per_pack = 60, stock_count = 90,
    stock_counted_at = now() - interval '30 days', stock_counted_on = current_date - 30,
    stock_refills = jsonb_build_array(jsonb_build_object('at', (now() - interval '10 days')::text, 'units', 60))
    where user_id = ${userId}`;
}

/** The bench's own addresses, 198.19.200.k: in RFC 2544's range, clear of visitors.lua's 198.18.0.0 + i. */
export const ownAddress = (k: number) => `198.19.200.${k}`;

/** A desktop Chrome's User-Agent: a request that counts as a view or a click (not a bot). */
export const BROWSER_USER_AGENT =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/** Googlebot's User-Agent cut to BROWSER_USER_AGENT's length: the same bytes, counted as nothing. */
export const CRAWLER_USER_AGENT =
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36".slice(
    0,
    BROWSER_USER_AGENT.length,
  );

/** Schedules for the tracked users' supplements (issue 19): every kind of dose, one 'as needed'. */
const TRACK_SCHEDULES = [
  { times: ["anytime"], days: [1, 2, 3, 4, 5, 6, 7] },
  { times: ["morning", "evening"], days: [1, 2, 3, 4, 5, 6, 7] },
  { times: ["morning"], days: [1, 2, 3, 4, 5] },
  { times: ["bedtime"], days: [1, 2, 3, 4, 5, 6, 7] },
  { times: ["afternoon"], days: [1, 3, 5] },
];

/**
 * `days` of tracking for `userId`'s supplements `ids`, set-based: a schedule each (every tenth
 * 'as needed') in force from `days - 1` days ago (UTC), every ended day's doses logged by a fixed
 * hash (~87% taken, 8% skipped, 5% missed). `ids[0]`'s dose is 'anytime' every day.
 */
/** Nutrients of the table (in mg) the bench's supplements carry. */
const BENCH_NUTRIENTS = ["zinc", "magnesium", "vitamin-c", "iron", "calcium"];

export async function seedTracking(sql: postgres.Sql, userId: string, ids: number[], days: number): Promise<void> {
  const plan = ids.map((id, i) => ({
    id,
    schedule: i % 10 === 9 ? null : TRACK_SCHEDULES[i % TRACK_SCHEDULES.length],
    dose: 1 + (i % 3),
    // Issue 47: two ingredient lines each (the totals read has work to do).
    ingredients: [
      {
        nutrient: BENCH_NUTRIENTS[i % BENCH_NUTRIENTS.length],
        amount: 10,
        unit: "mg",
        entered: { amount: 10, unit: "mg" },
      },
      { name: `Extract ${i % 5}`, amount: 100, unit: "mg", entered: { amount: 100, unit: "mg" } },
    ],
  }));
  await sql`
    update supplements set schedule = p.schedule, dose_amount = p.dose, ingredients = p.ingredients
    from jsonb_to_recordset(${sql.json(plan)}) as p(id int, schedule jsonb, dose numeric, ingredients jsonb)
    where supplements.id = p.id and supplements.user_id = ${userId}`;
  const [dates] = await sql<{ today: string; from: string }[]>`
    select to_char(d, 'YYYY-MM-DD') as today, to_char(d - ${days - 1}::int, 'YYYY-MM-DD') as from
    from (select (now() at time zone 'UTC')::date as d) t`;
  const from = dates?.from ?? "";
  await sql`delete from schedule_versions where user_id = ${userId}`;
  await sql`delete from intakes where user_id = ${userId}`;
  await sql`
    insert into schedule_versions (user_id, supplement_id, valid_from, name, quantity_type, dose_amount, schedule, ingredients)
    select user_id, id, ${from}::date, name, quantity_type, dose_amount, schedule, ingredients from supplements
    where user_id = ${userId}`;
  await sql`
    insert into intakes (user_id, date, supplement_id, time, status, name, at)
    select v.user_id, d.day, v.supplement_id, t.time,
      case when h.r < 87 then 'taken' else 'skipped' end, v.name, (d.day + time '08:00') at time zone 'UTC'
    from schedule_versions v
    cross join lateral (
      select g::date as day
      from generate_series(v.valid_from::timestamp, (${dates?.today ?? ""}::date - 1)::timestamp, interval '1 day') g
    ) d
    cross join lateral jsonb_array_elements_text(v.schedule -> 'times') as t(time)
    cross join lateral (select abs(hashtext(v.supplement_id || '/' || d.day || '/' || t.time)) % 100 as r) h
    where v.user_id = ${userId} and jsonb_typeof(v.schedule) = 'object'
      and (v.schedule -> 'days') @> to_jsonb(extract(isodow from d.day)::int)
      and h.r < 95`;
}

/** The ids of supplements whose 'View Product' link shows (premium owner, links on, an https link). */
export async function productLinkIds(sql: postgres.Sql): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`
    select s.id from supplements s join users u on u.id = s.user_id
    where u.is_premium and u.show_affiliate_links and s.affiliate_link like 'https://%'
    order by s.id`;
  return rows.map((r) => r.id);
}

export const SCALE_PREFIX = "zipf_";

/** `count` profiles `zipf_1` … for the scale run (generate_series, 20,000 a transaction), `perUser` supplements each. */
export async function seedScaleProfiles(sql: postgres.Sql, count: number, perUser: number): Promise<void> {
  const names = sql.array(SUPPLEMENT_NAMES);
  const types = sql.array([...QUANTITY_TYPES]);
  const frequencies = sql.array(FREQUENCIES);
  const bio = BIOS[0] ?? "";
  for (let start = 1; start <= count; start += 20_000) {
    const end = Math.min(count, start + 19_999);
    await sql.begin(async (tx) => {
      await tx`
        insert into users (id, name, email, email_verified, first_name, last_name, username, bio)
        select 'zipf-' || g, 'Zipf Profile ' || g, 'zipf' || g || '@scale.bench.example.com', true, 'Zipf',
          'Profile ' || g, ${SCALE_PREFIX}::text || g, case when g % 3 = 0 then ${bio} end
        from generate_series(${start}::int, ${end}::int) g`;
      await tx`
        insert into supplements (user_id, name, quantity_type, frequency, sort_order)
        select 'zipf-' || g,
          (${names}::text[])[1 + (g * 7 + o * 13) % ${SUPPLEMENT_NAMES.length}],
          (${types}::text[])[1 + (g + o) % ${QUANTITY_TYPES.length}],
          (${frequencies}::text[])[1 + (g * 3 + o) % ${FREQUENCIES.length}],
          o
        from generate_series(${start}::int, ${end}::int) g cross join generate_series(0, ${perUser - 1}::int) o`;
    });
  }
}

export interface SessionUser {
  id: string;
  email: string;
  /** The session's Cookie header (better-auth's session token; its cookie cache is off). */
  cookie: string;
  /** The one address this user's requests come from (X-Forwarded-For). */
  address: string;
}

/** Signs a new user up over HTTP (better-auth's POST /api/auth/sign-up/email), keeping the session cookie. */
export async function signUp(origin: string, email: string, name: string, address: string): Promise<SessionUser> {
  const res = await fetch(`${origin}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: origin, "X-Forwarded-For": address },
    body: JSON.stringify({ email, password: "bench correct horse battery staple", name }),
  });
  const text = await res.text();
  const id = res.status === 200 ? (JSON.parse(text) as { user?: { id?: string } }).user?.id : undefined;
  const cookie = res.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  if (!id || !cookie.includes("session_token")) throw new Error(`sign-up of ${email}: ${res.status} ${text}`);
  return { id, email, cookie, address };
}

/** Sets the signed-in user's username through the app (PUT /api/profile). */
export async function setUsername(origin: string, user: SessionUser, username: string): Promise<void> {
  const headers = {
    "Content-Type": "application/json",
    Origin: origin,
    Cookie: user.cookie,
    "X-Forwarded-For": user.address,
  };
  const res = await fetch(`${origin}/api/profile`, { method: "PUT", headers, body: JSON.stringify({ username }) });
  if (res.status !== 200) throw new Error(`PUT /api/profile for ${user.email}: ${res.status} ${await res.text()}`);
}
