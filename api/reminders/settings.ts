/** Reading and changing a user's reminder settings; defaults until they change one. */
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { pushSubscriptions, reminderSettings } from "../../db/schema";
import {
  DEFAULT_FOLLOW_UP,
  DEFAULT_FOLLOW_UPS,
  DEFAULT_REMINDER_TIMES,
  type FollowUpMinutes,
  type FollowUps,
  type ReminderSettingsInput,
  type ReminderSettingsJson,
} from "../../src/lib/reminders";
import { DEFAULT_REFILL_LEAD, type RefillLeadDays } from "../../src/lib/stock";
import { now } from "../lib/clock";
import { type ConfirmationState, confirmationState } from "./confirm";

type Row = typeof reminderSettings.$inferSelect;

function toJson(
  row: Row | undefined,
  devices: ReminderSettingsJson["devices"],
): Omit<ReminderSettingsJson, keyof ConfirmationState> {
  return {
    times: row
      ? { morning: row.morning, afternoon: row.afternoon, evening: row.evening, bedtime: row.bedtime }
      : { ...DEFAULT_REMINDER_TIMES },
    email: row?.email ?? false,
    push: row?.push ?? false,
    followUpMinutes: (row?.followUpMinutes ?? DEFAULT_FOLLOW_UP) as FollowUpMinutes,
    followUps: (row?.followUps ?? DEFAULT_FOLLOW_UPS) as FollowUps,
    refillLeadDays: (row?.refillLeadDays ?? DEFAULT_REFILL_LEAD) as RefillLeadDays,
    devices,
  };
}

export async function readReminderSettings(db: Db, userId: string): Promise<ReminderSettingsJson> {
  const [[row], devices, confirmation] = await Promise.all([
    db.select().from(reminderSettings).where(eq(reminderSettings.userId, userId)),
    db
      .select({
        id: pushSubscriptions.id,
        label: pushSubscriptions.label,
        createdAt: pushSubscriptions.createdAt,
        lastUsedAt: pushSubscriptions.lastUsedAt,
      })
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.userId, userId))
      .orderBy(asc(pushSubscriptions.createdAt)),
    confirmationState(db, userId),
  ]);
  return {
    ...toJson(
      row,
      devices.map((d) => ({
        id: d.id,
        label: d.label,
        createdAt: d.createdAt.toISOString(),
        lastUsedAt: d.lastUsedAt?.toISOString() ?? null,
      })),
    ),
    ...confirmation,
  };
}

/**
 * Applies a change in one statement. `changed_at` moves to now: occurrences due before it are
 * never planned, so a new time (or a channel turned on) applies from the next occurrence.
 */
export async function updateReminderSettings(db: Db, userId: string, input: ReminderSettingsInput): Promise<void> {
  const set: Partial<Row> = { ...input.times, changedAt: now() };
  if (input.email !== undefined) set.email = input.email;
  if (input.push !== undefined) set.push = input.push;
  if (input.followUpMinutes !== undefined) set.followUpMinutes = input.followUpMinutes;
  if (input.followUps !== undefined) set.followUps = input.followUps;
  if (input.refillLeadDays !== undefined) set.refillLeadDays = input.refillLeadDays;
  await db
    .insert(reminderSettings)
    .values({ userId, ...set })
    .onConflictDoUpdate({ target: reminderSettings.userId, set });
}

/** One-click unsubscribe: e-mail reminders off, nothing else. */
export async function turnEmailOff(db: Db, userId: string): Promise<void> {
  await db
    .update(reminderSettings)
    .set({ email: false, changedAt: now() })
    .where(and(eq(reminderSettings.userId, userId), eq(reminderSettings.email, true)));
}

/** The export's section (issue 39): the settings and each device's label and dates; never endpoints or keys. */
export async function exportReminders(db: Db, userId: string) {
  const { devices, emailConfirmed: _, confirmationSentTo: __, ...settings } = await readReminderSettings(db, userId);
  return {
    settings,
    devices: devices.map(({ label, createdAt, lastUsedAt }) => ({ label, createdAt, lastUsedAt })),
  };
}

/** Whether any reminder channel is on (the dashboard links to the settings when none is). */
export async function remindersOn(db: Db, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ email: reminderSettings.email, push: reminderSettings.push })
    .from(reminderSettings)
    .where(eq(reminderSettings.userId, userId));
  return Boolean(row && (row.email || row.push));
}
