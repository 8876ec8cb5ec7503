/**
 * Reminders (issue 39), shared by the settings island and the API: the slots, their default
 * times, the follow-up choices, the settings' JSON shape and the zod schema of a change.
 */
import { z } from "zod";
import { PUSH_HOST_MESSAGE, pushEndpointAllowed } from "./push-hosts";
import { TIME_LABELS, TIMED_DOSE_TIMES } from "./schedule";
import { REFILL_LEAD_CHOICES, type RefillLeadDays, STOCK_MESSAGES } from "./stock";

/** The reminded slots; `anytime` doses come with the Morning reminder, `as-needed` never. */
export const REMINDER_SLOTS = TIMED_DOSE_TIMES;
export type ReminderSlot = (typeof REMINDER_SLOTS)[number];

export const DEFAULT_REMINDER_TIMES: Record<ReminderSlot, string> = {
  morning: "08:00",
  afternoon: "13:00",
  evening: "18:00",
  bedtime: "22:00",
};

export const FOLLOW_UP_CHOICES = [0, 30, 60, 120] as const;
export type FollowUpMinutes = (typeof FOLLOW_UP_CHOICES)[number];
export const DEFAULT_FOLLOW_UP: FollowUpMinutes = 60;
/** Issue 48: how many follow-ups after a slot's reminder, each `followUpMinutes` after the one before. */
export const FOLLOW_UP_COUNTS = [0, 1, 2, 3] as const;
export type FollowUps = (typeof FOLLOW_UP_COUNTS)[number];
export const DEFAULT_FOLLOW_UPS: FollowUps = 1;
export const MAX_FOLLOW_UPS = 3;

/** A reminder later than this (all instances were down) is dropped, never sent late. */
export const LATE_LIMIT_MINUTES = 30;
/** Failed deliveries are retried with back-off until this long after the due time. */
export const RETRY_WINDOW_MINUTES = 20;
/** Devices that receive a user's pushes; a newer one replaces the oldest beyond it. */
export const MAX_PUSH_DEVICES = 20;
/** Test reminders allowed per user and hour. */
export const TEST_REMINDERS_PER_HOUR = 5;

export const REMINDER_KINDS = ["reminder", "follow-up", "refill"] as const;
export type ReminderKind = (typeof REMINDER_KINDS)[number];
export const REMINDER_CHANNELS = ["push", "email"] as const;
export type ReminderChannel = (typeof REMINDER_CHANNELS)[number];

export interface ReminderDevice {
  id: string;
  label: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface ReminderSettingsJson {
  times: Record<ReminderSlot, string>;
  email: boolean;
  push: boolean;
  followUpMinutes: FollowUpMinutes;
  /** Issue 48: follow-ups after the reminder (0: none); none at all when followUpMinutes is 0. */
  followUps: FollowUps;
  /** Issue 40: days before a supplement runs out to remind of a refill (0: off). */
  refillLeadDays: RefillLeadDays;
  devices: ReminderDevice[];
  /** Issue 45: whether reminder e-mails may go to the account's address (it was confirmed). */
  emailConfirmed: boolean;
  /** The address a confirmation link that still works went to; null when none does. */
  confirmationSentTo: string | null;
}

export const REMINDER_MESSAGES = {
  time: "Times must be HH:MM (00:00 to 23:59)",
  followUp: "Follow-up must be 0, 30, 60 or 120 minutes",
  followUps: "Follow-ups must be 0, 1, 2 or 3",
  email: "E-mail must be true or false",
  push: "Push must be true or false",
  unknown: "Unknown setting",
  unknownSlot: "Times are morning, afternoon, evening and bedtime",
  subscription: "A push subscription needs an https endpoint and its p256dh and auth keys",
  testNoChannel: "Turn on push notifications or e-mail first",
  testNoDevice: "No device receives push yet",
  /** Issue 45: e-mail is on, push is off, and the address is not confirmed yet. */
  testUnconfirmed: "Confirm your address first: open the link we sent you",
} as const;

export const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

const time = z.string({ message: REMINDER_MESSAGES.time }).regex(HH_MM, REMINDER_MESSAGES.time);

/** PUT /api/reminders: any subset of the settings; an unknown key is an error, not ignored. */
export const reminderSettingsSchema = z.strictObject(
  {
    times: z
      .strictObject(
        {
          morning: time.optional(),
          afternoon: time.optional(),
          evening: time.optional(),
          bedtime: time.optional(),
        },
        {
          error: (issue) =>
            issue.code === "unrecognized_keys" ? REMINDER_MESSAGES.unknownSlot : REMINDER_MESSAGES.time,
        },
      )
      .optional(),
    email: z.boolean({ message: REMINDER_MESSAGES.email }).optional(),
    push: z.boolean({ message: REMINDER_MESSAGES.push }).optional(),
    followUpMinutes: z
      .number({ message: REMINDER_MESSAGES.followUp })
      .refine((n): n is FollowUpMinutes => (FOLLOW_UP_CHOICES as readonly number[]).includes(n), {
        message: REMINDER_MESSAGES.followUp,
      })
      .optional(),
    followUps: z
      .number({ message: REMINDER_MESSAGES.followUps })
      .refine((n): n is FollowUps => (FOLLOW_UP_COUNTS as readonly number[]).includes(n), {
        message: REMINDER_MESSAGES.followUps,
      })
      .optional(),
    refillLeadDays: z
      .number({ message: STOCK_MESSAGES.refillLead })
      .refine((n): n is RefillLeadDays => (REFILL_LEAD_CHOICES as readonly number[]).includes(n), {
        message: STOCK_MESSAGES.refillLead,
      })
      .optional(),
  },
  { message: REMINDER_MESSAGES.unknown },
);
export type ReminderSettingsInput = z.infer<typeof reminderSettingsSchema>;

/** POST /api/push/subscriptions: the browser's PushSubscription.toJSON(). */
export const pushSubscriptionSchema = z.object(
  {
    endpoint: z
      .string({ message: REMINDER_MESSAGES.subscription })
      .max(2000, REMINDER_MESSAGES.subscription)
      .refine((v) => URL.canParse(v) && new URL(v).protocol === "https:", REMINDER_MESSAGES.subscription),
    expirationTime: z.number().nullable().optional(),
    keys: z.object(
      {
        p256dh: z
          .string({ message: REMINDER_MESSAGES.subscription })
          .regex(/^[A-Za-z0-9_-]{80,100}={0,2}$/, REMINDER_MESSAGES.subscription),
        auth: z
          .string({ message: REMINDER_MESSAGES.subscription })
          .regex(/^[A-Za-z0-9_-]{16,30}={0,2}$/, REMINDER_MESSAGES.subscription),
      },
      { message: REMINDER_MESSAGES.subscription },
    ),
  },
  { message: REMINDER_MESSAGES.subscription },
);
export type PushSubscriptionInput = z.infer<typeof pushSubscriptionSchema>;

const forHosts = new WeakMap<readonly string[], z.ZodType<PushSubscriptionInput>>();
/**
 * POST /api/push/subscriptions on this server: the schema above, and the endpoint on one of
 * `hosts` (PUSH_HOSTS, ./push-hosts.ts), else a 400 naming `endpoint`.
 */
export function pushSubscriptionSchemaFor(hosts: readonly string[]): z.ZodType<PushSubscriptionInput> {
  let schema = forHosts.get(hosts);
  if (!schema) {
    schema = pushSubscriptionSchema.superRefine((input, ctx) => {
      if (!pushEndpointAllowed(input.endpoint, hosts)) {
        ctx.addIssue({ code: "custom", path: ["endpoint"], message: PUSH_HOST_MESSAGE });
      }
    });
    forHosts.set(hosts, schema);
  }
  return schema;
}

/** The title of a reminder: 'Morning: 2 supplements'. */
export function reminderTitle(slot: ReminderSlot, count: number): string {
  return `${TIME_LABELS[slot]}: ${count} ${count === 1 ? "supplement" : "supplements"}`;
}

/** What the service worker gets in a push: the notification and the doses 'Mark all taken' ticks. */
export interface ReminderPayload {
  title: string;
  body: string;
  /** The dashboard, scrolled to Today. */
  url: string;
  tag: string;
  date: string;
  doses: { supplementId: number; time: string }[];
}
