/**
 * A Stripe-compatible HTTP server for tests: the app's real `stripe` SDK talks to it through
 * STRIPE_API_BASE. It keeps state (customers, subscriptions incomplete → active → canceled,
 * invoices, portal sessions, prices, webhook endpoints), answers in Stripe's wire format built
 * from the SDK's own types, records requests, and signs its webhooks with the SDK's code.
 * What it covers and what it cannot prove: docs/testing.md.
 *
 *   const fake = await startFakeStripe();
 *   const api = await startApi(fake.env());
 *   fake.webhookUrl = `${api.url}/api/stripe/webhook`;
 */
import Stripe from "stripe";
import { PRODUCT_NAME } from "../../src/lib/constants";

export const FAKE_API_VERSION = "2026-10-28.endive";
export const DECLINED_CARD = "4000000000000002";

type Params = Record<string, unknown>;
type EventType = Stripe.Event["type"];
type EventOf<T extends EventType> = Extract<Stripe.Event, { type: T }>;

export interface RecordedRequest {
  method: string;
  path: string;
  params: Params;
  idempotencyKey: string | null;
  stripeVersion: string | null;
  status: number;
}

export interface Delivery {
  eventId: string;
  type: string;
  status: number;
  body: string;
}

export interface FakeStripeOptions {
  port?: number;
  hostname?: string;
  secretKey?: string;
  publishableKey?: string;
  webhookSecret?: string;
  /** Where events are POSTed; events are only recorded while it is unset. */
  webhookUrl?: string;
  /** Send each event as soon as it happens (default true); otherwise call deliver(). */
  autoDeliver?: boolean;
  /** Whether a default billing portal configuration exists (Stripe refuses portal sessions without one). */
  portalConfigured?: boolean;
}

class StripeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code?: string,
    readonly param?: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
  body() {
    return {
      error: {
        type: this.type,
        message: this.message,
        ...(this.code ? { code: this.code } : {}),
        ...(this.param ? { param: this.param } : {}),
        ...this.extra,
      },
    };
  }
}

const missing = (what: string, id: string, param = "id") =>
  new StripeHttpError(404, "invalid_request_error", `No such ${what}: '${id}'`, "resource_missing", param);
const invalid = (message: string, param?: string) =>
  new StripeHttpError(400, "invalid_request_error", message, "parameter_invalid", param);

const now = () => Math.floor(Date.now() / 1000);
const MONTH = 30 * 24 * 60 * 60;

let counter = 0;
function newId(prefix: string): string {
  counter += 1;
  const random = crypto.randomUUID().replaceAll("-", "").slice(0, 14);
  return `${prefix}_${counter.toString(36).padStart(4, "0")}${random}`;
}

/** The wire form of a typed object (Decimal fields become strings, as on the wire). */
const toWire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Parses Stripe's form encoding: items[0][price]=x&expand[0]=y&metadata[k]=v. */
export function parseStripeForm(text: string): Params {
  const root: Params = {};
  for (const part of text.split("&")) {
    if (!part) continue;
    const eq = part.indexOf("=");
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    const rawKey = decode(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? "" : decode(part.slice(eq + 1));
    const keys = [...rawKey.matchAll(/^[^[]+|\[([^\]]*)\]/g)].map((m) => m[1] ?? m[0]);
    let node: Record<string, unknown> = root;
    keys.forEach((key, i) => {
      const next = keys[i + 1];
      const name = key === "" ? String(Array.isArray(node) ? node.length : Object.keys(node).length) : key;
      if (next === undefined) {
        node[name] = value;
        return;
      }
      node[name] ??= /^\d*$/.test(next) ? [] : {};
      node = node[name] as Record<string, unknown>;
    });
  }
  return root;
}

const str = (params: Params, key: string): string | undefined => {
  const v = params[key];
  return typeof v === "string" && v !== "" ? v : undefined;
};
const list = (params: Params, key: string): string[] => {
  const v = params[key];
  if (Array.isArray(v)) return v.map(String);
  if (v && typeof v === "object") return Object.values(v).map(String);
  return typeof v === "string" ? [v] : [];
};
const record = (params: Params, key: string): Record<string, string> => {
  const v = params[key];
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, string>) : {};
};
const bool = (params: Params, key: string): boolean | undefined => {
  const v = params[key];
  return v === "true" ? true : v === "false" ? false : undefined;
};

function apiList<T>(data: T[], url: string): Stripe.ApiList<T> {
  return { object: "list", data, has_more: false, url };
}

export class FakeStripe {
  readonly secretKey: string;
  readonly publishableKey: string;
  readonly webhookSecret: string;
  webhookUrl: string | undefined;
  autoDeliver: boolean;
  /** The seeded $4.99 monthly price. */
  readonly priceId: string;

  readonly customers = new Map<string, Stripe.Customer>();
  readonly subscriptions = new Map<string, Stripe.Subscription>();
  readonly invoices = new Map<string, Stripe.Invoice>();
  readonly products = new Map<string, Stripe.Product>();
  readonly prices = new Map<string, Stripe.Price>();
  readonly portalSessions = new Map<string, Stripe.BillingPortal.Session>();
  readonly portalConfigurations = new Map<string, Stripe.BillingPortal.Configuration>();
  readonly webhookEndpoints = new Map<string, Stripe.WebhookEndpoint>();
  readonly events: Stripe.Event[] = [];
  readonly requests: RecordedRequest[] = [];
  readonly deliveries: Delivery[] = [];
  /** Requests answered with this error instead (path prefix → error), for failure tests. */
  readonly failures = new Map<string, { status: number; message: string }>();

  private readonly idempotency = new Map<string, { params: string; status: number; body: unknown }>();
  private readonly signer: Stripe;
  private queue: Promise<void> = Promise.resolve();
  private server: ReturnType<typeof Bun.serve> | undefined;
  url = "";

  constructor(options: FakeStripeOptions = {}) {
    this.secretKey = options.secretKey ?? `sk_test_fake_${crypto.randomUUID().replaceAll("-", "")}`;
    this.publishableKey = options.publishableKey ?? "pk_test_fake_stacktrack";
    this.webhookSecret = options.webhookSecret ?? `whsec_fake_${crypto.randomUUID().replaceAll("-", "")}`;
    this.webhookUrl = options.webhookUrl;
    this.autoDeliver = options.autoDeliver ?? true;
    this.signer = new Stripe(this.secretKey);
    const product = this.createProduct({ name: `${PRODUCT_NAME} Premium` });
    this.priceId = this.createPrice({
      product: product.id,
      unit_amount: "499",
      currency: "usd",
      recurring: { interval: "month" },
      lookup_key: "stacktrack_premium_monthly",
    }).id;
    if (options.portalConfigured ?? true) this.createPortalConfiguration({});
  }

  /** STRIPE_* variables that point the app at this server. */
  env(): Record<string, string> {
    return {
      STRIPE_SECRET_KEY: this.secretKey,
      PUBLIC_STRIPE_PUBLISHABLE_KEY: this.publishableKey,
      STRIPE_WEBHOOK_SECRET: this.webhookSecret,
      STRIPE_PRICE_ID: this.priceId,
      STRIPE_API_BASE: this.url,
    };
  }

  listen(port = 0, hostname = "127.0.0.1"): this {
    this.server = Bun.serve({ port, hostname, fetch: (request) => this.handle(request) });
    this.url = `http://${hostname}:${this.server.port}`;
    return this;
  }

  async close(): Promise<void> {
    await this.settle();
    await this.server?.stop(true);
  }

  // ---------------------------------------------------------------- objects

  createCustomer(params: Params): Stripe.Customer {
    const customer: Stripe.Customer = {
      id: newId("cus"),
      object: "customer",
      address: null,
      balance: 0,
      created: now(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: str(params, "description") ?? null,
      discount: null,
      email: str(params, "email") ?? null,
      invoice_prefix: crypto.randomUUID().slice(0, 8).toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: record(params, "metadata"),
      name: str(params, "name") ?? null,
      next_invoice_sequence: 1,
      phone: null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: "none",
      test_clock: null,
    };
    this.customers.set(customer.id, customer);
    this.emit("customer.created", customer);
    return customer;
  }

  createProduct(params: Params): Stripe.Product {
    const product: Stripe.Product = {
      id: newId("prod"),
      object: "product",
      active: true,
      created: now(),
      default_price: null,
      description: str(params, "description") ?? null,
      images: [],
      livemode: false,
      marketing_features: [],
      metadata: record(params, "metadata"),
      name: str(params, "name") ?? "Product",
      package_dimensions: null,
      shippable: null,
      statement_descriptor: null,
      tax_code: null,
      tax_details: null,
      type: "service",
      unit_label: null,
      updated: now(),
      url: null,
    };
    this.products.set(product.id, product);
    return product;
  }

  createPrice(params: Params): Stripe.Price {
    const productId = str(params, "product");
    if (!productId || !this.products.has(productId)) throw missing("product", productId ?? "", "product");
    const amount = Number(str(params, "unit_amount") ?? "0");
    const recurring = record(params, "recurring");
    const lookupKey = str(params, "lookup_key") ?? null;
    if (lookupKey) {
      for (const p of this.prices.values()) {
        if (p.lookup_key === lookupKey) {
          if (bool(params, "transfer_lookup_key")) p.lookup_key = null;
          else throw invalid(`A price (\`${p.id}\`) already uses that lookup key.`, "lookup_key");
        }
      }
    }
    const price: Stripe.Price = {
      id: newId("price"),
      object: "price",
      active: true,
      billing_scheme: "per_unit",
      created: now(),
      currency: str(params, "currency") ?? "usd",
      custom_unit_amount: null,
      livemode: false,
      lookup_key: lookupKey,
      metadata: record(params, "metadata"),
      nickname: str(params, "nickname") ?? null,
      product: productId,
      recurring: recurring.interval
        ? {
            interval: recurring.interval as Stripe.Price.Recurring.Interval,
            interval_count: Number(recurring.interval_count ?? "1"),
            meter: null,
            trial_period_days: null,
            usage_type: "licensed",
          }
        : null,
      tax_behavior: "unspecified",
      tiers_mode: null,
      transform_quantity: null,
      type: recurring.interval ? "recurring" : "one_time",
      unit_amount: amount,
      unit_amount_decimal: Stripe.Decimal.from(String(amount)),
    };
    this.prices.set(price.id, price);
    return price;
  }

  createPortalConfiguration(params: Params): Stripe.BillingPortal.Configuration {
    const hasDefault = [...this.portalConfigurations.values()].some((c) => c.is_default);
    const configuration: Stripe.BillingPortal.Configuration = {
      id: newId("bpc"),
      object: "billing_portal.configuration",
      active: true,
      application: null,
      business_profile: { headline: null, privacy_policy_url: null, terms_of_service_url: null },
      created: now(),
      default_return_url: str(params, "default_return_url") ?? null,
      features: {
        customer_update: { allowed_updates: ["email", "address"], enabled: true },
        invoice_history: { enabled: true },
        payment_method_update: { enabled: true, payment_method_configuration: null },
        subscription_cancel: {
          cancellation_reason: { enabled: false, feedback_options: null, options: [] },
          enabled: true,
          mode: "immediately",
          proration_behavior: "none",
        },
        subscription_pause: { duration: { interval_options: [], type: "indefinite" }, enabled: false },
        subscription_update: {
          billing_cycle_anchor: null,
          default_allowed_updates: [],
          enabled: false,
          products: null,
          proration_behavior: "none",
          schedule_at_period_end: { conditions: [] },
          trial_update_behavior: "end_trial",
        },
      },
      is_default: !hasDefault,
      livemode: false,
      login_page: { enabled: false, url: null },
      metadata: record(params, "metadata"),
      name: str(params, "name") ?? null,
      updated: now(),
    };
    this.portalConfigurations.set(configuration.id, configuration);
    return configuration;
  }

  private subscriptionItem(subscriptionId: string, price: Stripe.Price, start: number): Stripe.SubscriptionItem {
    const plan: Stripe.Plan = {
      id: price.id,
      object: "plan",
      active: true,
      amount: price.unit_amount,
      amount_decimal: price.unit_amount_decimal,
      billing_scheme: "per_unit",
      created: price.created,
      currency: price.currency,
      interval: price.recurring?.interval ?? "month",
      interval_count: price.recurring?.interval_count ?? 1,
      livemode: false,
      metadata: {},
      meter: null,
      nickname: null,
      product: price.product,
      tiers_mode: null,
      transform_usage: null,
      trial_period_days: null,
      usage_type: "licensed",
    };
    return {
      id: newId("si"),
      object: "subscription_item",
      billing_thresholds: null,
      created: start,
      current_period_end: start + MONTH,
      current_period_start: start,
      current_trial: null,
      discounts: [],
      metadata: {},
      plan,
      price,
      quantity: 1,
      subscription: subscriptionId,
      tax_rates: [],
    };
  }

  private createInvoice(
    subscription: Stripe.Subscription,
    reason: Stripe.Invoice.BillingReason,
    periodStart: number,
  ): Stripe.Invoice {
    const amount = subscription.items.data[0]?.price.unit_amount ?? 0;
    const customer = this.customers.get(subscription.customer as string);
    const invoiceId = newId("in");
    const paymentIntentId = newId("pi");
    const created = now();
    const invoice: Stripe.Invoice = {
      id: invoiceId,
      object: "invoice",
      account_country: "US",
      account_name: `${PRODUCT_NAME} (fake)`,
      account_tax_ids: null,
      amount_due: amount,
      amount_overpaid: 0,
      amount_paid: 0,
      amount_remaining: amount,
      amount_shipping: 0,
      application: null,
      attempt_count: 0,
      attempted: false,
      auto_advance: true,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
      automatically_finalizes_at: null,
      billing_reason: reason,
      collection_method: "charge_automatically",
      confirmation_secret: {
        client_secret: `${paymentIntentId}_secret_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
        type: "payment_intent",
      },
      created,
      currency: subscription.currency,
      custom_fields: null,
      customer: subscription.customer as string,
      customer_account: null,
      customer_address: null,
      customer_email: customer?.email ?? null,
      customer_name: customer?.name ?? null,
      customer_phone: null,
      customer_shipping: null,
      customer_tax_exempt: "none",
      customer_tax_ids: [],
      default_payment_method: null,
      default_source: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      due_date: null,
      effective_at: created,
      ending_balance: 0,
      footer: null,
      from_invoice: null,
      hosted_invoice_url: `${this.url}/invoices/${invoiceId}`,
      invoice_pdf: `${this.url}/invoices/${invoiceId}/pdf`,
      issuer: { type: "self" },
      last_finalization_error: null,
      latest_revision: null,
      lines: apiList([], `/v1/invoices/${invoiceId}/lines`),
      livemode: false,
      metadata: {},
      next_payment_attempt: null,
      number: `FAKE-${invoiceId.slice(-6).toUpperCase()}`,
      on_behalf_of: null,
      parent: {
        quote_details: null,
        subscription_details: { metadata: { ...subscription.metadata }, subscription: subscription.id },
        type: "subscription_details",
      },
      payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
      period_end: periodStart,
      period_start: periodStart,
      post_payment_credit_notes_amount: 0,
      pre_payment_credit_notes_amount: 0,
      receipt_number: null,
      rendering: null,
      shipping_cost: null,
      shipping_details: null,
      starting_balance: 0,
      statement_descriptor: null,
      status: "open",
      status_transitions: { finalized_at: created, marked_uncollectible_at: null, paid_at: null, voided_at: null },
      subtotal: amount,
      subtotal_excluding_tax: amount,
      test_clock: null,
      total: amount,
      total_discount_amounts: [],
      total_excluding_tax: amount,
      total_pretax_credit_amounts: [],
      total_taxes: [],
      webhooks_delivered_at: null,
    };
    this.invoices.set(invoice.id, invoice);
    this.emit("invoice.created", invoice);
    this.emit("invoice.finalized", invoice);
    return invoice;
  }

  createSubscription(params: Params): Stripe.Subscription {
    const customerId = str(params, "customer");
    if (!customerId || !this.customers.has(customerId)) throw missing("customer", customerId ?? "", "customer");
    const items = params.items;
    const first = Array.isArray(items) ? (items[0] as Params | undefined) : undefined;
    const priceId = first ? str(first, "price") : undefined;
    const price = priceId ? this.prices.get(priceId) : undefined;
    if (!price) throw missing("price", priceId ?? "", "items[0][price]");
    if (!price.recurring)
      throw invalid(
        "The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.",
        "items[0][price]",
      );
    const behavior = str(params, "payment_behavior") ?? "allow_incomplete";
    if (behavior !== "default_incomplete") {
      // Without a saved card Stripe could not charge: this fake only models the flow the app uses.
      throw new StripeHttpError(
        402,
        "card_error",
        "This customer has no attached payment source or default payment method.",
        "resource_missing",
      );
    }
    const start = now();
    const id = newId("sub");
    const paymentSettings = record(params, "payment_settings");
    const subscription: Stripe.Subscription = {
      id,
      object: "subscription",
      application: null,
      application_fee_percent: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: start,
      billing_cycle_anchor_config: null,
      billing_mode: { flexible: null, type: "classic" },
      billing_schedules: [],
      billing_thresholds: null,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
      collection_method: "charge_automatically",
      created: start,
      currency: price.currency,
      customer: customerId,
      customer_account: null,
      days_until_due: null,
      default_payment_method: null,
      default_source: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      ended_at: null,
      invoice_settings: {
        account_tax_ids: null,
        custom_fields: null,
        description: null,
        footer: null,
        issuer: { type: "self" },
      },
      items: apiList([this.subscriptionItem(id, price, start)], `/v1/subscription_items?subscription=${id}`),
      latest_invoice: null,
      livemode: false,
      managed_payments: null,
      metadata: record(params, "metadata"),
      next_pending_invoice_item_invoice: null,
      on_behalf_of: null,
      pause_collection: null,
      payment_settings: {
        payment_method_options: null,
        payment_method_types: null,
        save_default_payment_method:
          (paymentSettings.save_default_payment_method as Stripe.Subscription.PaymentSettings.SaveDefaultPaymentMethod) ??
          "off",
      },
      pending_invoice_item_interval: null,
      pending_setup_intent: null,
      pending_update: null,
      schedule: null,
      start_date: start,
      status: "incomplete",
      test_clock: null,
      transfer_data: null,
      trial_end: null,
      trial_settings: { end_behavior: { billing_cycle_anchor: null, missing_payment_method: "create_invoice" } },
      trial_start: null,
    };
    this.subscriptions.set(id, subscription);
    this.emit("customer.subscription.created", subscription);
    subscription.latest_invoice = this.createInvoice(subscription, "subscription_create", start).id;
    return subscription;
  }

  private requireSubscription(id: string): Stripe.Subscription {
    const subscription = this.subscriptions.get(id);
    if (!subscription) throw missing("subscription", id);
    return subscription;
  }

  /** Changes a subscription as Stripe would, and emits customer.subscription.updated. */
  updateSubscription(id: string, patch: Partial<Stripe.Subscription>): Stripe.Subscription {
    const subscription = this.requireSubscription(id);
    const previous: Partial<Stripe.Subscription> = {};
    for (const key of Object.keys(patch) as (keyof Stripe.Subscription)[]) {
      (previous as Record<string, unknown>)[key] = toWire(subscription[key]);
    }
    Object.assign(subscription, patch);
    this.emit("customer.subscription.updated", subscription, previous);
    return subscription;
  }

  /** Cancels at once (DELETE /v1/subscriptions/:id, or the portal's cancel). */
  cancelSubscription(id: string): Stripe.Subscription {
    const subscription = this.requireSubscription(id);
    if (subscription.status === "canceled" || subscription.status === "incomplete_expired") {
      throw invalid(`A canceled subscription can only update its cancellation_details and metadata.`);
    }
    const at = now();
    subscription.status = "canceled";
    subscription.canceled_at = at;
    subscription.ended_at = at;
    subscription.cancellation_details = {
      comment: null,
      feedback: null,
      feedback_option: null,
      reason: "cancellation_requested",
    };
    const invoice = this.latestInvoice(subscription);
    if (invoice && invoice.status === "open") {
      invoice.status = "void";
      invoice.status_transitions.voided_at = at;
      this.emit("invoice.voided", invoice);
    }
    this.emit("customer.subscription.deleted", subscription);
    return subscription;
  }

  latestInvoice(subscription: Stripe.Subscription): Stripe.Invoice | undefined {
    const ref = subscription.latest_invoice;
    return typeof ref === "string" ? this.invoices.get(ref) : (ref ?? undefined);
  }

  invoiceBySecret(clientSecret: string): Stripe.Invoice | undefined {
    for (const invoice of this.invoices.values()) {
      if (invoice.confirmation_secret?.client_secret === clientSecret) return invoice;
    }
    return undefined;
  }

  /**
   * What Stripe.js's confirmPayment does with a card: the invoice is paid and the
   * subscription becomes active, or the card is declined (number 4000 0000 0000 0002).
   */
  confirmPayment(clientSecret: string, cardNumber = "4242424242424242"): { status: "succeeded"; id: string } {
    const invoice = this.invoiceBySecret(clientSecret);
    if (!invoice)
      throw new StripeHttpError(404, "invalid_request_error", "No such payment_intent.", "resource_missing");
    const paymentIntentId = clientSecret.split("_secret_")[0] ?? clientSecret;
    if (invoice.status === "paid") {
      throw new StripeHttpError(
        400,
        "invalid_request_error",
        "This PaymentIntent has already succeeded.",
        "payment_intent_unexpected_state",
      );
    }
    if (invoice.status !== "open") {
      throw new StripeHttpError(
        400,
        "invalid_request_error",
        "This PaymentIntent's invoice can no longer be paid.",
        "payment_intent_unexpected_state",
      );
    }
    const subscriptionId = invoice.parent?.subscription_details?.subscription;
    const subscription = subscriptionId
      ? this.subscriptions.get(typeof subscriptionId === "string" ? subscriptionId : subscriptionId.id)
      : undefined;
    invoice.attempt_count += 1;
    invoice.attempted = true;
    if (cardNumber.replace(/\D/g, "") === DECLINED_CARD) {
      this.emit("invoice.payment_failed", invoice);
      throw new StripeHttpError(402, "card_error", "Your card was declined.", "card_declined", undefined, {
        decline_code: "generic_decline",
        payment_intent: { id: paymentIntentId, status: "requires_payment_method" },
      });
    }
    const at = now();
    invoice.status = "paid";
    invoice.amount_paid = invoice.amount_due;
    invoice.amount_remaining = 0;
    invoice.status_transitions.paid_at = at;
    this.emit("invoice.paid", invoice);
    this.emit("invoice.payment_succeeded", invoice);
    if (subscription && subscription.status !== "active") {
      this.updateSubscription(subscription.id, { status: "active", default_payment_method: newId("pm") });
    }
    return { status: "succeeded", id: paymentIntentId };
  }

  /** Pays the subscription's open invoice (a shortcut for tests). */
  pay(subscriptionId: string): void {
    const invoice = this.latestInvoice(this.requireSubscription(subscriptionId));
    const secret = invoice?.confirmation_secret?.client_secret;
    if (!secret) throw new Error(`subscription ${subscriptionId} has no invoice to pay`);
    this.confirmPayment(secret);
  }

  /** A renewal whose card is declined: a new open invoice, payment_failed, and past_due. */
  failRenewal(subscriptionId: string): Stripe.Invoice {
    const subscription = this.requireSubscription(subscriptionId);
    const item = subscription.items.data[0];
    const start = item ? item.current_period_end : now();
    if (item) {
      item.current_period_start = start;
      item.current_period_end = start + MONTH;
    }
    const invoice = this.createInvoice(subscription, "subscription_cycle", start);
    subscription.latest_invoice = invoice.id;
    invoice.attempt_count = 1;
    invoice.attempted = true;
    invoice.next_payment_attempt = now() + 3 * 24 * 60 * 60;
    this.emit("invoice.payment_failed", invoice);
    this.updateSubscription(subscriptionId, { status: "past_due" });
    return invoice;
  }

  subscriptionsOf(customerId: string): Stripe.Subscription[] {
    return [...this.subscriptions.values()].filter((s) => s.customer === customerId);
  }

  customerByEmail(email: string): Stripe.Customer | undefined {
    return [...this.customers.values()].find((c) => c.email === email);
  }

  eventsOf(type: EventType, objectId?: string): Stripe.Event[] {
    return this.events.filter(
      (e) => e.type === type && (!objectId || (e.data.object as { id?: string }).id === objectId),
    );
  }

  // ---------------------------------------------------------------- events

  private emit<T extends EventType>(
    type: T,
    object: EventOf<T>["data"]["object"],
    previous?: EventOf<T>["data"]["previous_attributes"],
  ): EventOf<T> {
    // The generic union cannot be narrowed by TS here; `object` is checked by the signature above.
    const event = {
      id: newId("evt"),
      object: "event",
      api_version: FAKE_API_VERSION,
      created: now(),
      data: { object: toWire(object), ...(previous ? { previous_attributes: previous } : {}) },
      livemode: false,
      pending_webhooks: this.webhookUrl ? 1 : 0,
      request: { id: newId("req"), idempotency_key: null },
      type,
    } as unknown as EventOf<T>;
    this.events.push(event);
    if (this.autoDeliver && this.webhookUrl) {
      // Like Stripe: after the API call has answered, one event after the other.
      this.queue = this.queue.then(() =>
        this.deliver(event).then(
          () => undefined,
          () => undefined,
        ),
      );
    }
    return event;
  }

  /** The signed Stripe-Signature header for a payload (the SDK's own signing code). */
  sign(payload: string, secret = this.webhookSecret, timestamp?: number): Promise<string> {
    return this.signer.webhooks.generateTestHeaderStringAsync({ payload, secret, ...(timestamp ? { timestamp } : {}) });
  }

  /** POSTs an event to the webhook URL, signed (or with the given signature), and records the answer. */
  async deliver(
    event: Stripe.Event,
    options: { signature?: string; secret?: string; url?: string } = {},
  ): Promise<{ status: number; body: string }> {
    const url = options.url ?? this.webhookUrl;
    if (!url) throw new Error("no webhook URL set");
    const payload = JSON.stringify(event, null, 2);
    const signature = options.signature ?? (await this.sign(payload, options.secret));
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json; charset=utf-8",
        "Stripe-Signature": signature,
        "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
      },
      body: payload,
    });
    const body = await response.text();
    this.deliveries.push({ eventId: event.id, type: event.type, status: response.status, body });
    return { status: response.status, body };
  }

  /** Resolves when every automatically sent event has been delivered. */
  async settle(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.queue;
      await current;
    } while (current !== this.queue);
  }

  // ---------------------------------------------------------------- HTTP

  private render(object: unknown, expand: string[]): unknown {
    const wire = toWire(object) as Record<string, unknown>;
    this.stripIncludable(wire);
    for (const path of expand) this.expandPath(wire, path.split("."));
    return wire;
  }

  /** Fields Stripe includes only when expanded (`confirmation_secret`). */
  private stripIncludable(node: unknown) {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node) this.stripIncludable(item);
      return;
    }
    const obj = node as Record<string, unknown>;
    if (obj.object === "invoice") delete obj.confirmation_secret;
    for (const value of Object.values(obj)) this.stripIncludable(value);
  }

  private lookup(id: string): unknown {
    return (
      this.invoices.get(id) ??
      this.customers.get(id) ??
      this.subscriptions.get(id) ??
      this.prices.get(id) ??
      this.products.get(id)
    );
  }

  private expandPath(node: unknown, path: string[]) {
    const [key, ...rest] = path;
    if (!key || !node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node) this.expandPath(item, path);
      return;
    }
    const obj = node as Record<string, unknown>;
    if (key === "confirmation_secret" && obj.object === "invoice" && typeof obj.id === "string") {
      obj.confirmation_secret = toWire(this.invoices.get(obj.id)?.confirmation_secret ?? null);
      return;
    }
    let value = obj[key];
    if (typeof value === "string") {
      const found = this.lookup(value);
      if (!found) return;
      value = toWire(found);
      this.stripIncludable(value);
      obj[key] = value;
    }
    this.expandPath(value, rest);
  }

  private async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    const cors = {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Headers": "content-type",
      "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
    };
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
    if (path.startsWith("/portal/")) return this.portalPage(path.slice("/portal/".length));

    const text = request.method === "GET" || request.method === "DELETE" ? url.search.slice(1) : await request.text();
    const isJson = (request.headers.get("content-type") ?? "").includes("application/json");
    let params: Params;
    try {
      params = isJson && text ? (JSON.parse(text) as Params) : parseStripeForm(text);
    } catch {
      params = {};
    }
    const entry: RecordedRequest = {
      method: request.method,
      path,
      params,
      idempotencyKey: request.headers.get("idempotency-key"),
      stripeVersion: request.headers.get("stripe-version"),
      status: 0,
    };
    this.requests.push(entry);
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      return Response.json(body, { status, headers: { "Request-Id": newId("req"), ...headers } });
    };

    try {
      if (path.startsWith("/_fake/")) {
        if (request.method === "POST" && path === "/_fake/confirm_payment") {
          const secret = str(params, "client_secret") ?? "";
          const card = str(params, "card_number");
          return reply(200, this.confirmPayment(secret, card), cors);
        }
        throw missing("fake endpoint", path);
      }
      const auth = request.headers.get("authorization") ?? "";
      if (auth !== `Bearer ${this.secretKey}`) {
        throw new StripeHttpError(
          401,
          "invalid_request_error",
          "Invalid API Key provided: the fake Stripe server was given another key.",
        );
      }
      for (const [prefix, failure] of this.failures) {
        if (`${request.method} ${path}`.startsWith(prefix)) {
          throw new StripeHttpError(failure.status, "api_error", failure.message);
        }
      }
      const key = entry.idempotencyKey && request.method === "POST" ? `${path}|${entry.idempotencyKey}` : null;
      if (key) {
        const seen = this.idempotency.get(key);
        if (seen) {
          if (seen.params !== text) {
            throw new StripeHttpError(
              400,
              "idempotency_error",
              "Keys for idempotent requests can only be used with the same parameters they were first used with.",
            );
          }
          return reply(seen.status, seen.body, { "Idempotent-Replayed": "true" });
        }
      }
      const body = this.route(request.method, path, params);
      if (key) this.idempotency.set(key, { params: text, status: 200, body });
      return reply(200, body);
    } catch (error) {
      if (error instanceof StripeHttpError)
        return reply(error.status, error.body(), path.startsWith("/_fake/") ? cors : {});
      return reply(500, { error: { type: "api_error", message: String(error) } });
    }
  }

  private route(method: string, path: string, params: Params): unknown {
    const expand = list(params, "expand");
    const parts = path.split("/").filter(Boolean); // ["v1", resource, id?, action?]
    const [version, resource, id, action] = parts;
    if (version !== "v1") throw missing("endpoint", path);
    const route = `${method} ${resource}${id ? "/:id" : ""}${action ? `/${action}` : ""}`;

    switch (route) {
      case "POST customers":
        return this.render(this.createCustomer(params), expand);
      case "GET customers/:id": {
        const customer = this.customers.get(id as string);
        if (!customer) throw missing("customer", id as string);
        return this.render(customer, expand);
      }
      case "POST subscriptions":
        return this.render(this.createSubscription(params), expand);
      case "GET subscriptions/:id":
        return this.render(this.requireSubscription(id as string), expand);
      case "DELETE subscriptions/:id":
        return this.render(this.cancelSubscription(id as string), expand);
      case "GET subscriptions": {
        const customer = str(params, "customer");
        if (customer && !this.customers.has(customer)) throw missing("customer", customer, "customer");
        const status = str(params, "status");
        const limit = Number(str(params, "limit") ?? "10");
        const found = [...this.subscriptions.values()]
          .filter((s) => !customer || s.customer === customer)
          .filter((s) => (status === "all" ? true : status ? s.status === status : s.status !== "canceled"))
          .sort((a, b) => b.created - a.created || (b.id > a.id ? 1 : -1))
          .slice(0, limit);
        return this.render(apiList(found, "/v1/subscriptions"), expand);
      }
      case "GET invoices/:id": {
        const invoice = this.invoices.get(id as string);
        if (!invoice) throw missing("invoice", id as string);
        return this.render(invoice, expand);
      }
      case "POST billing_portal/:id": {
        if (id === "sessions") return this.render(this.createPortalSession(params), expand);
        if (id === "configurations") return this.render(this.createPortalConfiguration(params), expand);
        break;
      }
      case "GET billing_portal/:id": {
        if (id !== "configurations") break;
        const isDefault = bool(params, "is_default");
        const active = bool(params, "active");
        const found = [...this.portalConfigurations.values()].filter(
          (c) =>
            (isDefault === undefined || c.is_default === isDefault) && (active === undefined || c.active === active),
        );
        return this.render(apiList(found, "/v1/billing_portal/configurations"), expand);
      }
      case "POST products":
        return this.render(this.createProduct(params), expand);
      case "POST prices":
        return this.render(this.createPrice(params), expand);
      case "GET prices/:id": {
        const price = this.prices.get(id as string);
        if (!price) throw missing("price", id as string);
        return this.render(price, expand);
      }
      case "GET prices": {
        const keys = list(params, "lookup_keys");
        const active = bool(params, "active");
        const found = [...this.prices.values()].filter(
          (p) =>
            (keys.length === 0 || (p.lookup_key !== null && keys.includes(p.lookup_key))) &&
            (active === undefined || p.active === active),
        );
        return this.render(apiList(found, "/v1/prices"), expand);
      }
      case "POST webhook_endpoints":
        return this.render(this.createWebhookEndpoint(params), expand);
      case "GET webhook_endpoints":
        return this.render(
          apiList(
            [...this.webhookEndpoints.values()].map((e) => ({ ...e, secret: undefined })),
            "/v1/webhook_endpoints",
          ),
          expand,
        );
    }
    throw missing("endpoint", `${method} ${path}`);
  }

  createPortalSession(params: Params): Stripe.BillingPortal.Session {
    const customer = str(params, "customer");
    if (!customer || !this.customers.has(customer)) throw missing("customer", customer ?? "", "customer");
    const configuration = [...this.portalConfigurations.values()].find((c) => c.is_default);
    if (!configuration) {
      throw invalid(
        "No configuration provided and your test mode default configuration has not been created. Provide a configuration or create your default by saving your customer portal settings in test mode at https://dashboard.stripe.com/test/settings/billing/portal.",
      );
    }
    const id = newId("bps");
    const session: Stripe.BillingPortal.Session = {
      id,
      object: "billing_portal.session",
      configuration: configuration.id,
      created: now(),
      customer,
      customer_account: null,
      flow: null,
      livemode: false,
      locale: null,
      on_behalf_of: null,
      return_url: str(params, "return_url") ?? configuration.default_return_url,
      url: `${this.url}/portal/${id}`,
    };
    this.portalSessions.set(id, session);
    return session;
  }

  createWebhookEndpoint(params: Params): Stripe.WebhookEndpoint {
    const url = str(params, "url");
    if (!url) throw invalid("Missing required param: url.", "url");
    const endpoint: Stripe.WebhookEndpoint = {
      id: newId("we"),
      object: "webhook_endpoint",
      api_version: str(params, "api_version") ?? null,
      application: null,
      created: now(),
      description: str(params, "description") ?? null,
      enabled_events: list(params, "enabled_events"),
      livemode: false,
      metadata: record(params, "metadata"),
      secret: `whsec_${crypto.randomUUID().replaceAll("-", "")}`,
      status: "enabled",
      url,
    };
    this.webhookEndpoints.set(endpoint.id, endpoint);
    return endpoint;
  }

  /** A stand-in for Stripe's hosted portal: enough to see where the browser went. */
  private portalPage(id: string): Response {
    const session = this.portalSessions.get(id);
    if (!session) return new Response("Not found", { status: 404 });
    const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
    const customer = this.customers.get(session.customer);
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Billing portal (fake Stripe)</title></head>
<body><main><h1>Billing portal</h1><p>Customer: ${esc(customer?.email ?? session.customer)}</p>
<p><a href="${esc(session.return_url ?? "/")}">Return to ${esc(PRODUCT_NAME)}</a></p></main></body></html>`;
    return new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } });
  }
}

/** Starts a fake Stripe on loopback (a free port unless one is given). */
export async function startFakeStripe(options: FakeStripeOptions = {}): Promise<FakeStripe> {
  return new FakeStripe(options).listen(options.port ?? 0, options.hostname ?? "127.0.0.1");
}
