/** How billing routes fail: no Stripe configured (503), a Stripe call that failed (502, logged). */
import { BILLING_MESSAGES } from "../../src/lib/account-messages";
import type { Config } from "../lib/config";
import { HttpError } from "../lib/http";
import { errorFields, log } from "../lib/log";
import { getStripe, isStripeError, type Stripe } from "./stripe";

/** The Stripe client, or a 503 when payments are not configured on this server. */
export function requireStripe(config: Config): Stripe {
  const stripe = getStripe(config);
  if (!stripe) throw new HttpError(503, BILLING_MESSAGES.notConfigured);
  return stripe;
}

/** A Stripe failure as a 502 with the screen's message; the details go to the log. */
export function stripeFailure(error: unknown, message: string, context: Record<string, unknown>): never {
  if (error instanceof HttpError) throw error;
  log.warn("stripe call failed", {
    ...context,
    ...(isStripeError(error)
      ? { stripeType: error.type, stripeCode: error.code, stripeStatus: error.statusCode, error: error.message }
      : errorFields(error)),
  });
  throw new HttpError(502, message);
}
