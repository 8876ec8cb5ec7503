/**
 * Reminders (issue 39), the signed-in user's own:
 *   GET  /api/reminders        settings and devices
 *   PUT  /api/reminders        any subset of times, email, push, followUpMinutes, followUps, refillLeadDays
 *   POST /api/reminders/test   a push and/or an e-mail now (5 an hour)
 *   GET  /api/reminders/confirm?token=   the link that confirms the address (issue 45, confirm.ts)
 * and, without sign-in, the e-mail's one-click unsubscribe (RFC 8058):
 *   GET  /api/reminders/unsubscribe?u=&t=   a confirmation page with a button
 *   POST /api/reminders/unsubscribe?u=&t=   e-mail reminders off
 */
import { Hono } from "hono";
import { dateIn } from "../../src/lib/dates";
import { EMAIL_CONFIRM_MESSAGES } from "../../src/lib/email-confirm-messages";
import {
  REMINDER_MESSAGES,
  REMINDER_SLOTS,
  type ReminderPayload,
  type ReminderSlot,
  reminderSettingsSchema,
} from "../../src/lib/reminders";
import { now } from "../lib/clock";
import { type AppEnv, requireUser } from "../lib/env";
import { badRequest, readJson } from "../lib/http";
import { refusing } from "../lib/mail";
import { limitRoute } from "../lib/rate-limit";
import { askForConfirmation, confirmAddress } from "./confirm";
import { dueInstant } from "./due";
import { reminderMail, reminderPayload, TODAY_URL } from "./message";
import { openDoses } from "./outbox";
import { deliverNow } from "./sender";
import { readReminderSettings, turnEmailOff, updateReminderSettings } from "./settings";
import { checkUnsubscribeToken } from "./unsubscribe";
import { senderDeps } from "./worker";

/** The slot whose time has come last today in the user's zone (Morning before the first). */
function currentSlot(
  times: Record<ReminderSlot, string>,
  zone: string,
  at: Date,
): { slot: ReminderSlot; date: string } {
  const date = dateIn(zone, at);
  let slot: ReminderSlot = "morning";
  let latest = -Infinity;
  for (const s of REMINDER_SLOTS) {
    const due = dueInstant(date, times[s], zone).getTime();
    if (due <= at.getTime() && due > latest) {
      latest = due;
      slot = s;
    }
  }
  return { slot, date };
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

const escapeAttr = (value: string) =>
  value.replace(/[&"<>]/g, (ch) => ({ "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" })[ch] as string);

export const reminderRoutes = new Hono<AppEnv>()
  .get("/reminders", async (c) => {
    const user = await requireUser(c);
    return c.json(await readReminderSettings(c.get("ctx").database.db, user.id));
  })
  .put("/reminders", async (c) => {
    const user = await requireUser(c);
    const input = await readJson(c, reminderSettingsSchema);
    const ctx = c.get("ctx");
    const db = ctx.database.db;
    // E-mail on for an unconfirmed address: the link goes first (a 429 or 503 then saves nothing).
    if (input.email === true) await askForConfirmation(senderDeps(ctx), user.id);
    await updateReminderSettings(db, user.id, input);
    return c.json(await readReminderSettings(db, user.id));
  })
  .post("/reminders/test", async (c) => {
    const user = await requireUser(c);
    const ctx = c.get("ctx");
    const db = ctx.database.db;
    const settings = await readReminderSettings(db, user.id);
    if (!settings.push && !settings.email) throw badRequest(REMINDER_MESSAGES.testNoChannel);
    // Issue 45: e-mail only to a confirmed address.
    if (!settings.push && !settings.emailConfirmed) throw badRequest(REMINDER_MESSAGES.testUnconfirmed);
    const email = settings.email && settings.emailConfirmed;
    if (settings.push && !settings.email && settings.devices.length === 0) {
      throw badRequest(REMINDER_MESSAGES.testNoDevice);
    }
    await limitRoute(ctx, "POST /api/reminders/test", { account: user.id });
    const at = now();
    const { slot, date } = currentSlot(settings.times, user.timeZone ?? "UTC", at);
    const doses = (await openDoses(db, [{ userId: user.id, localDate: date, slot }])).values().next().value ?? [];
    const payload: ReminderPayload =
      doses.length > 0
        ? reminderPayload(slot, date, doses)
        : { ...reminderPayload(slot, date, []), title: "Test reminder", body: "Reminders reach you here." };
    const deps = senderDeps(ctx);
    const sent = await deliverNow({ ...deps, mailer: refusing(deps.mailer) }, user.id, {
      push: settings.push ? payload : null,
      email: email ? reminderMail(ctx.config, user.email, user.id, payload) : null,
    });
    return c.json(sent);
  })
  .get("/reminders/confirm", async (c) => {
    const result = await confirmAddress(c.get("ctx").database.db, c.req.query("token"));
    c.header("Referrer-Policy", "no-referrer");
    c.header("Cache-Control", "no-store");
    if (result === "confirmed") return c.redirect("/settings?reminders=confirmed", 302);
    return c.html(
      page(
        EMAIL_CONFIRM_MESSAGES.invalidTitle,
        `<p>${EMAIL_CONFIRM_MESSAGES.invalid}</p><p><a href="/settings#reminders">Reminder settings</a></p>`,
      ),
      400,
    );
  })
  .get("/reminders/unsubscribe", (c) => {
    const userId = c.req.query("u") ?? "";
    const token = c.req.query("t") ?? "";
    if (!checkUnsubscribeToken(c.get("ctx").config, userId, token)) {
      return c.html(page("This link is not valid", `<p><a href="/settings">Reminder settings</a></p>`), 400);
    }
    const action = `?u=${encodeURIComponent(userId)}&t=${encodeURIComponent(token)}`;
    return c.html(
      page(
        "Stop e-mail reminders?",
        `<p>StackTrack will stop sending you reminder e-mails. Push notifications are not affected.</p><form method="post" action="${escapeAttr(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Turn off e-mail reminders</button></form><p><a href="${TODAY_URL}">Back to StackTrack</a></p>`,
      ),
    );
  })
  .post("/reminders/unsubscribe", async (c) => {
    const ctx = c.get("ctx");
    const userId = c.req.query("u") ?? "";
    const token = c.req.query("t") ?? "";
    if (!checkUnsubscribeToken(ctx.config, userId, token)) {
      return c.html(page("This link is not valid", `<p><a href="/settings">Reminder settings</a></p>`), 400);
    }
    await turnEmailOff(ctx.database.db, userId);
    return c.html(
      page(
        "E-mail reminders are off",
        `<p>You will get no more reminder e-mails. You can turn them on again in <a href="/settings">Settings</a>.</p>`,
      ),
    );
  });
