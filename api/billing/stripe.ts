/**
 * The server's Stripe client, built once per configuration. The API version is pinned
 * to the one the installed SDK's types describe (`2026-10-28.endive`), so the shapes the
 * code reads (`latest_invoice.confirmation_secret`, `items.data[].current_period_end`,
 * `invoice.parent.subscription_details`) are the shapes Stripe sends, whatever the
 * account's default version is. `STRIPE_API_BASE` points the SDK at another server
 * (a local Stripe-compatible fake in tests).
 */
import Stripe from "stripe";
import { PRODUCT_NAME } from "../../src/lib/constants";
import type { Config } from "../lib/config";
import { boundedFetch } from "../lib/outbound";

export const STRIPE_API_VERSION = "2026-10-28.endive" as const;

/** The most bytes of one Stripe answer read into memory (its objects are a few KB; a list of 100, a few hundred). */
export const STRIPE_ANSWER_BYTES = 1024 * 1024;

const clients = new WeakMap<Config, Stripe>();

/** Host, port and protocol for the SDK from a base URL such as http://127.0.0.1:12111. */
export function stripeEndpoint(base: string | undefined): Pick<Stripe.StripeConfig, "host" | "port" | "protocol"> {
  if (!base) return {};
  const url = new URL(base);
  const protocol = url.protocol === "http:" ? "http" : "https";
  return {
    host: url.hostname,
    port: url.port || (protocol === "http" ? 80 : 443),
    protocol,
  };
}

/** The Stripe client, or null when billing is off (no keys configured). */
export function getStripe(config: Config): Stripe | null {
  if (!config.billingEnabled || !config.STRIPE_SECRET_KEY) return null;
  let client = clients.get(config);
  if (!client) {
    // Issue 45: our own deadline per call (the SDK's `timeout` and, beneath it, a fetch that
    // aborts and settles by then whatever happens) and answer bound (api/lib/outbound.ts). A call
    // and its SDK retries (at most 2, on network errors and 409/429/5xx) are each bounded.
    client = new Stripe(config.STRIPE_SECRET_KEY, {
      apiVersion: STRIPE_API_VERSION,
      maxNetworkRetries: 2,
      timeout: config.OUTBOUND_TIMEOUT_MS,
      httpClient: Stripe.createFetchHttpClient(boundedFetch(config.OUTBOUND_TIMEOUT_MS, STRIPE_ANSWER_BYTES)),
      appInfo: { name: PRODUCT_NAME },
      ...stripeEndpoint(config.STRIPE_API_BASE),
    });
    clients.set(config, client);
  }
  return client;
}

export const isStripeError = (error: unknown): error is Stripe.errors.StripeError =>
  error instanceof Stripe.errors.StripeError;

/** A Stripe "No such subscription/customer" answer. */
export const isMissingResource = (error: unknown): boolean =>
  isStripeError(error) && (error.code === "resource_missing" || error.statusCode === 404);

export { Stripe };
