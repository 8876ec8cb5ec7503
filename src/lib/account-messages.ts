/**
 * The account screens' messages (sign-up and sign-in, profile set-up and editing, premium
 * billing): the texts the server answers with and those screens show. Apart from
 * src/lib/messages.ts so that the dashboard's first load (its 110 KB budget) does not carry them.
 */
import {
  BIO_MAX,
  MAX_SUPPLEMENTS,
  NAME_MAX,
  PASSWORD_MAX,
  PASSWORD_MIN,
  PRODUCT_NAME,
  PROFILE_IMAGE_MAX_BYTES,
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
