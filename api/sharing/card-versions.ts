/**
 * The versions a profile's social card has had (issue 16, table `card_versions`, migration
 * 0008): a card URL is served `immutable`, so `/og/{username}/{version}.png` must keep giving
 * the picture of THAT version; each version's facts (CardFacts) are kept and redrawn from.
 *
 * Recorded on the cold paths only, at most once per user and version per instance; the
 * newest CARD_VERSIONS_KEPT per user are kept; served only under the name they show, while
 * it is the user's. Details: docs/features.md, "Sharing (issue 16)".
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { LRUCache } from "lru-cache";
import type { Db } from "../../db/client";
import { cardVersions, users } from "../../db/schema";
import type { AppContext } from "../lib/context";
import { errorFields, log } from "../lib/log";
import { CARD_NAMES, CARD_TEMPLATE_REVISION, type CardFacts, cardVersion } from "./card-facts";

/** How many versions of a user's card are kept (the newest, by when first recorded). */
export const CARD_VERSIONS_KEPT = 20;

/** Users whose last recorded version one instance remembers. */
const RECORDED_USERS = 20_000;

/** Each user's last version this instance recorded (least recently used forgotten first). */
const recordedOf = (ctx: AppContext) =>
  ctx.instance("card-versions", () => new LRUCache<string, string>({ max: RECORDED_USERS }));

/** Forgets which versions this instance recorded, as a fresh instance (tests). */
export function forgetRecordedCardVersions(ctx: AppContext) {
  recordedOf(ctx).clear();
}

/**
 * Keeps `facts` as a version of `userId`'s card (once: a version this instance already
 * recorded for the user, or that is the newest recorded one, `recorded` as the profile query
 * read it, sends no statement). Never throws: a failure is logged, and the version is tried
 * again the next time it is computed. Recording and pruning are one statement.
 */
export async function recordCardVersion(
  ctx: AppContext,
  userId: string,
  facts: CardFacts,
  version = cardVersion(facts),
  recorded?: string | null,
): Promise<void> {
  const memo = recordedOf(ctx);
  if (memo.get(userId) === version) return;
  const db = ctx.database.db;
  try {
    if (recorded !== version) await insertAndPrune(db, userId, version, facts);
    memo.set(userId, version);
  } catch (error) {
    log.warn("card: version not recorded", { userId, version, ...errorFields(error) });
  }
}

/**
 * Inserts the version (`on conflict do nothing`) and, when it was new, deletes the user's
 * versions older than the newest CARD_VERSIONS_KEPT, in one statement. The delete sees the
 * table as it was before the insert, so it keeps the newest CARD_VERSIONS_KEPT − 1 old rows.
 */
async function insertAndPrune(db: Db, userId: string, version: string, facts: CardFacts) {
  await db.execute(sql`
    with inserted as (
      insert into ${cardVersions} (user_id, version, revision, facts)
      values (${userId}, ${version}, ${CARD_TEMPLATE_REVISION}, ${JSON.stringify(facts)}::jsonb)
      on conflict do nothing
      returning seq
    )
    delete from ${cardVersions}
    where user_id = ${userId} and exists (select 1 from inserted) and seq < (
      select seq from ${cardVersions} where user_id = ${userId}
      order by seq desc offset ${CARD_VERSIONS_KEPT - 2} limit 1
    )`);
}

/** Stored JSON as CardFacts, or null when it is not their shape. */
function asCardFacts(value: unknown): CardFacts | null {
  if (!value || typeof value !== "object") return null;
  const f = value as Record<string, unknown>;
  const text = (v: unknown) => typeof v === "string";
  const textOrNull = (v: unknown) => v === null || typeof v === "string";
  if (!text(f.username) || !textOrNull(f.bio) || !textOrNull(f.avatar) || !text(f.product)) return null;
  if (!Number.isInteger(f.count) || (f.count as number) < 0) return null;
  if (!Array.isArray(f.names) || f.names.length > CARD_NAMES || !f.names.every(text)) return null;
  return {
    username: f.username as string,
    bio: f.bio as string | null,
    avatar: f.avatar as string | null,
    count: f.count as number,
    names: f.names as string[],
    product: f.product as string,
  };
}

/**
 * The facts of `version` of the card of the user now called `name` (any case), when it was
 * recorded, shows that name, and still hashes to `version`; otherwise null.
 */
export async function storedCardFacts(db: Db, name: string, version: string): Promise<CardFacts | null> {
  const [row] = await db
    .select({ revision: cardVersions.revision, facts: cardVersions.facts })
    .from(cardVersions)
    .innerJoin(users, eq(users.id, cardVersions.userId))
    .where(and(sql`lower(${users.username}) = lower(${name})`, eq(cardVersions.version, version)))
    .limit(1);
  if (!row) return null;
  const facts = asCardFacts(row.facts);
  if (!facts || facts.username.toLowerCase() !== name.toLowerCase()) return null;
  if (cardVersion(facts, row.revision) !== version) {
    log.warn("card: a stored version does not match its facts", { name, version });
    return null;
  }
  return facts;
}

/** The account export's `socialCards`: every kept version, oldest first. */
export async function exportCardVersions(db: Db, userId: string) {
  const rows = await db
    .select({ version: cardVersions.version, recordedAt: cardVersions.createdAt, facts: cardVersions.facts })
    .from(cardVersions)
    .where(eq(cardVersions.userId, userId))
    .orderBy(asc(cardVersions.seq));
  return rows.map((r) => ({ version: r.version, recordedAt: r.recordedAt.toISOString(), facts: r.facts }));
}
