/**
 * /api/account/*: the signed-in user's own account (issue 15). Every route acts on the
 * caller's account only, answers `no-store`, and is origin-checked when it writes
 * (api/app.ts). better-auth's own endpoints do the work where they exist; these routes put
 * the app's rules, messages and answers around them.
 *
 * Routes: the account summary, export (export.ts), deletion (delete.ts), password, e-mail
 * change (email-change.ts) and sessions (sessions.ts); the full table with request bodies
 * is in docs/features.md, "Your account (issue 15)".
 */
import { APIError } from "better-auth/api";
import { eq } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { accounts, type User } from "../../db/schema";
import {
  type AccountSummary,
  changeEmailSchema,
  changePasswordSchema,
  deleteAccountSchema,
  EXPORT_FORMATS,
  type ExportFormat,
  exportFileName,
  FRESH_SIGN_IN_MINUTES,
  SETTINGS_MESSAGES,
} from "../../src/lib/account";
import { clearingCookie, sessionCookieNames } from "../auth/session-cookie";
import { now, nowMs } from "../lib/clock";
import { type AppEnv, requireUser } from "../lib/env";
import { badRequest, HttpError, readJson } from "../lib/http";
import { addressKey, type Budget, emailKey, limitRoute } from "../lib/rate-limit";
import { hasPassword } from "./credentials";
import { deleteAccount } from "./delete";
import { confirmEmailChange, endEmailChanges, requestEmailChange } from "./email-change";
import { buildExport, exportCsv, signInMethod } from "./export";
import { CLEAR_SITE_DATA } from "./session";
import { currentSession, listSessions, revokeOtherSessions, revokeSessionById } from "./sessions";

/** A better-auth refusal as the app's JSON error (never a 500). */
function authError(error: unknown): never {
  if (error instanceof APIError) {
    const status = error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) throw error;
    const body = error.body as { message?: unknown } | undefined;
    throw new HttpError(
      status as 400,
      typeof body?.message === "string" && body.message ? body.message : error.message,
    );
  }
  throw error;
}

/** Spends the route's budgets (api/lib/rate-limit.ts ROUTE_LIMITS) for the signed-in user. */
const limit = (c: Context<AppEnv>, route: string, user: User, recipient?: string, only?: readonly Budget[]) =>
  limitRoute(
    c.get("ctx"),
    route,
    {
      account: user.id,
      address: addressKey(c.get("clientAddress")),
      recipient: recipient ? emailKey(recipient) : undefined,
    },
    only,
  );

const wrongCurrentPassword = () =>
  badRequest(SETTINGS_MESSAGES.currentPasswordIncorrect, {
    currentPassword: [SETTINGS_MESSAGES.currentPasswordIncorrect],
  });

/**
 * Whoever asks for an e-mail change proves it is them: the current password, or, for an account
 * without one, a sign-in within the last FRESH_SIGN_IN_MINUTES. Throws 400/403.
 */
async function checkEmailChanger(c: Context<AppEnv>, user: User, currentPassword: string | undefined) {
  const ctx = c.get("ctx");
  const headers = c.req.raw.headers;
  if (await hasPassword(ctx.database.db, user.id)) {
    if (!currentPassword) throw wrongCurrentPassword();
    try {
      await ctx.auth.api.verifyPassword({ headers, body: { password: currentPassword } });
    } catch (error) {
      if (error instanceof APIError && error.statusCode === 400) throw wrongCurrentPassword();
      throw error;
    }
    return;
  }
  const { session } = await currentSession(ctx, headers);
  if (nowMs() - new Date(session.createdAt).getTime() > FRESH_SIGN_IN_MINUTES * 60_000) {
    throw new HttpError(403, SETTINGS_MESSAGES.signInAgainForEmail);
  }
}

const isInvalidPassword = (error: unknown) =>
  error instanceof APIError && (error.body as { code?: unknown } | undefined)?.code === "INVALID_PASSWORD";

/**
 * This browser is signed out (its account deleted, or its own session ended from the list):
 * its session cookies cleared, and Clear-Site-Data (issue 45) empties what it keeps offline
 * (the worker's caches, the waiting ticks, the worker itself), as sign-out does.
 */
function signOutBrowser(c: Context<AppEnv>) {
  for (const name of sessionCookieNames(c.req.header("cookie")))
    c.header("Set-Cookie", clearingCookie(name), { append: true });
  c.header("Clear-Site-Data", CLEAR_SITE_DATA);
}

export const accountRoutes = new Hono<AppEnv>()
  .get("/account", async (c) => {
    const user = await requireUser(c);
    const db = c.get("ctx").database.db;
    const rows = await db
      .select({ providerId: accounts.providerId })
      .from(accounts)
      .where(eq(accounts.userId, user.id));
    const summary: AccountSummary = {
      email: user.email,
      username: user.username,
      hasPassword: await hasPassword(db, user.id),
      signInMethods: [...new Set(rows.map((r) => signInMethod(r.providerId)))],
    };
    c.header("Cache-Control", "no-store");
    return c.json(summary);
  })
  .get("/account/export", async (c) => {
    const user = await requireUser(c);
    const format = (c.req.query("format") ?? "json") as ExportFormat;
    if (!EXPORT_FORMATS.includes(format)) {
      throw badRequest(SETTINGS_MESSAGES.exportFormat, { format: [SETTINGS_MESSAGES.exportFormat] });
    }
    const doc = await buildExport(c.get("ctx"), user.id);
    const headers = {
      "Content-Disposition": `attachment; filename="${exportFileName(user.username, now(), format)}"`,
      "Cache-Control": "no-store",
    };
    if (format === "csv") {
      return c.body(exportCsv(doc), 200, { ...headers, "Content-Type": "text/csv; charset=utf-8" });
    }
    return c.body(`${JSON.stringify(doc, null, 2)}\n`, 200, {
      ...headers,
      "Content-Type": "application/json; charset=utf-8",
    });
  })
  .delete("/account", async (c) => {
    const user = await requireUser(c);
    const input = await readJson(c, deleteAccountSchema);
    const ctx = c.get("ctx");
    await limit(c, "DELETE /api/account", user);
    await deleteAccount(ctx, c.req.raw.headers, user, input);
    signOutBrowser(c);
    return c.json({ message: SETTINGS_MESSAGES.accountDeleted });
  })
  .post("/account/password", async (c) => {
    const user = await requireUser(c);
    const input = await readJson(c, changePasswordSchema);
    const ctx = c.get("ctx");
    const headers = c.req.raw.headers;
    await limit(c, "POST /api/account/password", user);
    if (await hasPassword(ctx.database.db, user.id)) {
      if (!input.currentPassword) {
        throw badRequest(SETTINGS_MESSAGES.currentPasswordRequired, {
          currentPassword: [SETTINGS_MESSAGES.currentPasswordRequired],
        });
      }
      let result: { headers: Headers };
      try {
        result = await ctx.auth.api.changePassword({
          headers,
          body: {
            currentPassword: input.currentPassword,
            newPassword: input.newPassword,
            revokeOtherSessions: input.revokeOtherSessions,
          },
          returnHeaders: true,
        });
      } catch (error) {
        if (isInvalidPassword(error)) throw wrongCurrentPassword();
        authError(error);
      }
      await endEmailChanges(ctx.database.db, user.id);
      // Signing out the other devices replaces this one's session too: its new cookie.
      for (const cookie of result.headers.getSetCookie()) c.header("Set-Cookie", cookie, { append: true });
      if (input.revokeOtherSessions) ctx.caches.dropSessionsOf(user.id);
      return c.json({ message: SETTINGS_MESSAGES.passwordChanged });
    }
    try {
      await ctx.auth.api.setPassword({ headers, body: { newPassword: input.newPassword } });
      if (input.revokeOtherSessions) await revokeOtherSessions(ctx, headers);
    } catch (error) {
      authError(error);
    }
    await endEmailChanges(ctx.database.db, user.id);
    return c.json({ message: SETTINGS_MESSAGES.passwordSet });
  })
  .post("/account/email", async (c) => {
    const user = await requireUser(c);
    const { newEmail, currentPassword } = await readJson(c, changeEmailSchema);
    const route = "POST /api/account/email";
    await limit(c, route, user, undefined, ["password", "passwordFromAddress"]);
    if (newEmail.toLowerCase() === user.email.toLowerCase()) {
      throw badRequest(SETTINGS_MESSAGES.emailSame, { newEmail: [SETTINGS_MESSAGES.emailSame] });
    }
    await checkEmailChanger(c, user, currentPassword);
    // Mail budgets only once it is the account's owner asking: a copied cookie cannot spend them.
    await limit(c, route, user, newEmail, ["mailFromAccount", "mailFromAddress", "mailToRecipient"]);
    await requestEmailChange(c.get("ctx"), user, newEmail);
    return c.json({ message: SETTINGS_MESSAGES.emailLinkSent });
  })
  .get("/account/email/confirm", async (c) => {
    await limitRoute(c.get("ctx"), "GET /api/account/email/confirm", {
      address: addressKey(c.get("clientAddress")),
    });
    const result = await confirmEmailChange(c.get("ctx"), c.req.query("token"));
    c.header("Referrer-Policy", "no-referrer");
    return c.redirect(`/settings?email=${result}`, 303);
  })
  .get("/account/sessions", async (c) => {
    await requireUser(c);
    c.header("Cache-Control", "no-store");
    return c.json(await listSessions(c.get("ctx"), c.req.raw.headers));
  })
  .post("/account/sessions/revoke-others", async (c) => {
    const user = await requireUser(c);
    await revokeOtherSessions(c.get("ctx"), c.req.raw.headers);
    await endEmailChanges(c.get("ctx").database.db, user.id);
    return c.json({ message: SETTINGS_MESSAGES.othersEnded });
  })
  .delete("/account/sessions/:id", async (c) => {
    await requireUser(c);
    const { current } = await revokeSessionById(c.get("ctx"), c.req.raw.headers, c.req.param("id"));
    if (current) signOutBrowser(c);
    return c.json({ message: SETTINGS_MESSAGES.sessionEnded });
  });
