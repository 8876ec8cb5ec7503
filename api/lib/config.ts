/**
 * Typed configuration: every environment variable the server reads is parsed
 * here, once, at start. A wrong or missing required value stops the start with
 * a message that names the variable.
 */
import { z } from "zod";
import { PRODUCT_NAME } from "../../src/lib/constants";
import { DEFAULT_PUSH_HOSTS, parsePushHosts } from "../../src/lib/push-hosts";
import { MAX_PROXY_HOPS } from "./client-address";

/**
 * The caches' sizes in megabytes by default (the one place they are written; .env.example
 * lists them commented out): with the cards' 8 MB (api/sharing/card.ts), 96 MB together.
 */
export const CACHE_MB_DEFAULTS = { PROFILE_CACHE_MB: 32, IMAGE_CACHE_MB: 32, USER_CACHE_MB: 24 } as const;

/** SHUTDOWN_DRAIN_SECONDS' default: above the proxy's 2 s health interval in deploy/Caddyfile, with room. */
export const DEFAULT_DRAIN_SECONDS = 5;

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();

const optionalUrl = (what: string) => optionalString.pipe(z.url({ message: `must be a URL (${what})` }).optional());

const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    HOST: z.string().trim().min(1).default("0.0.0.0"),
    PORT: z.coerce.number().int().min(0).max(65535).default(4321),
    /** Public origin of the site, used for links, cookies and the origin check. */
    PUBLIC_ORIGIN: optionalUrl("the site's public origin, e.g. https://stacktrack.app"),
    /** Postgres connection string; when absent an embedded PGlite database is used. */
    DATABASE_URL: optionalString.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
        .optional(),
    ),
    /** Folder of the embedded database (only without DATABASE_URL). */
    DATA_DIR: z.string().trim().min(1).default("./data"),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
    /**
     * Milliseconds any one statement the app sends may run on Postgres (statement_timeout), so
     * that nothing a request starts outlives it by more than this; PGlite has no such timer
     * (SECURITY.md "Bounds on work per request").
     */
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
    /** Secret that signs session cookies; required in production. */
    BETTER_AUTH_SECRET: optionalString.pipe(z.string().min(32, "must be at least 32 characters").optional()),
    GITHUB_CLIENT_ID: optionalString,
    GITHUB_CLIENT_SECRET: optionalString,
    GOOGLE_CLIENT_ID: optionalString,
    GOOGLE_CLIENT_SECRET: optionalString,
    /** smtp:// or smtps:// URL; without it password-reset links are written to the log. */
    SMTP_URL: optionalString.pipe(
      z
        .string()
        .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL")
        .optional(),
    ),
    MAIL_FROM: z.string().trim().min(3).default(`${PRODUCT_NAME} <no-reply@stacktrack.local>`),
    /** The address /privacy and /terms give for questions and requests (issue 38). */
    CONTACT_EMAIL: optionalString.pipe(z.email("must be an e-mail address").optional()),
    STRIPE_SECRET_KEY: optionalString,
    PUBLIC_STRIPE_PUBLISHABLE_KEY: optionalString,
    STRIPE_WEBHOOK_SECRET: optionalString,
    STRIPE_PRICE_ID: optionalString,
    /** Where the Stripe SDK sends requests (a local Stripe-compatible server in tests). */
    STRIPE_API_BASE: optionalUrl("e.g. http://127.0.0.1:12111"),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
    /**
     * How many proxies in front of the app append to X-Forwarded-For: the client is the
     * entry that many places from the right (api/lib/client-address.ts). `true` = 1, `false` = 0.
     */
    TRUST_PROXY: z
      .string()
      .trim()
      .default("false")
      .transform((value, ctx) => {
        if (value === "" || value === "false") return 0;
        if (value === "true") return 1;
        const hops = /^\d{1,2}$/.test(value) ? Number(value) : Number.NaN;
        if (hops >= 0 && hops <= MAX_PROXY_HOPS) return hops;
        ctx.addIssue({
          code: "custom",
          message: `must be true, false or the number of proxies in front of the app (0 to ${MAX_PROXY_HOPS})`,
        });
        return z.NEVER;
      }),
    /** Seconds an instance remembers a verified session (ended sessions are forgotten at once). */
    SESSION_COOKIE_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
    /**
     * Megabytes of kept public answers (pages, their JSON, cards, QR codes, /go) an instance holds
     * (server/cache.ts). The defaults of the three *_CACHE_MB and the cards' 8 MB add up to 96 MB.
     */
    PROFILE_CACHE_MB: z.coerce.number().min(0).max(65536).default(CACHE_MB_DEFAULTS.PROFILE_CACHE_MB),
    /** Megabytes of uploaded avatars an instance keeps in memory (about 1,300 of 25 KB at 32); 0: none. */
    IMAGE_CACHE_MB: z.coerce.number().min(0).max(65536).default(CACHE_MB_DEFAULTS.IMAGE_CACHE_MB),
    /** Megabytes of user rows and verified sessions an instance keeps in memory (api/lib/cache.ts). */
    USER_CACHE_MB: z.coerce.number().min(0).max(65536).default(CACHE_MB_DEFAULTS.USER_CACHE_MB),
    /**
     * Seconds an instance keeps serving after SIGTERM, its health check answering 503, so
     * that the proxy takes it out of rotation first (server/shutdown.ts). Longer than the
     * proxy's health interval (2 s in deploy/Caddyfile); 0 stops at once.
     */
    SHUTDOWN_DRAIN_SECONDS: z
      .string()
      .trim()
      .default("")
      .transform((value, ctx) => {
        if (value === "") return DEFAULT_DRAIN_SECONDS;
        const seconds = /^\d{1,3}(\.\d{1,3})?$/.test(value) ? Number(value) : Number.NaN;
        if (seconds >= 0 && seconds <= 300) return seconds;
        ctx.addIssue({ code: "custom", message: "must be a number of seconds from 0 to 300" });
        return z.NEVER;
      }),
    /** How often (ms) views and clicks counted in memory go to Postgres; 0: only at shutdown (tests). */
    INSIGHTS_FLUSH_MS: z.coerce.number().int().min(0).max(5000).default(5000),
    /**
     * Web Push (issue 39): the VAPID key pair (base64url, as web-push's generateVAPIDKeys
     * gives) and a contact (mailto: or https:). Without them the embedded default makes a
     * pair once and keeps it in the database.
     */
    VAPID_PUBLIC_KEY: optionalString.pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{87}$/, "must be a base64url P-256 public key (87 characters)")
        .optional(),
    ),
    VAPID_PRIVATE_KEY: optionalString.pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{43}$/, "must be a base64url P-256 private key (43 characters)")
        .optional(),
    ),
    VAPID_SUBJECT: optionalString.pipe(
      z
        .string()
        .regex(/^(mailto:\S+@\S+|https:\/\/\S+)$/, "must be a mailto: or https: URL")
        .optional(),
    ),
    /**
     * The most milliseconds any one call to another system (a push service, Stripe) may take,
     * connection, answer and body together (api/lib/outbound.ts); SECURITY.md "Calls to other systems".
     */
    OUTBOUND_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(10_000),
    /**
     * Issue 45: the hosts push endpoints may be at (src/lib/push-hosts.ts), comma-separated:
     * `name`, `*.name` (one more label) or `name:port`; https on port 443 unless a port is named.
     */
    PUSH_HOSTS: z
      .string()
      .trim()
      .default("")
      .transform((value, ctx) => {
        if (value === "") return [...DEFAULT_PUSH_HOSTS] as readonly string[];
        try {
          return parsePushHosts(value) as readonly string[];
        } catch (error) {
          ctx.addIssue({ code: "custom", message: (error as Error).message });
          return z.NEVER;
        }
      }),
    /** How often (ms) an instance plans and sends due reminders; 0: never (tests drive it). */
    REMINDER_TICK_MS: z.coerce.number().int().min(0).max(600_000).default(5000),
    /**
     * Tests only (NODE_ENV=test): a file holding the instant (ms since the epoch) the
     * instance's clock reads (api/lib/clock.ts), so separate processes share a moved clock.
     */
    TEST_CLOCK_FILE: optionalString,
    /** Turns the rate limits off (tests that are not about them). */
    RATE_LIMIT: z.enum(["on", "off"]).default("on"),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === "production" && !env.BETTER_AUTH_SECRET) {
      ctx.addIssue({
        code: "custom",
        path: ["BETTER_AUTH_SECRET"],
        message: "is required in production (at least 32 random characters)",
      });
    }
    if (env.TEST_CLOCK_FILE && env.NODE_ENV !== "test") {
      ctx.addIssue({ code: "custom", path: ["TEST_CLOCK_FILE"], message: "is for tests only (NODE_ENV=test)" });
    }
    const pairs = [
      ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET"],
      ["GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"],
      ["VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY"],
    ] as const;
    for (const [a, b] of pairs) {
      if (Boolean(env[a]) !== Boolean(env[b])) {
        ctx.addIssue({
          code: "custom",
          path: [env[a] ? b : a],
          message: `must be set together with ${env[a] ? a : b}`,
        });
      }
    }
    const stripe = [
      "STRIPE_SECRET_KEY",
      "PUBLIC_STRIPE_PUBLISHABLE_KEY",
      "STRIPE_WEBHOOK_SECRET",
      "STRIPE_PRICE_ID",
    ] as const;
    const set = stripe.filter((k) => env[k]);
    if (set.length > 0 && set.length < stripe.length) {
      for (const k of stripe.filter((k) => !env[k])) {
        ctx.addIssue({
          code: "custom",
          path: [k],
          message: `is required when ${set.join(", ")} ${set.length === 1 ? "is" : "are"} set`,
        });
      }
    }
  });

export type Env = z.infer<typeof envSchema>;

/** Every environment variable the server reads (deploy/env.example lists the production ones). */
export const CONFIG_VARIABLES = Object.keys(envSchema.shape) as (keyof Env)[];

export interface Config extends Env {
  origin: string;
  production: boolean;
  authSecret: string;
  billingEnabled: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** A fixed secret for development and tests only; production refuses to start without its own. */
const DEV_SECRET = "stacktrack-development-secret-not-for-production-use";

export function parseConfig(source: Record<string, string | undefined>): Config {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join(".") || "(environment)"} ${issue.message}`),
    );
  }
  const env = result.data;
  const origin = (env.PUBLIC_ORIGIN ?? `http://localhost:${env.PORT}`).replace(/\/+$/, "");
  return {
    ...env,
    origin,
    production: env.NODE_ENV === "production",
    authSecret: env.BETTER_AUTH_SECRET ?? DEV_SECRET,
    billingEnabled: Boolean(env.STRIPE_SECRET_KEY),
  };
}
