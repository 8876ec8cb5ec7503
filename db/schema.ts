/**
 * Every table of the app. better-auth owns `users`, `sessions`, `accounts`,
 * `verifications` and `auth_rate_limits` (its rate-limit counters); the rest is ours.
 * Property names are what the code (and better-auth) uses; column names are snake_case.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  customType,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { AsNeededLimits } from "../src/lib/as-needed";
import type { StoredIngredient } from "../src/lib/ingredients";
import { DEFAULT_SCHEDULE, type Schedule } from "../src/lib/schedule";
import type { StockRefill } from "../src/lib/stock";

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
});

const timestamps = {
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date()),
};

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    /** better-auth's display name (the sign-up name). */
    name: text("name").notNull().default(""),
    email: text("email").notNull().unique(),
    emailVerified: boolean("email_verified").notNull().default(false),
    firstName: text("first_name"),
    lastName: text("last_name"),
    /** better-auth's `image` field, mapped here. */
    profileImageUrl: text("profile_image_url"),
    username: text("username"),
    bio: text("bio"),
    stripeCustomerId: text("stripe_customer_id"),
    stripeSubscriptionId: text("stripe_subscription_id"),
    subscriptionStatus: text("subscription_status"),
    isPremium: boolean("is_premium").notNull().default(false),
    instagramUrl: text("instagram_url"),
    twitterUrl: text("twitter_url"),
    facebookUrl: text("facebook_url"),
    etsyUrl: text("etsy_url"),
    youtubeUrl: text("youtube_url"),
    tiktokUrl: text("tiktok_url"),
    linkedinUrl: text("linkedin_url"),
    websiteUrl: text("website_url"),
    /** Issue 14: notes on the public page (premium; off until the owner turns it on). */
    showNotes: boolean("show_notes").notNull().default(false),
    /** Issue 14: 'View Product' links on the public page (premium; on unless turned off). */
    showAffiliateLinks: boolean("show_affiliate_links").notNull().default(true),
    /** The user's IANA time zone (issue 19): their 'today'. Null until set (UTC meanwhile). */
    timeZone: text("time_zone"),
    /** Whether the public profile shows when they take things (issue 19). */
    showSchedule: boolean("show_schedule").notNull().default(false),
    /** Issue 50 §3: visitors may copy the public list into their own ('Copy this stack'). */
    allowCopies: boolean("allow_copies").notNull().default(true),
    ...timestamps,
  },
  (t) => [
    // Usernames are unique case-insensitively: `Alice` and `alice` are one name.
    uniqueIndex("users_username_lower_key").on(sql`lower(${t.username})`),
    uniqueIndex("users_stripe_customer_key").on(t.stripeCustomerId),
    // Is an image still someone's avatar? (api/images/routes.ts). Hash: a URL can be longer than a
    // btree entry may be, and only equality is asked.
    index("users_profile_image_url_idx").using("hash", t.profileImageUrl),
  ],
);

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    token: text("token").notNull().unique(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    ...timestamps,
  },
  (t) => [index("sessions_user_id_idx").on(t.userId), index("sessions_expires_at_idx").on(t.expiresAt)],
);

export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: timestamp("access_token_expires_at", { withTimezone: true }),
    refreshTokenExpiresAt: timestamp("refresh_token_expires_at", { withTimezone: true }),
    scope: text("scope"),
    password: text("password"),
    ...timestamps,
  },
  (t) => [index("accounts_user_id_idx").on(t.userId)],
);

export const verifications = pgTable(
  "verifications",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    ...timestamps,
  },
  (t) => [index("verifications_identifier_idx").on(t.identifier)],
);

/** better-auth's rate-limit counters (sign-in, sign-up, password reset). */
export const authRateLimits = pgTable("auth_rate_limits", {
  id: text("id").primaryKey(),
  key: text("key").notNull().unique(),
  count: integer("count").notNull(),
  lastRequest: bigint("last_request", { mode: "number" }).notNull(),
});

/** Our own fixed-window counters (uploads, public profile API). */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  windowStart: bigint("window_start", { mode: "number" }).notNull(),
  count: integer("count").notNull(),
});

export const supplements = pgTable(
  "supplements",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    quantityType: text("quantity_type").notNull(),
    frequency: text("frequency").notNull(),
    affiliateLink: text("affiliate_link"),
    notes: text("notes"),
    sortOrder: integer("sort_order").notNull().default(0),
    /** Times of day and ISO weekdays, or null for 'as needed' (issue 19, src/lib/schedule.ts). */
    schedule: jsonb("schedule").$type<Schedule | null>().default(DEFAULT_SCHEDULE),
    doseAmount: numeric("dose_amount", { precision: 6, scale: 2, mode: "number" }),
    /** Issue 48: an as-needed supplement's limits (src/lib/as-needed.ts); null: none (always null with a schedule). */
    asNeeded: jsonb("as_needed").$type<AsNeededLimits | null>(),
    /** What is in it (issue 47, src/lib/ingredients.ts): units of quantityType per serving, and its lines per serving. */
    servingSize: numeric("serving_size", { precision: 5, scale: 2, mode: "number" }).notNull().default(1),
    ingredients: jsonb("ingredients").$type<StoredIngredient[]>().notNull().default([]),
    /** Stock (issue 40, docs/stock.md): units in a pack, for `+1 pack`. */
    unitsPerPack: numeric("units_per_pack", { precision: 8, scale: 2, mode: "number" }),
    /** The last count on hand ('I have N left'), when it was set, and that day in the user's zone. */
    stockCount: numeric("stock_count", { precision: 8, scale: 2, mode: "number" }),
    stockCountedAt: timestamp("stock_counted_at", { withTimezone: true }),
    stockCountedOn: date("stock_counted_on"),
    /** Refills since that count, oldest first: what is left is derived from these and the log. */
    stockRefills: jsonb("stock_refills").$type<StockRefill[]>().notNull().default([]),
    /** When the refill reminder of the current run-out was planned (none again until a refill or recount). */
    refillRemindedAt: timestamp("refill_reminded_at", { withTimezone: true }),
    /**
     * Issue 50 §3: a copy's source ('From @alice's stack'): the owner (null once they delete their
     * account) and their supplement's id (no key: it may be deleted and restored, or gone).
     */
    sourceUserId: text("source_user_id").references(() => users.id, { onDelete: "set null" }),
    sourceSupplementId: integer("source_supplement_id"),
    ...timestamps,
  },
  // On user_id alone: sort_order and updated_at are in no index, so a reorder's updates
  // can be HOT (no index entries written; the table keeps free space per page, migration
  // 0003). A user's at most 200 rows are sorted in memory.
  (t) => [
    index("supplements_user_id_idx").on(t.userId),
    // Deleting an account sets its copies' source to null: found by this, not a scan.
    index("supplements_source_user_id_idx").on(t.sourceUserId).where(sql`${t.sourceUserId} is not null`),
  ],
);

/** Profile images, re-encoded to WebP, kept in Postgres so every instance can serve them. */
export const images = pgTable(
  "images",
  {
    /**
     * Hash of the owner and the bytes (api/images/routes.ts imageId): the URL of an image never changes
     * meaning, so it can be cached forever. Rows from before migration 0004 are keyed by the
     * bytes alone, and one id may then have a row for each user who shows it.
     */
    id: text("id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    contentType: text("content_type").notNull(),
    data: bytea("data").notNull(),
    byteSize: integer("byte_size").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.id, t.userId] }), index("images_user_id_idx").on(t.userId)],
);

/** Stripe event ids already processed, so a redelivered event has one effect. */
export const stripeEvents = pgTable("stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  processedAt: timestamp("processed_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Views and unique visitors of a public profile per UTC day (api/insights/counter.ts). */
export const profileDailyCounts = pgTable(
  "profile_daily_counts",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    views: integer("views").notNull().default(0),
    visitors: integer("visitors").notNull().default(0),
  },
  (t) => [primaryKey({ name: "profile_daily_counts_pk", columns: [t.userId, t.day] })],
);

/** Clicks on a supplement's 'View Product' link (/go/{id}) per UTC day. */
export const supplementDailyClicks = pgTable(
  "supplement_daily_clicks",
  {
    supplementId: integer("supplement_id")
      .notNull()
      .references(() => supplements.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    clicks: integer("clicks").notNull().default(0),
  },
  (t) => [primaryKey({ name: "supplement_daily_clicks_pk", columns: [t.supplementId, t.day] })],
);

/** Issue 50 §3: copies made of a supplement per UTC day; who copied is not stored. */
export const supplementDailyCopies = pgTable(
  "supplement_daily_copies",
  {
    supplementId: integer("supplement_id")
      .notNull()
      .references(() => supplements.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    copies: integer("copies").notNull().default(0),
  },
  (t) => [primaryKey({ name: "supplement_daily_copies_pk", columns: [t.supplementId, t.day] })],
);

/** The random salt of each UTC day, shared by every instance; deleted after 2 days. */
export const visitSalts = pgTable("visit_salts", {
  day: date("day").primaryKey(),
  salt: bytea("salt").notNull(),
});

/**
 * Visitor hashes of an earlier release, one row per visitor (migration 0005). Nothing writes
 * it since migration 0010, and since issue 46 nothing reads or deletes from it either. The
 * previous release's insights flush still deletes from it, so dropping it now would fail that
 * flush on old instances during a rolling deploy (their counts lost at stop): the next
 * release drops it (CONTRIBUTING.md, "expand and contract").
 */
export const visitorHashes = pgTable(
  "visitor_hashes",
  {
    day: date("day").notNull(),
    hash: bytea("hash").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ name: "visitor_hashes_pk", columns: [t.day, t.hash] }),
    index("visitor_hashes_user_id_idx").on(t.userId),
  ],
);

/**
 * Unique visitors (no address is stored): one row per profile, UTC day and flush, with the
 * visitors' HMACs side by side (16 bytes each, api/insights/counter.ts). A day's visitors are
 * profile_daily_counts.visitors plus the distinct hashes of its batches; the first flush of a
 * day adds the earlier days' to the counts and deletes their batches (migration 0010).
 */
export const visitorBatches = pgTable(
  "visitor_batches",
  {
    day: date("day").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    hashes: bytea("hashes").notNull(),
  },
  (t) => [index("visitor_batches_user_day_idx").on(t.userId, t.day)],
);

/**
 * What a supplement was from `validFrom` (the user's date) on: a day's doses come from the
 * version in force on it, so ended days never change (issue 19, api/tracking). No foreign key
 * to supplements: a deleted one keeps its past (its last version is `deleted`).
 */
export const scheduleVersions = pgTable(
  "schedule_versions",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    supplementId: integer("supplement_id").notNull(),
    validFrom: date("valid_from").notNull(),
    name: text("name").notNull(),
    quantityType: text("quantity_type").notNull(),
    doseAmount: numeric("dose_amount", { precision: 6, scale: 2, mode: "number" }),
    schedule: jsonb("schedule").$type<Schedule | null>(),
    deleted: boolean("deleted").notNull().default(false),
    /** Issue 47: what was in a serving then, so a past day keeps its totals. */
    servingSize: numeric("serving_size", { precision: 5, scale: 2, mode: "number" }).notNull().default(1),
    ingredients: jsonb("ingredients").$type<StoredIngredient[]>().notNull().default([]),
  },
  (t) => [primaryKey({ name: "schedule_versions_pk", columns: [t.userId, t.supplementId, t.validFrom] })],
);

/** Logged doses: one per (user, date, supplement, time), with a copy of the name. */
export const intakes = pgTable(
  "intakes",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    date: date("date").notNull(),
    supplementId: integer("supplement_id").notNull(),
    time: text("time").notNull(),
    status: text("status").notNull(),
    name: text("name").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull(),
    /** Issue 48: how many of an as-needed supplement were taken that day (1 for every other dose). */
    count: integer("count").notNull().default(1),
  },
  (t) => [
    primaryKey({ name: "intakes_pk", columns: [t.userId, t.date, t.supplementId, t.time] }),
    check("intakes_status_check", sql`${t.status} IN ('taken', 'skipped')`),
    check("intakes_count_check", sql`${t.count} BETWEEN 1 AND 24`),
  ],
);

/**
 * When a dose was last cleared (un-ticked), per natural key: a tick made before that time and
 * sent later (an offline queue's replay) is ignored instead of bringing the dose back
 * (issue 40, docs/offline.md). Rows older than the editable window are pruned by the next clear.
 */
export const intakeClears = pgTable(
  "intake_clears",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    date: date("date").notNull(),
    supplementId: integer("supplement_id").notNull(),
    time: text("time").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ name: "intake_clears_pk", columns: [t.userId, t.date, t.supplementId, t.time] })],
);

/**
 * Every change to the count of an as-needed supplement's day (issue 48): from what to what, and
 * when it was made (a waiting tick's own time). Today's `lastTakenAt` is the latest change that
 * raised the count to where it is (api/tracking/as-needed.ts). Rows older than the editable
 * window are pruned by the next change.
 */
export const asNeededLog = pgTable(
  "as_needed_log",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    date: date("date").notNull(),
    supplementId: integer("supplement_id").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull(),
    countFrom: integer("count_from").notNull(),
    countTo: integer("count_to").notNull(),
  },
  (t) => [index("as_needed_log_day_idx").on(t.userId, t.date, t.supplementId)],
);

/**
 * Per user and day, the logged doses that were due (the schedule version in force on that day
 * had that time on that weekday): taken, skipped, and how many of them belong to a supplement
 * added that day. Kept by triggers on intakes and schedule_versions (migration 0011), so that
 * GET /api/history reads one row a day instead of every dose (api/tracking/queries.ts).
 */
export const intakeDays = pgTable(
  "intake_days",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    date: date("date").notNull(),
    taken: integer("taken").notNull(),
    skipped: integer("skipped").notNull(),
    firstDay: integer("first_day").notNull(),
  },
  (t) => [primaryKey({ name: "intake_days_pk", columns: [t.userId, t.date] })],
);

/**
 * A deleted supplement while its Undo is open (issue 38): the row, its schedule versions and
 * its link clicks as they were just before the delete, so that Undo puts back exactly what was
 * there. The supplement itself is really deleted (invisible everywhere at once); this copy is
 * private, never read but by Undo, and purged once the window is over (docs/undo-delete.md).
 */
export const supplementTrash = pgTable(
  "supplement_trash",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    supplementId: integer("supplement_id").notNull(),
    deletedAt: timestamp("deleted_at", { withTimezone: true }).notNull(),
    row: jsonb("row").notNull(),
    versions: jsonb("versions").notNull(),
    clicks: jsonb("clicks").notNull(),
  },
  (t) => [
    primaryKey({ name: "supplement_trash_pk", columns: [t.userId, t.supplementId] }),
    index("supplement_trash_deleted_at_idx").on(t.deletedAt),
  ],
);

export type User = typeof users.$inferSelect;
export type Supplement = typeof supplements.$inferSelect;

/**
 * Usernames of deleted accounts, held until `heldUntil` (30 days, issue 15): PUT /api/profile
 * answers 409 'Username is already taken' for them. `name` is the lower-case username.
 */
export const usernameHolds = pgTable("username_holds", {
  name: text("name").primaryKey(),
  heldUntil: timestamp("held_until", { withTimezone: true }).notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The facts of each version of a profile's social card (issue 16, migration 0008): an old
 * `/og/{username}/{version}.png` is drawn again from them, so its URL keeps its picture.
 * `facts` is api/sharing/card-facts.ts's CardFacts; `version` their hash with `revision`.
 * The newest CARD_VERSIONS_KEPT per user (by `seq`) are kept (api/sharing/card-versions.ts).
 */
export const cardVersions = pgTable(
  "card_versions",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    version: text("version").notNull(),
    revision: integer("revision").notNull(),
    facts: jsonb("facts").notNull(),
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "card_versions_pk", columns: [t.userId, t.version] })],
);

/**
 * Reminder settings (issue 39): one row per user once they change anything (defaults
 * otherwise, src/lib/reminders.ts). `changedAt`: occurrences due before it are never planned,
 * so a new time or zone applies from the next occurrence.
 */
export const reminderSettings = pgTable(
  "reminder_settings",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    morning: text("morning").notNull().default("08:00"),
    afternoon: text("afternoon").notNull().default("13:00"),
    evening: text("evening").notNull().default("18:00"),
    bedtime: text("bedtime").notNull().default("22:00"),
    email: boolean("email").notNull().default(false),
    push: boolean("push").notNull().default(false),
    followUpMinutes: integer("follow_up_minutes").notNull().default(60),
    /** Issue 48: follow-ups after a slot's reminder, each follow_up_minutes after the one before. */
    followUps: integer("follow_ups").notNull().default(1),
    /** Issue 40: days before a supplement runs out to remind of a refill; 0 is off. */
    refillLeadDays: integer("refill_lead_days").notNull().default(7),
    changedAt: timestamp("changed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("reminder_settings_follow_up_check", sql`${t.followUpMinutes} IN (0, 30, 60, 120)`),
    check("reminder_settings_follow_ups_check", sql`${t.followUps} BETWEEN 0 AND 3`),
    check("reminder_settings_refill_lead_check", sql`${t.refillLeadDays} IN (0, 3, 7, 14)`),
    index("reminder_settings_on_idx").on(t.userId).where(sql`${t.email} OR ${t.push}`),
  ],
);

/**
 * The link that confirms a user's address for e-mail reminders (issue 45, api/reminders/confirm.ts):
 * at most one per user (a newer one replaces it), the token stored only as its SHA-256, for
 * the address it was sent to. Deleted as it is opened.
 */
export const emailConfirmations = pgTable("email_confirmations", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  tokenHash: text("token_hash").notNull().unique(),
  address: text("address").notNull(),
  sentAt: timestamp("sent_at", { withTimezone: true }).notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
});

/** The browsers that receive a user's push reminders: one row per endpoint. */
export const pushSubscriptions = pgTable(
  "push_subscriptions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    endpoint: text("endpoint").notNull(),
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    label: text("label").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    /**
     * Issue 45: the session that subscribed this browser. Ending it (sign-out, the sessions
     * list, a password change that ends others, expiry's delete) deletes the subscription: a
     * signed-out device stops receiving the user's pushes. Null: stored before migration 0016.
     */
    sessionId: text("session_id").references(() => sessions.id, { onDelete: "cascade" }),
  },
  (t) => [
    uniqueIndex("push_subscriptions_endpoint_idx").on(t.endpoint),
    index("push_subscriptions_user_idx").on(t.userId),
    index("push_subscriptions_session_idx").on(t.sessionId),
  ],
);

/**
 * The reminder outbox (api/reminders): one row per (user, local date, slot, kind, channel, follow-up),
 * inserted by whichever instance plans it first and claimed for sending with SKIP LOCKED
 * and a lease. status: pending, sent, skipped (nothing open), dropped (late), failed.
 */
export const reminderOutbox = pgTable(
  "reminder_outbox",
  {
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity().primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    localDate: date("local_date").notNull(),
    slot: text("slot").notNull(),
    kind: text("kind").notNull(),
    channel: text("channel").notNull(),
    /** Issue 48: which follow-up of the slot's reminder (1-3); 0 for a reminder or a refill. */
    followUp: integer("follow_up").notNull().default(0),
    dueAt: timestamp("due_at", { withTimezone: true }).notNull(),
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAt: timestamp("next_at", { withTimezone: true }).notNull(),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    sentAt: timestamp("sent_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("reminder_outbox_key_idx").on(t.userId, t.localDate, t.slot, t.kind, t.channel, t.followUp),
    index("reminder_outbox_pending_idx").on(t.nextAt).where(sql`${t.status} = 'pending'`),
    index("reminder_outbox_sent_due_idx").on(t.dueAt).where(sql`${t.status} = 'sent' AND ${t.kind} = 'reminder'`),
    check("reminder_outbox_status_check", sql`${t.status} IN ('pending', 'sent', 'skipped', 'dropped', 'failed')`),
    check("reminder_outbox_follow_up_check", sql`${t.followUp} BETWEEN 0 AND 3`),
  ],
);

/** Keys the app makes for itself once (the embedded default's VAPID key pair). */
export const appKeys = pgTable("app_keys", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A user's calendar feed (issue 50 §1, api/calendar/): at most one. Its address holds a token
 * derived from the feed's random id and the server's secret (api/calendar/token.ts), so that
 * the settings can show it again; the database keeps only the token's SHA-256, to find the feed
 * by. Off keeps the row (and `hide_names`); turning it on again or a reset gives a new id, so
 * an old address never answers again. `fetches` since `window_start`: at most 60 an hour.
 */
export const calendarFeeds = pgTable("calendar_feeds", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  feedId: text("feed_id").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  enabled: boolean("enabled").notNull().default(true),
  hideNames: boolean("hide_names").notNull().default(false),
  windowStart: timestamp("window_start", { withTimezone: true }).notNull().defaultNow(),
  fetches: integer("fetches").notNull().default(0),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});
