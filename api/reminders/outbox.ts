/**
 * The reminder outbox (issue 39): the planner inserts each due reminder once, whichever
 * instance gets there first; senders claim rows with SKIP LOCKED and a lease, deliver, and
 * mark them. Every statement is set-based: a tick is a handful of statements whatever the
 * number of users. Why an outbox table and not a job queue: docs/reminders.md.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { ingredientJson, type StoredIngredient } from "../../src/lib/ingredients";
import {
  FOLLOW_UP_CHOICES,
  LATE_LIMIT_MINUTES,
  MAX_FOLLOW_UPS,
  REMINDER_SLOTS,
  RETRY_WINDOW_MINUTES,
  type ReminderChannel,
  type ReminderKind,
  type ReminderSlot,
} from "../../src/lib/reminders";
import { log } from "../lib/log";
import { dueSlots } from "./due";
import { everyoneOrEach } from "./isolate";
import type { OpenDose } from "./message";

const MINUTE = 60_000;
/** How far back the planner looks: rows missed while every instance was down are inserted as dropped (and logged). */
export const PLAN_LOOKBACK_MS = 6 * 60 * MINUTE;
/**
 * How long a claim holds a row. A batch starts no delivery after SEND_BUDGET_MS (the sender
 * releases what is left), and every delivery ends within OUTBOUND_TIMEOUT_MS (at most 30 s):
 * so the batch is marked before its lease runs out and no other sender sends a row twice.
 */
export const LEASE_MS = 60_000;
export const SEND_BUDGET_MS = 25_000;
export const CLAIM_BATCH = 200;

const iso = (at: Date | number) => new Date(at).toISOString();

export interface PlannedRow {
  userId: string;
  localDate: string;
  slot: ReminderSlot;
  kind: ReminderKind;
  channel: ReminderChannel;
  /** Issue 48: which follow-up (1-3); 0 for a reminder. */
  followUp: number;
  status: "pending" | "dropped";
}

/** The (zone, time) pairs' due occurrences; a zone Intl does not know is logged with its users' ids and skipped. */
async function dueOf(db: Db, pairs: { zone: string; time: string }[], at: Date) {
  const out: ReturnType<typeof dueSlots> = [];
  const bad = new Set<string>();
  for (const pair of pairs) {
    try {
      out.push(...dueSlots([pair], at, PLAN_LOOKBACK_MS));
    } catch {
      bad.add(pair.zone);
    }
  }
  for (const zone of bad) {
    const ids = rowsOf<{ id: string }>(
      await db.execute(sql`select u.id from users u join reminder_settings s on s.user_id = u.id
        where u.time_zone = ${zone} and (s.email or s.push) order by u.id limit 20`),
    ).map((r) => r.id);
    log.warn("reminders skipped: the users' time zone is unknown", { zone: zone.slice(0, 64), userIds: ids });
  }
  return out;
}

/** How far back a sent reminder may lie for its last follow-up to be planned (issue 48: up to 3 × 2 h). */
const FOLLOW_UP_LOOKBACK_MINUTES = PLAN_LOOKBACK_MS / MINUTE + MAX_FOLLOW_UPS * Math.max(...FOLLOW_UP_CHOICES);

/**
 * One planning round at `at`: the slot times in use per zone are read (a small distinct
 * list), their due instants computed (api/reminders/due.ts), and every user's due reminders
 * and follow-ups inserted by ONE statement, ON CONFLICT DO NOTHING. Follow-up n (1 to the
 * user's `follow_ups`) of a sent reminder is due n × `follow_up_minutes` after it, none when
 * that is 0; whether anything is still open, and whether the next slot's reminder went first,
 * the sender decides when it is due (./sender.ts). Rows more than LATE_LIMIT_MINUTES late go
 * in as `dropped`: never sent, returned to be logged. Should the statement fail, it runs
 * again user by user and a failing user is logged and skipped (./isolate.ts).
 */
export async function planReminders(db: Db, at: Date): Promise<PlannedRow[]> {
  const pairs = rowsOf<{ zone: string; time: string }>(
    await db.execute(sql`
      select distinct coalesce(u.time_zone, 'UTC') as zone, t.time
      from reminder_settings s join users u on u.id = s.user_id
      cross join lateral (values (s.morning), (s.afternoon), (s.evening), (s.bedtime)) t(time)
      where s.email or s.push`),
  );
  const due = (await dueOf(db, pairs, at)).map((d) => ({
    zone: d.zone,
    time: d.time,
    local_date: d.date,
    due_at: iso(d.dueAt),
  }));
  const atIso = iso(at);
  const only = (column: SQL, ids: string[] | null) =>
    ids ? sql`and ${column} in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))` : sql``;
  const plan = async (ids: string[] | null) =>
    rowsOf<PlannedRow>(
      await db.execute(sql`
    insert into reminder_outbox (user_id, local_date, slot, kind, channel, follow_up, due_at, status, next_at)
    select p.user_id, p.local_date, p.slot, p.kind, p.channel, p.follow_up, p.due_at,
      case when ${atIso}::timestamptz - p.due_at > make_interval(mins => ${LATE_LIMIT_MINUTES}) then 'dropped' else 'pending' end,
      p.due_at
    from (
      select s.user_id, c.local_date, sl.slot, 'reminder' as kind, ch.channel, 0 as follow_up, c.due_at
      from jsonb_to_recordset(${JSON.stringify(due)}::jsonb) as c(zone text, time text, local_date date, due_at timestamptz)
      join users u on coalesce(u.time_zone, 'UTC') = c.zone
      join reminder_settings s on s.user_id = u.id
      cross join lateral (values ('morning', s.morning), ('afternoon', s.afternoon), ('evening', s.evening), ('bedtime', s.bedtime)) as sl(slot, time)
      cross join lateral (values ('push', s.push), ('email', s.email)) as ch(channel, enabled)
      where sl.time = c.time and ch.enabled and c.due_at >= s.changed_at ${only(sql`s.user_id`, ids)}
      union all
      select o.user_id, o.local_date, o.slot, 'follow-up', o.channel, n.n, o.due_at + make_interval(mins => s.follow_up_minutes * n.n)
      from reminder_outbox o join reminder_settings s on s.user_id = o.user_id
      cross join lateral generate_series(1, s.follow_ups) as n(n)
      where o.status = 'sent' and o.kind = 'reminder'
        and o.due_at > ${atIso}::timestamptz - make_interval(mins => ${FOLLOW_UP_LOOKBACK_MINUTES})
        and s.follow_up_minutes > 0
        and o.due_at + make_interval(mins => s.follow_up_minutes * n.n) <= ${atIso}::timestamptz
        and case o.channel when 'push' then s.push else s.email end ${only(sql`o.user_id`, ids)}
    ) p
    on conflict (user_id, local_date, slot, kind, channel, follow_up) do nothing
    returning user_id as "userId", local_date::text as "localDate", slot, kind, channel, follow_up as "followUp", status`),
    );
  const users = async () =>
    rowsOf<{ user_id: string }>(await db.execute(sql`select user_id from reminder_settings where email or push`)).map(
      (r) => r.user_id,
    );
  return everyoneOrEach(plan, users, "reminder planning");
}

export interface ClaimedRow {
  id: number;
  userId: string;
  localDate: string;
  /** A ReminderSlot, or `refill-{supplementId}` (issue 40, ./refills.ts). */
  slot: string;
  kind: ReminderKind;
  channel: ReminderChannel;
  /** Issue 48: which follow-up (1-3); 0 for a reminder or a refill. */
  followUp: number;
  dueAt: string;
  attempts: number;
}

/**
 * Claims up to `limit` due rows for this sender until `at` + LEASE_MS: rows another sender
 * holds (locked now, or leased) are skipped, so two senders never get the same row. A sender
 * that dies leaves its lease to run out; then another claims the row.
 */
export async function claimReminders(
  db: Db,
  at: Date,
  limit = CLAIM_BATCH,
): Promise<{ rows: ClaimedRow[]; lease: string }> {
  const lease = iso(at.getTime() + LEASE_MS);
  const atIso = iso(at);
  const result = await db.execute(sql`
    update reminder_outbox o set lease_until = ${lease}::timestamptz, attempts = o.attempts + 1
    where o.id in (
      select id from reminder_outbox
      where status = 'pending' and next_at <= ${atIso}::timestamptz
        and (lease_until is null or lease_until <= ${atIso}::timestamptz)
      order by next_at limit ${limit}
      for update skip locked)
    returning o.id::int as id, o.user_id as "userId", o.local_date::text as "localDate", o.slot, o.kind, o.channel,
      o.follow_up as "followUp", o.due_at as "dueAt", o.attempts`);
  const rows = rowsOf<Omit<ClaimedRow, "dueAt"> & { dueAt: string | Date }>(result).map((r) => ({
    ...r,
    dueAt: iso(new Date(r.dueAt)),
  }));
  return { rows, lease };
}

export type Outcome =
  | { id: number; status: "sent" | "skipped" | "dropped" | "failed" }
  | { id: number; status: "pending"; nextAt: string; released?: true };

/** Back-off after the `attempts`-th failure: 30 s, 1, 2, 4 min, then every 5 min. */
export const retryDelayMs = (attempts: number) => Math.min(30_000 * 2 ** Math.max(attempts - 1, 0), 5 * MINUTE);

/** Deliveries of one row at most: the first and MAX_ATTEMPTS - 1 retries. */
export const MAX_ATTEMPTS = 6;

/**
 * What a failed (or timed-out) delivery becomes: retried after retryDelayMs, or failed after
 * MAX_ATTEMPTS deliveries or once the retry would come past RETRY_WINDOW_MINUTES after its due time.
 */
export function afterFailure(row: Pick<ClaimedRow, "id" | "attempts" | "dueAt">, at: Date): Outcome {
  const next = at.getTime() + retryDelayMs(row.attempts);
  const tooLate = next > new Date(row.dueAt).getTime() + RETRY_WINDOW_MINUTES * MINUTE;
  if (row.attempts >= MAX_ATTEMPTS || tooLate) return { id: row.id, status: "failed" };
  return { id: row.id, status: "pending", nextAt: iso(next) };
}

/** A claimed row this sender did not get to (past SEND_BUDGET_MS): due again at once, for any sender. */
export const released = (row: Pick<ClaimedRow, "id">, at: Date): Outcome => ({
  id: row.id,
  status: "pending",
  nextAt: iso(at),
  released: true,
});

/** The log line of a reminder dropped for being late (never sent late). */
export function logDropped(
  row: Pick<PlannedRow, "userId" | "localDate" | "kind" | "channel" | "followUp"> & { slot: string },
): void {
  log.warn("reminder dropped: more than 30 minutes late", {
    userId: row.userId,
    date: row.localDate,
    slot: row.slot,
    kind: row.kind,
    ...(row.followUp > 0 ? { followUp: row.followUp } : {}),
    channel: row.channel,
  });
}

export const isLate = (row: Pick<ClaimedRow, "dueAt">, at: Date) =>
  at.getTime() - new Date(row.dueAt).getTime() > LATE_LIMIT_MINUTES * MINUTE;

/** Marks the rows this sender still holds (its lease); returns how many it held. */
export async function markReminders(db: Db, outcomes: Outcome[], lease: string, at: Date): Promise<number> {
  if (outcomes.length === 0) return 0;
  const marks = outcomes.map((o) => ({
    id: o.id,
    status: o.status,
    next_at: o.status === "pending" ? o.nextAt : null,
    // A released row was not tried: its claim does not count as an attempt.
    tried: !(o.status === "pending" && o.released),
  }));
  const result = await db.execute(sql`
    update reminder_outbox o set status = m.status, next_at = coalesce(m.next_at, o.next_at), lease_until = null,
      sent_at = case when m.status = 'sent' then ${iso(at)}::timestamptz else o.sent_at end,
      attempts = case when m.tried then o.attempts else o.attempts - 1 end
    from jsonb_to_recordset(${JSON.stringify(marks)}::jsonb) as m(id bigint, status text, next_at timestamptz, tried boolean)
    where o.id = m.id and o.lease_until = ${lease}::timestamptz
    returning o.id`);
  return rowsOf(result).length;
}

/** The open doses of each (user, local date, slot), in the user's list order: one statement. */
export async function openDoses(
  db: Db,
  wanted: { userId: string; localDate: string; slot: ReminderSlot }[],
): Promise<Map<string, OpenDose[]>> {
  const out = new Map<string, OpenDose[]>();
  if (wanted.length === 0) return out;
  const json = JSON.stringify(wanted.map((w) => ({ user_id: w.userId, local_date: w.localDate, slot: w.slot })));
  const result = await db.execute(sql`
    select distinct r.user_id, r.local_date::text as local_date, r.slot, v.supplement_id, t.time, v.name,
      v.quantity_type, coalesce((v.schedule -> 'amounts' ->> t.time)::numeric, v.dose_amount) as dose_amount, v.serving_size, v.ingredients, (t.time = 'anytime') as later, coalesce(s.sort_order, 2147483647) as sort_order
    from (select distinct * from jsonb_to_recordset(${json}::jsonb) as x(user_id text, local_date date, slot text)) r
    cross join lateral (
      select distinct on (sv.supplement_id) sv.supplement_id, sv.name, sv.quantity_type, sv.dose_amount, sv.schedule, sv.deleted,
        sv.serving_size, sv.ingredients
      from schedule_versions sv where sv.user_id = r.user_id and sv.valid_from <= r.local_date
      order by sv.supplement_id, sv.valid_from desc) v
    cross join lateral jsonb_array_elements_text(coalesce(v.schedule -> 'times', '[]'::jsonb)) as t(time)
    left join supplements s on s.id = v.supplement_id and s.user_id = r.user_id
    where not v.deleted
      and stacktrack_due_on(v.schedule, r.local_date)
      and (t.time = r.slot or (r.slot = 'morning' and t.time = 'anytime'))
      and not exists (select 1 from intakes i where i.user_id = r.user_id and i.date = r.local_date
        and i.supplement_id = v.supplement_id and i.time = t.time)
    order by r.user_id, local_date, r.slot, later, sort_order, v.supplement_id`);
  for (const row of rowsOf<Record<string, unknown>>(result)) {
    const key = doseKey(String(row.user_id), String(row.local_date), row.slot as ReminderSlot);
    const list = out.get(key) ?? [];
    list.push({
      supplementId: Number(row.supplement_id),
      time: String(row.time),
      name: String(row.name),
      quantityType: String(row.quantity_type),
      doseAmount: row.dose_amount === null ? null : Number(row.dose_amount),
      // Issue 47: the dose's strength (`1 soft gel · 50 mcg vitamin D`).
      servingSize: Number(row.serving_size ?? 1),
      ingredients: ((row.ingredients ?? []) as StoredIngredient[]).map(ingredientJson),
    });
    out.set(key, list);
  }
  return out;
}

export const doseKey = (userId: string, localDate: string, slot: ReminderSlot) => `${userId}/${localDate}/${slot}`;

export const isSlot = (value: string): value is ReminderSlot => (REMINDER_SLOTS as readonly string[]).includes(value);
