/**
 * /api/account/*: the signed-in user's own account (issue 15). Every route acts on the
 * caller's account only, answers `no-store`, and is origin-checked when it writes
 * (api/app.ts). better-auth's own endpoints do the work where they exist (changePassword,
 * setPassword, changeEmail, revokeSession, revokeOtherSessions, verifyPassword); these
 * routes put the app's rules, messages and answers around them.
 *
 *   GET    /api/account                         what the settings page shows
 *   GET    /api/account/export?format=json|csv  the user's data (export.ts)
 *   DELETE /api/account                         { password?, confirm } (delete.ts)
 *   POST   /api/account/password                { currentPassword?, newPassword, revokeOtherSessions }
 *   POST   /api/account/email                   { newEmail }: a confirmation link to the new address
 *   GET    /api/account/sessions                every live session, no tokens (sessions.ts)
 *   DELETE /api/account/sessions/:id            signs that session out
 *   POST   /api/account/sessions/revoke-others  signs out everywhere else
 */
import { APIError } from "better-auth/api";
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { accounts } from "../../db/schema";
import {
  type AccountSummary,
  changeEmailSchema,
  changePasswordSchema,
  deleteAccountSchema,
  EXPORT_FORMATS,
  type ExportFormat,
  exportFileName,
  SETTINGS_MESSAGES,
} from "../../src/lib/account";
import { now } from "../clock";
import { type AppEnv, requireUser } from "../env";
import { badRequest, HttpError, readJson } from "../http";
import { clearingCookie, sessionCookieNames } from "../session-cookie";
import { hasPassword } from "./credentials";
import { deleteAccount } from "./delete";
import { buildExport, exportCsv, signInMethod } from "./export";
import { listSessions, revokeOtherSessions, revokeSessionById } from "./sessions";

/**
 * better-auth endpoints not served over HTTP: list-sessions hands every session's token to
 * the page (a token is a credential; GET /api/account/sessions lists them without).
 */
export const HIDDEN_AUTH_PATHS: ReadonlySet<string> = new Set(["/api/auth/list-sessions"]);

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

const isInvalidPassword = (error: unknown) =>
  error instanceof APIError && (error.body as { code?: unknown } | undefined)?.code === "INVALID_PASSWORD";

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
    await deleteAccount(ctx, c.req.raw.headers, user, input);
    for (const name of sessionCookieNames(c.req.header("cookie")))
      c.header("Set-Cookie", clearingCookie(name), { append: true });
    return c.json({ message: SETTINGS_MESSAGES.accountDeleted });
  })
  .post("/account/password", async (c) => {
    const user = await requireUser(c);
    const input = await readJson(c, changePasswordSchema);
    const ctx = c.get("ctx");
    const headers = c.req.raw.headers;
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
        if (isInvalidPassword(error)) {
          throw badRequest(SETTINGS_MESSAGES.currentPasswordIncorrect, {
            currentPassword: [SETTINGS_MESSAGES.currentPasswordIncorrect],
          });
        }
        authError(error);
      }
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
    return c.json({ message: SETTINGS_MESSAGES.passwordSet });
  })
  .post("/account/email", async (c) => {
    const user = await requireUser(c);
    const { newEmail } = await readJson(c, changeEmailSchema);
    if (newEmail.toLowerCase() === user.email.toLowerCase()) {
      throw badRequest(SETTINGS_MESSAGES.emailSame, { newEmail: [SETTINGS_MESSAGES.emailSame] });
    }
    try {
      // The link (to the new address) changes the e-mail when opened, then lands on /settings.
      await c.get("ctx").auth.api.changeEmail({
        headers: c.req.raw.headers,
        body: { newEmail, callbackURL: "/settings?email=changed" },
      });
    } catch (error) {
      authError(error);
    }
    return c.json({ message: SETTINGS_MESSAGES.emailLinkSent });
  })
  .get("/account/sessions", async (c) => {
    await requireUser(c);
    c.header("Cache-Control", "no-store");
    return c.json(await listSessions(c.get("ctx"), c.req.raw.headers));
  })
  .post("/account/sessions/revoke-others", async (c) => {
    await requireUser(c);
    await revokeOtherSessions(c.get("ctx"), c.req.raw.headers);
    return c.json({ message: SETTINGS_MESSAGES.othersEnded });
  })
  .delete("/account/sessions/:id", async (c) => {
    await requireUser(c);
    const { current } = await revokeSessionById(c.get("ctx"), c.req.raw.headers, c.req.param("id"));
    if (current) {
      for (const name of sessionCookieNames(c.req.header("cookie")))
        c.header("Set-Cookie", clearingCookie(name), { append: true });
    }
    return c.json({ message: SETTINGS_MESSAGES.sessionEnded });
  });
