/**
 * User-facing messages: the texts the server answers with (`{message}`, `errors`) and the
 * islands show (field errors, toasts, error cards, confirmations). Written once here,
 * imported by both sides; limits come from the constants, the product's name from PRODUCT_NAME.
 */
import {
  BIO_MAX,
  MAX_SUPPLEMENTS,
  NAME_MAX,
  NOTES_MAX,
  PASSWORD_MAX,
  PASSWORD_MIN,
  PRODUCT_NAME,
  PROFILE_IMAGE_MAX_BYTES,
  SUPPLEMENT_TEXT_MAX,
  USERNAME_MAX,
  USERNAME_MIN,
} from "./constants";

/** The field rules' messages (src/lib/validation.ts), the spec's words. */
export const MESSAGES = {
  usernameShort: `Username must be at least ${USERNAME_MIN} characters`,
  usernameLong: `Username must be less than ${USERNAME_MAX} characters`,
  usernameChars: "Username can only contain letters, numbers, and underscores",
  usernameTaken: "Username is already taken",
  bioLong: `Bio must be at most ${BIO_MAX} characters`,
  url: "Please enter a valid URL",
  imageType: "Please select a valid image file",
  imageSize: `Image must be smaller than ${PROFILE_IMAGE_MAX_BYTES / (1024 * 1024)}MB`,
  tooManySupplements: `You can track at most ${MAX_SUPPLEMENTS} supplements`,
  nameRequired: "Please enter your name",
  nameLong: `Name must be at most ${NAME_MAX} characters`,
  nameChars: "Name cannot contain control characters",
} as const;

/** Sign-up, sign-in and password reset forms. */
export const ACCOUNT_MESSAGES = {
  email: "Please enter a valid e-mail address",
  passwordShort: `Password must be at least ${PASSWORD_MIN} characters`,
  passwordLong: `Password must be at most ${PASSWORD_MAX} characters`,
  passwordRequired: "Please enter your password",
} as const;

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

/** Profile images and the profile forms: the API's answers and the setup and Edit Profile screens. */
export const PROFILE_MESSAGES = {
  notFound: "Profile not found",
  imageNotFound: "Image not found",
  chooseImage: "Please choose an image to upload",
  notMultipart: "Send the image as multipart/form-data with a profileImage field",
  unreadableUpload: "The upload could not be read. Please try again.",
  // Shown by the islands only.
  setupCompleteTitle: "Profile Setup Complete!",
  setupComplete: `Welcome to ${PRODUCT_NAME}! You can now start tracking your supplements and equipment.`,
  setupFailedTitle: "Setup Failed",
  setupFailed: "Failed to set up profile. Please try again.",
  imageUpdated: "Profile image updated successfully!",
  imageUploadFailed: "Failed to upload image",
  updated: "Profile updated successfully!",
  updateFailed: "Failed to update profile",
} as const;

/** Premium billing: the API's answers and the subscribe, billing and Edit Profile screens. */
export const BILLING_MESSAGES = {
  notConfigured: "Payments are not configured on this server.",
  alreadyPremium: "You already have an active premium subscription.",
  noSubscription: "You do not have an active subscription.",
  noBillingAccount: "You do not have a billing account yet. Subscribe to Premium first.",
  createFailed: "Failed to create subscription. Please try again.",
  cancelFailed: "Failed to cancel subscription",
  portalFailed: "Failed to open billing portal. Please try again.",
  billingFailed: "Failed to load billing details. Please try again.",
  invalidSignature: "Invalid Stripe signature",
  missingSignature: "Missing Stripe-Signature header",
  webhookFailed: "Could not process the event. Stripe will retry it.",
  // Shown by the islands only.
  alreadyPremiumTitle: "Already Premium",
  paymentInitFailed: "Failed to initialize payment. Please try again.",
  paymentFailedTitle: "Payment Failed",
  paymentFailed: "Your payment could not be completed.",
  activatedTitle: "Welcome to Premium!",
  activated: "Your subscription has been activated successfully.",
  cancelConfirmation:
    "Are you sure you want to cancel your premium subscription? You'll lose access to premium features.",
  cancelledTitle: "Subscription Cancelled",
  cancelled: "Your premium subscription has been cancelled successfully.",
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
  /** The answer of a route whose mail the recipient's daily budget refused (api/mail.ts). */
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
