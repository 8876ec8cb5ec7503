/**
 * Each instance's reminder round, every REMINDER_TICK_MS: plan (one statement), then send
 * what is due. Any number of instances run it on one database; the outbox makes each
 * reminder go once. No timer per user: one loop per instance.
 */
import { now } from "../clock";
import { errorFields, log } from "../log";
import { createMailer } from "../mail";
import { vapidOf } from "../push";
import type { AppContext } from "../types";
import { logDropped, planReminders } from "./outbox";
import { planRefillReminders } from "./refills";
import { pacer, type SenderDeps, sendDue } from "./sender";

/** Plans at `now()` and sends everything due; returns what it planned and sent. */
export async function reminderRound(deps: SenderDeps): Promise<{ planned: number; sent: number }> {
  const planned = await planReminders(deps.db, deps.now());
  for (const row of planned.filter((r) => r.status === "dropped")) logDropped(row);
  const refills = await planRefillReminders(deps.db, deps.now());
  const sent = await sendDue(deps);
  return { planned: planned.length + refills, sent };
}

export function senderDeps(ctx: Pick<AppContext, "config" | "database">): SenderDeps {
  return {
    db: ctx.database.db,
    config: ctx.config,
    mailer: createMailer(ctx.config, ctx.database),
    vapid: () => vapidOf(ctx),
    now,
    pace: pacer(),
  };
}

const KEY = Symbol.for("stacktrack.reminders.worker");
type Holder = { [KEY]?: { stop(): void } };

/** Starts the instance's loop once per context (REMINDER_TICK_MS > 0). */
export function startReminderWorker(ctx: Pick<AppContext, "config" | "database">): void {
  const holder = ctx as Holder;
  const tickMs = ctx.config.REMINDER_TICK_MS;
  if (holder[KEY] || tickMs <= 0) return;
  const deps = senderDeps(ctx);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const run = async () => {
    try {
      await reminderRound(deps);
    } catch (error) {
      if (!stopped) log.warn("reminder round failed", errorFields(error));
    }
    if (!stopped) {
      timer = setTimeout(run, tickMs);
      timer.unref?.();
    }
  };
  timer = setTimeout(run, tickMs);
  timer.unref?.();
  holder[KEY] = {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
