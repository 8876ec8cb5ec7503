/**
 * User-facing messages: the texts the server answers with (`{message}`) and the islands
 * show (toasts, error cards, confirmations). Written once here, imported by both sides.
 */

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

/** Answers any route may give. */
export const COMMON_MESSAGES = {
  userNotFound: "User not found",
} as const;
