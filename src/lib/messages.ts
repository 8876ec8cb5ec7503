/**
 * User-facing messages: the texts the server answers with (`{message}`, `errors`) and the
 * islands show (field errors, toasts, error cards, confirmations). Written once here,
 * imported by both sides; limits come from the constants, the product's name from PRODUCT_NAME.
 */
import { NOTES_MAX, PRODUCT_NAME, SUPPLEMENT_TEXT_MAX } from "./constants";

/** Supplements: the API's answers and the dashboard's toasts. */
export const SUPPLEMENT_MESSAGES = {
  required: (label: string) => `${label} is required`,
  textLong: (label: string) => `${label} must be at most ${SUPPLEMENT_TEXT_MAX} characters`,
  quantityType: "Please choose a quantity type",
  notesText: "Notes must be text",
  notesLong: `Notes must be at most ${NOTES_MAX} characters`,
  supplementIds: "supplementIds must be a list of supplement ids",
  invalidId: "Invalid supplement id",
  notFound: "Supplement not found",
  duplicateIds: "supplementIds must not contain duplicates",
  duplicateId: "Duplicate id",
  notEachOnce: "supplementIds must list each of your supplements exactly once",
  notEachOnceField: "Must list each of your supplements exactly once",
  undoExpired: "This supplement can no longer be restored",
  // Shown by the islands only.
  added: "Supplement added successfully!",
  updated: "Supplement updated successfully!",
  addFailed: "Failed to add supplement",
  updateFailed: "Failed to update supplement",
  deleteFailed: "Failed to delete supplement",
  deleted: "Supplement deleted",
  undo: "Undo",
  restoreFailed: "Failed to restore supplement",
  reorderFailed: "Failed to reorder supplements",
} as const;

/** E-mails the server sends. */
export const MAIL_MESSAGES = {
  passwordReset: (url: string) => ({
    subject: `Reset your ${PRODUCT_NAME} password`,
    text: `Someone asked to reset the password of your ${PRODUCT_NAME} account.\n\nTo choose a new password, open this link within an hour:\n${url}\n\nIf it wasn't you, ignore this e-mail: your password stays as it is.`,
  }),
  /** To the new address: the only place the link goes. */
  emailChangeConfirm: (url: string, hours: number) => ({
    subject: `Confirm your new ${PRODUCT_NAME} e-mail address`,
    text: `Someone asked to use this address to sign in to ${PRODUCT_NAME}.\n\nTo confirm it, open this link within ${hours} hours (it works once):\n${url}\n\nIf it wasn't you, ignore this e-mail: nothing changes.`,
  }),
  /** To the old address, when the change is asked for: no link. */
  emailChangeRequested: (newEmail: string) => ({
    subject: `Your ${PRODUCT_NAME} e-mail address is about to change`,
    text: `Someone signed in to your ${PRODUCT_NAME} account asked to change its e-mail address to ${newEmail}. It changes only when the link sent there is opened.\n\nIf this wasn't you, reset your password now (Forgot password on the sign-in page): that also ends the pending change.`,
  }),
  /** To the old address, once the change is made: no link. */
  emailChanged: (newEmail: string) => ({
    subject: `Your ${PRODUCT_NAME} e-mail address was changed`,
    text: `The e-mail address of your ${PRODUCT_NAME} account is now ${newEmail}.\n\nIf this wasn't you, reset your password (Forgot password on the sign-in page) and contact us.`,
  }),
  /** Issue 45: e-mail reminders go only to an address this link (or an e-mail change) confirmed. */
  reminderConfirm: (url: string, days: number) => ({
    subject: `Confirm your address for ${PRODUCT_NAME} reminders`,
    text: `Someone signed in to ${PRODUCT_NAME} with this address turned on e-mail reminders.\n\nTo get them, open this link within ${days} days (it works once):\n${url}\n\nIf it wasn't you, ignore this e-mail: no reminders are sent here until the link is opened.`,
  }),
  /** The answer of a route whose mail the recipient's daily budget refused (api/lib/mail.ts). */
  overBudget: "Too many e-mails to this address today. Please try again tomorrow.",
} as const;

/** Answers any route may give, and the islands' fallbacks for them. */
export const COMMON_MESSAGES = {
  userNotFound: "User not found",
  serverError: "Something went wrong. Please try again.",
  unavailable: "Service temporarily unavailable. Please try again.",
  /** The plain-text (page) form of `unavailable`. */
  unavailablePage: `${PRODUCT_NAME} is temporarily unavailable. Please try again in a moment.`,
  tooManyRequests: "Too many requests. Please wait a moment and try again.",
  networkError: "Network error. Please check your connection and try again.",
} as const;

/** Today without a network (issue 40, docs/offline.md): a tick waiting on this device. */
export const OFFLINE_MESSAGES = {
  pending: "Pending",
  pendingLong: "Waiting to sync",
  /** Said by the card's live region once every waiting tick has reached the server. */
  allSaved: "Ticks made offline are saved",
  saved: "Saved",
  deleted: "A tick for a supplement you deleted was dropped",
  notSaved: "Not saved",
  /** The dashboard's banner while the device is offline (issue 51). */
  banner: "You're offline. Ticks are saved when you're back.",
  /** The reason a control that needs the network is disabled while offline. */
  needsConnection: "Needs a connection",
} as const;
