/**
 * Issue 48, the follow-ups' rule at sending time: a follow-up never comes after the reminder
 * of a later slot of the same local date. For each claimed follow-up, one statement finds the
 * reminders of the same user and date due after its own slot's reminder: one `sent` (on any
 * channel) makes the follow-up `skipped`; one due and still `pending` (about to go, or being
 * retried) puts it off until that one is decided (at most until it is 30 minutes late).
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rowsOf } from "../../db/rows";
import type { ClaimedRow, Outcome } from "./outbox";

/** How long a follow-up waits for a later slot's reminder that is due but not yet decided. */
export const FOLLOW_UP_WAIT_MS = 30_000;

export type LaterSlot = "sent" | "due";

/** Each follow-up of `rows` whose later slot's reminder was sent, or is due and pending, at `at`. */
export async function laterSlotReminders(db: Db, rows: ClaimedRow[], at: Date): Promise<Map<number, LaterSlot>> {
  const followUps = rows.filter((r) => r.kind === "follow-up");
  const out = new Map<number, LaterSlot>();
  if (followUps.length === 0) return out;
  const json = JSON.stringify(
    followUps.map((r) => ({ id: r.id, user_id: r.userId, local_date: r.localDate, slot: r.slot, channel: r.channel })),
  );
  const result = await db.execute(sql`
    select f.id::int as id, bool_or(r.status = 'sent') as sent
    from jsonb_to_recordset(${json}::jsonb) as f(id bigint, user_id text, local_date date, slot text, channel text)
    join reminder_outbox own on own.user_id = f.user_id and own.local_date = f.local_date and own.slot = f.slot
      and own.kind = 'reminder' and own.channel = f.channel
    join reminder_outbox r on r.user_id = f.user_id and r.local_date = f.local_date and r.kind = 'reminder'
      and r.slot <> f.slot and r.due_at > own.due_at
    where r.status = 'sent' or (r.status = 'pending' and r.due_at <= ${at.toISOString()}::timestamptz)
    group by f.id`);
  for (const row of rowsOf<{ id: number; sent: boolean }>(result)) out.set(Number(row.id), row.sent ? "sent" : "due");
  return out;
}

/** A follow-up behind a later slot's reminder: skipped once that was sent, else tried again shortly (not an attempt). */
export function behindLaterSlot(row: Pick<ClaimedRow, "id">, later: LaterSlot, at: Date): Outcome {
  if (later === "sent") return { id: row.id, status: "skipped" };
  return {
    id: row.id,
    status: "pending",
    nextAt: new Date(at.getTime() + FOLLOW_UP_WAIT_MS).toISOString(),
    released: true,
  };
}
