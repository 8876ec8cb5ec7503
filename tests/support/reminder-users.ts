/**
 * Many users with reminders, written straight into the database (fast set-up for the
 * many-instances test and bench/reminders.ts): each has a morning and an evening supplement
 * every day, one push subscription at the local push service, and its settings.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { pushSubscriptions, reminderSettings, scheduleVersions, supplements, users } from "../../db/schema";
import type { TestSubscription } from "../fakes/push-service";

export interface SeededUser {
  id: string;
  email: string;
  zone: string;
  email_: boolean;
  followUpMinutes: number;
  /** Issue 48: follow-ups after each reminder (1 unless the options say). */
  followUps: number;
  subscription: TestSubscription;
}

export interface SeedOptions {
  count: number;
  zones: string[];
  /** Occurrences due before it are not planned (settings' changed_at). */
  since: Date;
  /** Valid from (local date) of the schedules. */
  validFrom: string;
  subscription: () => TestSubscription;
  email: (i: number) => boolean;
  followUpMinutes: (i: number) => number;
  followUps?: (i: number) => number;
}

const DAILY = [1, 2, 3, 4, 5, 6, 7];

export async function seedReminderUsers(db: Db, options: SeedOptions): Promise<SeededUser[]> {
  const seeded: SeededUser[] = Array.from({ length: options.count }, (_, i) => ({
    id: `rem-${i}-${crypto.randomUUID().slice(0, 8)}`,
    email: `rem-${i}-${crypto.randomUUID().slice(0, 8)}@example.com`,
    zone: options.zones[i % options.zones.length] as string,
    email_: options.email(i),
    followUpMinutes: options.followUpMinutes(i),
    followUps: options.followUps?.(i) ?? 1,
    subscription: options.subscription(),
  }));
  for (let start = 0; start < seeded.length; start += 1000) {
    const chunk = seeded.slice(start, start + 1000);
    await db
      .insert(users)
      .values(
        chunk.map((u) => ({ id: u.id, email: u.email, emailVerified: true, name: "Reminded", timeZone: u.zone })),
      );
    const made = await db
      .insert(supplements)
      .values(
        chunk.flatMap((u) => [
          {
            userId: u.id,
            name: "Vitamin D3",
            quantityType: "Soft Gel",
            frequency: "daily",
            doseAmount: 1,
            sortOrder: 0,
            schedule: { times: ["morning" as const], days: DAILY },
          },
          {
            userId: u.id,
            name: "Magnesium",
            quantityType: "Capsule(s)",
            frequency: "daily",
            doseAmount: 2,
            sortOrder: 1,
            schedule: { times: ["evening" as const], days: DAILY },
          },
        ]),
      )
      .returning({
        id: supplements.id,
        userId: supplements.userId,
        name: supplements.name,
        quantityType: supplements.quantityType,
        doseAmount: supplements.doseAmount,
        schedule: supplements.schedule,
      });
    await db.insert(scheduleVersions).values(
      made.map((s) => ({
        userId: s.userId,
        supplementId: s.id,
        validFrom: options.validFrom,
        name: s.name,
        quantityType: s.quantityType,
        doseAmount: s.doseAmount,
        schedule: s.schedule,
      })),
    );
    await db.insert(reminderSettings).values(
      chunk.map((u) => ({
        userId: u.id,
        push: true,
        email: u.email_,
        followUpMinutes: u.followUpMinutes,
        followUps: u.followUps,
        changedAt: options.since,
      })),
    );
    await db.insert(pushSubscriptions).values(
      chunk.map((u) => ({
        id: crypto.randomUUID(),
        userId: u.id,
        endpoint: u.subscription.endpoint,
        p256dh: u.subscription.keys.p256dh,
        auth: u.subscription.keys.auth,
        label: "Chrome on Linux",
      })),
    );
  }
  await db.execute(sql`analyze`);
  return seeded;
}
