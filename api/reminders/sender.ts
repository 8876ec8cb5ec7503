/**
 * The sender: claims due rows (api/reminders/outbox.ts), looks up what is still open and
 * where to deliver in a few set-based reads, delivers (Web Push to each of the user's
 * devices; e-mail with one-click unsubscribe), and marks each row sent, skipped (nothing
 * open, no device), dropped (late) or retried with back-off; each row on its own (issue 45).
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { sql } from "drizzle-orm";
import pLimit from "p-limit";
import type { Db } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { pushEndpointAllowed } from "../../src/lib/push-hosts";
import { LATE_LIMIT_MINUTES, type ReminderPayload, type ReminderSlot } from "../../src/lib/reminders";
import type { Config } from "../lib/config";
import { log } from "../lib/log";
import type { Mail, MailBudget, Mailer } from "../lib/mail";
import { withDeadline } from "../lib/outbound";
import { behindLaterSlot, laterSlotReminders } from "./follow-ups";
import { reasonOf } from "./isolate";
import { reminderMail, reminderPayload } from "./message";
import {
  afterFailure,
  type ClaimedRow,
  claimReminders,
  doseKey,
  isLate,
  isSlot,
  logDropped,
  markReminders,
  type Outcome,
  openDoses,
  released,
  SEND_BUDGET_MS,
} from "./outbox";
import { type PushTarget, recordPushOutcomes, sendPush, type Vapid } from "./push";
import { REFILL_MAIL_ACTION, refillMessages, refillSupplementId } from "./refills";

export interface SenderDeps {
  db: Db;
  config: Config;
  mailer: Mailer;
  vapid: () => Promise<Vapid>;
  /** The time now (api/lib/clock.ts's now, passed so the sender stays a function of its inputs). */
  now: () => Date;
  /** Waits for the instance's next start (`pacer()`: SEND_RATE a second). */
  pace: () => Promise<void>;
}

const TTL_SECONDS = LATE_LIMIT_MINUTES * 60;
/**
 * Messages in flight per instance. Each costs ~0.2 ms of encryption on the event loop that also
 * answers page requests; a whole claimed batch encrypted at once held them for ~100 ms. So a
 * few at a time, each after a turn of the event loop (docs/reminders.md has the figures).
 */
export const SEND_CONCURRENCY = 16;

/**
 * Messages started per second per instance: a burst (10,000 due at 08:00) is spread over
 * ~25 s of its 30-minute lateness budget instead of taking the cores for 5 s, so pages keep
 * their rate meanwhile (docs/reminders.md).
 */
export const SEND_RATE = 400;

/** How much longer than OUTBOUND_TIMEOUT_MS a reminder e-mail may take before it counts as failed. */
const MAIL_BACKSTOP_MS = 5000;

/** A wait for the next start under `perSecond` (at least a turn of the event loop); one per instance. */
export function pacer(perSecond = SEND_RATE): () => Promise<void> {
  let nextStart = 0;
  return async () => {
    const now = performance.now();
    const at = Math.max(now, nextStart);
    nextStart = at + 1000 / perSecond;
    if (at > now) await Bun.sleep(at - now);
    else await nextTurn();
  };
}

/** A slot's reminder and follow-up spend the reminder budget; a refill, the shared one. */
const mailBudgetOf = (row: ClaimedRow): MailBudget => (row.kind === "refill" ? "other" : "reminder");

/**
 * Where each user's reminders go: their address and their push devices (only those at a
 * PUSH_HOSTS host: a row stored before the list, or under a wider one, is never sent to).
 */
async function destinations(db: Db, userIds: string[], pushHosts: readonly string[]) {
  const json = JSON.stringify(userIds);
  const [emails, subs] = await Promise.all([
    // Issue 45: only a confirmed address gets reminders; without one the row is skipped.
    db.execute(sql`select id, email from users
      where id in (select jsonb_array_elements_text(${json}::jsonb)) and email_verified`),
    db.execute(sql`select id, user_id, endpoint, p256dh, auth from push_subscriptions
      where user_id in (select jsonb_array_elements_text(${json}::jsonb))`),
  ]);
  const email = new Map(rowsOf<{ id: string; email: string }>(emails).map((r) => [r.id, r.email]));
  const devices = new Map<string, PushTarget[]>();
  for (const r of rowsOf<PushTarget & { user_id: string }>(subs)) {
    if (!pushEndpointAllowed(r.endpoint, pushHosts)) continue;
    const list = devices.get(r.user_id) ?? [];
    list.push({ id: r.id, endpoint: r.endpoint, p256dh: r.p256dh, auth: r.auth });
    devices.set(r.user_id, list);
  }
  return { email, devices };
}

/**
 * One claimed batch, delivered and marked; returns how many rows it claimed. Each row is on
 * its own (issue 45): a delivery ends within OUTBOUND_TIMEOUT_MS, a row that throws becomes a
 * retry, rows not started within SEND_BUDGET_MS are released, and should the batch's own
 * look-ups fail, every row is put back for a retry: the lease is never held by a stuck row.
 */
export async function sendBatch(deps: SenderDeps, limit?: number): Promise<number> {
  const { db } = deps;
  const { rows, lease } = await claimReminders(db, deps.now(), limit);
  if (rows.length === 0) return 0;
  const claimedAt = performance.now();
  const outcomes: Outcome[] = [];
  const live: ClaimedRow[] = [];
  for (const row of rows) {
    if (isLate(row, deps.now())) {
      logDropped(row);
      outcomes.push({ id: row.id, status: "dropped" });
    } else live.push(row);
  }
  const used: string[] = [];
  const gone: string[] = [];
  try {
    const deliver = await deliverer(deps, live, used, gone);
    const delivered = await pLimit(SEND_CONCURRENCY).map(live, async (row) => {
      await deps.pace();
      if (performance.now() - claimedAt > SEND_BUDGET_MS) return released(row, deps.now());
      try {
        return await deliver(row);
      } catch (error) {
        log.warn("reminder delivery failed", { id: row.id, userId: row.userId, ...reasonOf(error) });
        return afterFailure(row, deps.now());
      }
    });
    outcomes.push(...delivered);
  } catch (error) {
    log.warn("reminder batch failed: its rows are retried", reasonOf(error));
    outcomes.push(...live.map((row) => afterFailure(row, deps.now())));
  }
  for (const o of outcomes) {
    if (o.status === "failed") log.warn("reminder failed: given up", { id: o.id });
  }
  const [held] = await Promise.all([
    markReminders(db, outcomes, lease, deps.now()),
    recordPushOutcomes(db, used, gone),
  ]);
  if (held < outcomes.length) log.warn("reminder lease ran out before marking", { lost: outcomes.length - held });
  return rows.length;
}

/**
 * What the batch's rows need, read in a few set-based statements, and the delivery of one row:
 * its payload (null: nothing to say, skipped), then e-mail or a push to each device. A push
 * reached at least one device: sent (a device that failed is not worth a second copy on the
 * others); none reached and one failed: retried.
 */
async function deliverer(deps: SenderDeps, live: ClaimedRow[], used: string[], gone: string[]) {
  const { db } = deps;
  const refillRows = live.filter((r) => r.kind === "refill");
  const [open, where, refills, later] = await Promise.all([
    openDoses(
      db,
      live.flatMap((r) => (isSlot(r.slot) ? [{ ...r, slot: r.slot }] : [])),
    ),
    destinations(db, [...new Set(live.map((r) => r.userId))], deps.config.PUSH_HOSTS),
    refillMessages(db, refillRows, deps.now()),
    laterSlotReminders(db, live, deps.now()),
  ]);
  const deadlineMs = deps.config.OUTBOUND_TIMEOUT_MS;
  /** A slot's open doses, or (issue 40) a refill's words; null when there is nothing to say. */
  const payloadOf = (row: ClaimedRow): ReminderPayload | null => {
    if (row.kind === "refill") return refills.get(`${row.userId}/${refillSupplementId(row.slot)}`) ?? null;
    const doses = open.get(doseKey(row.userId, row.localDate, row.slot as ReminderSlot)) ?? [];
    return doses.length === 0 ? null : reminderPayload(row.slot as ReminderSlot, row.localDate, doses);
  };
  return async (row: ClaimedRow): Promise<Outcome> => {
    // Issue 48: a follow-up never after a later slot's reminder of the same day.
    const laterSlot = later.get(row.id);
    if (laterSlot) return behindLaterSlot(row, laterSlot, deps.now());
    const payload = payloadOf(row);
    if (!payload) return { id: row.id, status: "skipped" };
    if (row.channel === "email") {
      const to = where.email.get(row.userId);
      if (!to) return { id: row.id, status: "skipped" };
      try {
        const action = row.kind === "refill" ? REFILL_MAIL_ACTION : undefined;
        const mail = { ...reminderMail(deps.config, to, row.userId, payload, action), budget: mailBudgetOf(row) };
        // A backstop behind the mailer's own deadline (api/lib/mail.ts): a stuck mail never holds the batch.
        const outcome = await withDeadline(deadlineMs + MAIL_BACKSTOP_MS, () => deps.mailer(mail));
        // Over the recipient's daily budget: not sent, and not retried.
        return { id: row.id, status: outcome === "refused" ? "skipped" : "sent" };
      } catch (error) {
        log.warn("reminder e-mail failed", { userId: row.userId, error: (error as Error).name });
        return afterFailure(row, deps.now());
      }
    }
    const targets = where.devices.get(row.userId) ?? [];
    if (targets.length === 0) return { id: row.id, status: "skipped" };
    const vapid = await deps.vapid();
    const results = await Promise.all(
      targets.map((t) => sendPush(vapid, t, payload, { ttl: TTL_SECONDS, topic: payload.tag, deadlineMs })),
    );
    for (const [i, t] of targets.entries()) {
      if (results[i] === "sent") used.push(t.id);
      else if (results[i] === "gone") gone.push(t.id);
    }
    if (results.includes("sent")) return { id: row.id, status: "sent" };
    return results.includes("failed") ? afterFailure(row, deps.now()) : { id: row.id, status: "skipped" };
  };
}

/** Sends every due row, batch after batch. */
export async function sendDue(deps: SenderDeps, limit?: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await sendBatch(deps, limit);
    total += n;
    if (n === 0) return total;
  }
}

/**
 * A test reminder, now and not through the outbox: to every device and/or the address. `push`
 * is the number of devices it went to, not how many push services accepted it: the answer
 * must not tell the caller how each endpoint answered (issue 45).
 */
export async function deliverNow(
  deps: SenderDeps,
  userId: string,
  message: { push: ReminderPayload | null; email: Mail | null },
): Promise<{ push: number; email: boolean }> {
  let reached = 0;
  if (message.push) {
    const payload = message.push;
    const targets = (await destinations(deps.db, [userId], deps.config.PUSH_HOSTS)).devices.get(userId) ?? [];
    const vapid = await deps.vapid();
    const deadlineMs = deps.config.OUTBOUND_TIMEOUT_MS;
    const results = await Promise.all(
      targets.map((t) => sendPush(vapid, t, payload, { ttl: TTL_SECONDS, topic: payload.tag, deadlineMs })),
    );
    const used = targets.filter((_, i) => results[i] === "sent").map((t) => t.id);
    const gone = targets.filter((_, i) => results[i] === "gone").map((t) => t.id);
    await recordPushOutcomes(deps.db, used, gone);
    reached = targets.length;
  }
  if (message.email) await deps.mailer(message.email);
  return { push: reached, email: Boolean(message.email) };
}
