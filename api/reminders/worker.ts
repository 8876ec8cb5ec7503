/**
 * Each instance's reminder round, every REMINDER_TICK_MS: plan (one statement), then send
 * what is due. Any number of instances run it on one database; the outbox makes each
 * reminder go once. No timer per user: one loop per instance.
 */
import { now, nowMs } from "../lib/clock";
import { errorFields, log } from "../lib/log";
import { createMailer } from "../lib/mail";
import type { AppContext } from "../lib/types";
import { reasonOf } from "./isolate";
import { logDropped, planReminders } from "./outbox";
import { vapidOf } from "./push";
import { planRefillReminders } from "./refills";
import { pacer, type SenderDeps, sendDue } from "./sender";

/**
 * Plans at `now()` and sends everything due; returns what it planned and sent, and which of
 * its three steps failed. Each step runs whatever became of the one before (a planner that
 * fails never keeps what is already due from going); a failed step is logged.
 */
export async function reminderRound(deps: SenderDeps): Promise<{ planned: number; sent: number; failed: string[] }> {
  const failed: string[] = [];
  const step = async <T>(name: string, run: () => Promise<T>, none: T): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      failed.push(name);
      log.warn(`reminder round: ${name} failed`, reasonOf(error));
      return none;
    }
  };
  const planned = await step("planning", () => planReminders(deps.db, deps.now()), []);
  for (const row of planned.filter((r) => r.status === "dropped")) logDropped(row);
  const refills = await step("refill planning", () => planRefillReminders(deps.db, deps.now()), 0);
  const sent = await step("sending", () => sendDue(deps), 0);
  return { planned: planned.length + refills, sent, failed };
}

/** A round not finished for this long makes /api/health say `degraded`. */
export const STALE_LOOP_MS = 5 * 60_000;

/** This instance's loop: on or off, and when (api/lib/clock.ts) it started and last finished a whole round. */
export interface LoopState {
  startedAt: number;
  finishedAt: number | null;
}

const STATE = Symbol.for("stacktrack.reminders.loop");
type StateHolder = { [STATE]?: LoopState };

/**
 * Why this instance's reminders are stuck, or null: its loop is on and has not finished a
 * round without a failed step for STALE_LOOP_MS (since it started, before its first).
 */
export function reminderLoopProblem(ctx: object): string | null {
  const state = (ctx as StateHolder)[STATE];
  if (!state) return null;
  const since = state.finishedAt ?? state.startedAt;
  const minutes = Math.floor((nowMs() - since) / 60_000);
  if (nowMs() - since < STALE_LOOP_MS) return null;
  return state.finishedAt === null
    ? `The reminder loop has not finished a round since it started ${minutes} minutes ago`
    : `The reminder loop has not finished a round for ${minutes} minutes`;
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

/** Stops the context's loop (before its database closes: tests' close()). */
export function stopReminderWorker(ctx: object): void {
  (ctx as Holder)[KEY]?.stop();
  delete (ctx as Holder)[KEY];
}

/** Starts the instance's loop once per context (REMINDER_TICK_MS > 0). */
export function startReminderWorker(ctx: Pick<AppContext, "config" | "database">): void {
  const holder = ctx as Holder;
  const tickMs = ctx.config.REMINDER_TICK_MS;
  if (holder[KEY] || tickMs <= 0) return;
  const deps = senderDeps(ctx);
  const state: LoopState = { startedAt: nowMs(), finishedAt: null };
  (ctx as StateHolder)[STATE] = state;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const run = async () => {
    try {
      const { failed } = await reminderRound(deps);
      if (failed.length === 0) state.finishedAt = nowMs();
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
      delete (ctx as StateHolder)[STATE];
    },
  };
}
