/**
 * Issue 15, the account settings (/settings) and their API (/api/account/*): the messages
 * both sides show, the rules of each request, and the shape of each answer. Nothing here
 * imports the server.
 */
import { z } from "zod";
import { PASSWORD_MAX, PASSWORD_MIN, PRODUCT_NAME } from "./constants";
import { emailSchema, passwordSchema } from "./validation";

/** How long a deleted account's username stays taken. */
export const USERNAME_HOLD_DAYS = 30;
/** An account without a password may be deleted within this long of signing in. */
export const FRESH_SIGN_IN_MINUTES = 10;
/** What an account without a username types to confirm its deletion. */
export const DELETE_CONFIRM_WORD = "DELETE";

/** The export's version tag: `<product>-export/1` (the product's current name, lower case). */
export const EXPORT_FORMAT = `${PRODUCT_NAME.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-export/1`;
export const EXPORT_FORMATS = ["json", "csv"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const SETTINGS_MESSAGES = {
  // Password
  currentPasswordIncorrect: "Current password is incorrect",
  currentPasswordRequired: "Please enter your current password",
  passwordsDiffer: "Passwords do not match",
  passwordChanged: "Your password has been changed.",
  passwordSet: "Your password has been set.",
  passwordAlreadySet: "This account already has a password",
  passwordTooShort: `Password must be at least ${PASSWORD_MIN} characters`,
  passwordTooLong: `Password must be at most ${PASSWORD_MAX} characters`,
  // E-mail
  emailSame: "That is already your e-mail address",
  emailLinkSent: "Check your inbox: we sent a confirmation link to the new address.",
  emailChanged: "Your e-mail address has been changed.",
  emailLinkInvalid:
    "That confirmation link no longer works: it was used, replaced by a newer one, ended by a password change or sign-out, or it expired. Ask for a new one below.",
  emailTaken: "That address is now used by another account, so your e-mail address was not changed.",
  signInAgainForEmail: `Please sign in again (within the last ${FRESH_SIGN_IN_MINUTES} minutes) to change your e-mail address`,
  // Sessions
  sessionNotFound: "Session not found",
  sessionEnded: "Signed out of that device.",
  othersEnded: "Signed out everywhere else.",
  // Export
  exportFormat: "format must be json or csv",
  // Deletion
  confirmMismatch: "Type your username to confirm",
  confirmMismatchNoUsername: `Type ${DELETE_CONFIRM_WORD} to confirm`,
  passwordRequired: "Please enter your password",
  passwordIncorrect: "Password is incorrect",
  signInAgain: `Please sign in again (within the last ${FRESH_SIGN_IN_MINUTES} minutes) to delete your account`,
  stripeUnreachable: "We could not cancel your subscription with Stripe, so nothing was deleted. Please try again.",
  paymentsNotConfigured:
    "Your subscription cannot be cancelled because payments are not configured on this server. Nothing was deleted.",
  accountDeleted: "Your account has been deleted.",
  deleteFailed: "Something went wrong. Please try again.",
} as const;

export const changePasswordSchema = z.object({
  /** Absent for an account without a password: then the new one is set. */
  currentPassword: z
    .string({ message: SETTINGS_MESSAGES.currentPasswordRequired })
    .min(1, SETTINGS_MESSAGES.currentPasswordRequired)
    .max(PASSWORD_MAX, SETTINGS_MESSAGES.currentPasswordIncorrect)
    .optional(),
  newPassword: passwordSchema,
  /** 'Sign out of other devices' (checked by default). */
  revokeOtherSessions: z.boolean().default(true),
});
export type ChangePasswordInput = z.input<typeof changePasswordSchema>;

export const changeEmailSchema = z.object({
  newEmail: emailSchema,
  /** Required when the account has a password (the same field as POST /api/account/password). */
  currentPassword: z.string().max(PASSWORD_MAX, SETTINGS_MESSAGES.currentPasswordIncorrect).optional(),
});
export type ChangeEmailInput = z.input<typeof changeEmailSchema>;

/** Where a confirmation link lands: /settings?email=<result>, and what the page says for each. */
export const EMAIL_CHANGE_RESULTS = { changed: "changed", invalid: "link-invalid", taken: "taken" } as const;
export type EmailChangeResult = (typeof EMAIL_CHANGE_RESULTS)[keyof typeof EMAIL_CHANGE_RESULTS];
export const EMAIL_CHANGE_NOTICES: Record<EmailChangeResult, { ok: boolean; message: string }> = {
  changed: { ok: true, message: SETTINGS_MESSAGES.emailChanged },
  "link-invalid": { ok: false, message: SETTINGS_MESSAGES.emailLinkInvalid },
  taken: { ok: false, message: SETTINGS_MESSAGES.emailTaken },
};

export const deleteAccountSchema = z.object({
  password: z.string().max(PASSWORD_MAX, SETTINGS_MESSAGES.passwordIncorrect).optional(),
  confirm: z.string({ message: SETTINGS_MESSAGES.confirmMismatch }),
});
export type DeleteAccountInput = z.infer<typeof deleteAccountSchema>;

/** GET /api/account: what the settings page needs to know about the account. */
export interface AccountSummary {
  email: string;
  username: string | null;
  /** Whether the account has a password (otherwise 'Set a password'). */
  hasPassword: boolean;
  /** 'password', 'github', 'google'. */
  signInMethods: string[];
}

/** One row of GET /api/account/sessions (never a token). */
export interface SessionInfo {
  id: string;
  /** 'Firefox on Windows', from the User-Agent. */
  device: string;
  createdAt: string;
  /** Approximate: better-auth refreshes a session at most once a day. */
  lastActiveAt: string;
  current: boolean;
}

/** The file name of an export: `{username or 'account'}-{YYYY-MM-DD}.{json|csv}` (UTC date). */
export function exportFileName(username: string | null, at: Date, format: ExportFormat): string {
  const safe = username && /^[A-Za-z0-9_]+$/.test(username) ? username : "account";
  return `${safe}-${at.toISOString().slice(0, 10)}.${format}`;
}
