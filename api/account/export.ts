/**
 * GET /api/account/export: everything StackTrack stores about a user, as a versioned JSON
 * document (`buildExport`) or as a CSV of the supplements (`exportCsv`).
 *
 * Built from the database column by column: every column is exported unless withheld by
 * name (WITHHELD_USER_COLUMNS), so a new column is exported without anyone remembering to;
 * a feature that stores more adds its section to EXPORT_SECTIONS. Never in it: the password
 * hash, session or OAuth tokens, Stripe ids or card data. Details: docs/features.md.
 */
import { and, asc, eq, getTableColumns, gt } from "drizzle-orm";
import { type Db, inOneSnapshot } from "../../db/client";
import {
  accounts,
  calendarFeeds,
  sessions,
  supplementDailyClicks,
  supplements,
  type User,
  users,
} from "../../db/schema";
import { EXPORT_FORMAT } from "../../src/lib/account";
import { ingredientJson, type StoredIngredient } from "../../src/lib/ingredients";
import { deviceName } from "../../src/lib/user-agent";
import { getStripe } from "../billing/stripe";
import { profileDays } from "../insights/counter";
import { now } from "../lib/clock";
import type { AppContext } from "../lib/context";
import { notFound } from "../lib/http";
import { errorFields, log } from "../lib/log";
import { exportReminders } from "../reminders/settings";
import { exportCardVersions } from "../sharing/card-versions";
import { listSupplements } from "../supplements/queries";
import { exportIntakes, SCHEDULE_CSV_HEADERS, scheduleCsvCells } from "../tracking/export";

type UserColumn = keyof typeof users.$inferSelect;

/** Columns of `users` that are not the user's data to take away, and why. */
export const WITHHELD_USER_COLUMNS: Partial<Record<UserColumn, string>> = {
  stripeCustomerId: "a reference into Stripe's systems, not data about the user",
  stripeSubscriptionId: "a reference into Stripe's systems, not data about the user",
};

/** Columns of `users` shown under `account` and `billing`; every other one is `profile`. */
const ACCOUNT_COLUMNS: UserColumn[] = ["id", "email", "emailVerified", "createdAt", "updatedAt"];
const BILLING_COLUMNS: UserColumn[] = ["isPremium", "subscriptionStatus"];

/** Columns of `supplements` left out: the owner's id (it is the account's). */
// sourceUserId: another account's internal id (issue 50 §3); the copy's source supplement id stays.
export const WITHHELD_SUPPLEMENT_COLUMNS: ReadonlySet<string> = new Set(["userId", "sourceUserId"]);

/** A stored value as JSON shows it: dates as ISO 8601, binary never (no such column today). */
function plain(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return undefined;
  return value;
}

function pick<T extends Record<string, unknown>>(row: T, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = plain(row[key]);
  return out;
}

/** What a section builder gets: the app, the user's row as stored, and the database. */
export interface SectionInput {
  ctx: AppContext;
  user: User;
  db: Db;
}
export type SectionBuilder = (input: SectionInput) => Promise<unknown> | unknown;

const userColumnNames = () => Object.keys(getTableColumns(users)) as UserColumn[];

const accountSection: SectionBuilder = async ({ user, db }) => {
  const rows = await db
    .select({ providerId: accounts.providerId, createdAt: accounts.createdAt })
    .from(accounts)
    .where(eq(accounts.userId, user.id))
    .orderBy(asc(accounts.createdAt));
  return {
    ...pick(user, ACCOUNT_COLUMNS),
    signInMethods: rows.map((r) => ({ method: signInMethod(r.providerId), since: r.createdAt.toISOString() })),
  };
};

const profileSection: SectionBuilder = ({ user }) => {
  const skip = new Set<string>([...ACCOUNT_COLUMNS, ...BILLING_COLUMNS, ...Object.keys(WITHHELD_USER_COLUMNS)]);
  return pick(
    user,
    userColumnNames().filter((c) => !skip.has(c)),
  );
};

const billingSection: SectionBuilder = async ({ ctx, user }) => ({
  plan: user.isPremium ? "premium" : "free",
  ...pick(user, BILLING_COLUMNS),
  currentPeriodEnd: await currentPeriodEnd(ctx, user),
});

const supplementsSection: SectionBuilder = async ({ user, db }) => {
  const rows = await db
    .select()
    .from(supplements)
    .where(eq(supplements.userId, user.id))
    .orderBy(asc(supplements.sortOrder), asc(supplements.id));
  const keys = Object.keys(getTableColumns(supplements)).filter((k) => !WITHHELD_SUPPLEMENT_COLUMNS.has(k));
  return rows.map((row) => pick(row, keys));
};

const sessionsSection: SectionBuilder = async ({ user, db }) => {
  const rows = await db
    .select({
      createdAt: sessions.createdAt,
      updatedAt: sessions.updatedAt,
      expiresAt: sessions.expiresAt,
      userAgent: sessions.userAgent,
      ipAddress: sessions.ipAddress,
    })
    .from(sessions)
    .where(and(eq(sessions.userId, user.id), gt(sessions.expiresAt, now())))
    .orderBy(asc(sessions.createdAt));
  return rows.map((s) => ({
    createdAt: s.createdAt.toISOString(),
    lastActiveAt: s.updatedAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    device: deviceName(s.userAgent),
    userAgent: s.userAgent,
    ipAddress: s.ipAddress,
  }));
};

/** Issue 14: the profile's daily views and visitors, and each supplement's daily clicks (UTC days). */
const insightsSection: SectionBuilder = ({ user, db }) =>
  // One snapshot, as GET /api/insights: a flush between the reads would split a day's figures.
  inOneSnapshot(db, async (tx) => ({
    profileDays: await profileDays(tx, user.id),
    linkClicks: await tx
      .select({
        date: supplementDailyClicks.day,
        supplementId: supplementDailyClicks.supplementId,
        clicks: supplementDailyClicks.clicks,
      })
      .from(supplementDailyClicks)
      .innerJoin(supplements, eq(supplements.id, supplementDailyClicks.supplementId))
      .where(eq(supplements.userId, user.id))
      .orderBy(asc(supplementDailyClicks.day), asc(supplementDailyClicks.supplementId)),
  }));

/** Issue 19: every logged dose, oldest first (with the name the supplement had). */
const intakesSection: SectionBuilder = ({ user, db }) => exportIntakes(db, user.id);

/**
 * Issue 16: the versions of the social card that are kept (their facts repeat profile fields,
 * but past ones: an old bio or list is still data StackTrack holds about the user).
 */
const socialCardsSection: SectionBuilder = ({ user, db }) => exportCardVersions(db, user.id);

/**
 * Issue 40: what is left of each supplement with stock, as the dashboard shows it (its
 * count, pack size and refills are the supplement's own columns above).
 */
const stockSection: SectionBuilder = async ({ user, db }) =>
  (await listSupplements(db, user))
    .filter((s) => s.stock)
    .map((s) => ({ supplementId: s.id, name: s.name, ...s.stock }));

/**
 * Issue 50 §1: whether the calendar feed is on and hides names. Not its address: that is a key
 * (whoever has it reads the feed), and an export file is often kept or passed on.
 */
const calendarSection: SectionBuilder = async ({ user, db }) => {
  const [row] = await db
    .select({ enabled: calendarFeeds.enabled, hideNames: calendarFeeds.hideNames, createdAt: calendarFeeds.createdAt })
    .from(calendarFeeds)
    .where(eq(calendarFeeds.userId, user.id));
  return row ? { enabled: row.enabled, hideNames: row.hideNames, since: row.createdAt.toISOString() } : null;
};

/**
 * The document's sections, in order. Add a feature's data here: `[name, builder]`; the
 * builder reads what that feature stores for `user.id` (an empty list or null when none).
 */
export const EXPORT_SECTIONS: [string, SectionBuilder][] = [
  ["account", accountSection],
  ["profile", profileSection],
  ["billing", billingSection],
  ["supplements", supplementsSection],
  ["sessions", sessionsSection],
  ["insights", insightsSection],
  ["intakes", intakesSection],
  ["socialCards", socialCardsSection],
  ["reminders", ({ user, db }) => exportReminders(db, user.id)],
  ["stock", stockSection],
  ["calendar", calendarSection],
];

export interface ExportDocument {
  format: string;
  exportedAt: string;
  [section: string]: unknown;
}

/** The export of one user, read from the database now. 404 when the user does not exist. */
export async function buildExport(ctx: AppContext, userId: string): Promise<ExportDocument> {
  const db = ctx.database.db;
  const [user] = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw notFound("User not found");
  const doc: ExportDocument = { format: EXPORT_FORMAT, exportedAt: now().toISOString() };
  for (const [name, build] of EXPORT_SECTIONS) doc[name] = await build({ ctx, user, db });
  return doc;
}

/** better-auth's provider id as the user knows it. */
export const signInMethod = (providerId: string) => (providerId === "credential" ? "password" : providerId);

/** When the current subscription period ends, from Stripe; null without one or when Stripe does not answer. */
async function currentPeriodEnd(ctx: AppContext, user: User): Promise<string | null> {
  if (!user.stripeSubscriptionId) return null;
  const stripe = getStripe(ctx.config);
  if (!stripe) return null;
  try {
    const subscription = await stripe.subscriptions.retrieve(user.stripeSubscriptionId);
    const end = subscription.items.data[0]?.current_period_end;
    return end ? new Date(end * 1000).toISOString() : null;
  } catch (error) {
    log.warn("export: subscription not read from Stripe", { userId: user.id, ...errorFields(error) });
    return null;
  }
}

// ------------------------------------------------------------------------------------ CSV

/** A cell a spreadsheet would run as a formula gets a leading apostrophe (OWASP's CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field: RFC 4180 quoting (in quotes when it holds a quote, comma, CR or LF; quotes doubled). */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "string" ? value : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A supplement's lines per serving for the CSV, what was typed in brackets when converted. */
function ingredientsCell(lines: StoredIngredient[]): string {
  return lines
    .map(ingredientJson)
    .map((l) => {
      const typed = l.entered.unit === l.unit ? "" : ` (${l.entered.amount} ${l.entered.unit})`;
      return `${l.name} ${l.amount} ${l.unit}${typed}`;
    })
    .join("; ");
}

/** The supplements of an export as CSV: a header row, one row per supplement, CRLF, UTF-8 with a BOM. */
export function exportCsv(doc: ExportDocument): string {
  const list = (doc.supplements as Record<string, unknown>[] | undefined) ?? [];
  // The schedule (issue 19) reads as three columns a person can read: Times, Days, Amount.
  // The ingredients (issue 47) read as one column: `Vitamin D 50 mcg (2000 IU); Creatine 5 g`.
  const scheduleKeys = new Set(["schedule", "doseAmount", "ingredients"]);
  const header = Object.keys(getTableColumns(supplements)).filter(
    (k) => !WITHHELD_SUPPLEMENT_COLUMNS.has(k) && !scheduleKeys.has(k),
  );
  const lines = [[...header, ...SCHEDULE_CSV_HEADERS, "Ingredients"].map(csvField).join(",")];
  for (const row of list) {
    const cells = scheduleCsvCells(row as Parameters<typeof scheduleCsvCells>[0]);
    const json = (value: unknown) => (value !== null && typeof value === "object" ? JSON.stringify(value) : value);
    const ingredients = ingredientsCell((row.ingredients as StoredIngredient[] | undefined) ?? []);
    lines.push([...header.map((key) => json(row[key])), ...cells, ingredients].map(csvField).join(","));
  }
  return `\uFEFF${lines.join("\r\n")}\r\n`;
}
