/**
 * Web Push (issue 39): the VAPID key pair, the browsers' subscriptions, and one push sent
 * (`web-push` signs the VAPID JWT and encrypts the payload, aes128gcm; we send it, under our
 * own deadline and answer bound, issue 45).
 *
 *   GET    /api/push/key                 { publicKey }
 *   POST   /api/push/subscriptions       PushSubscription.toJSON() -> 201 { id } (upsert by endpoint;
 *                                         the endpoint on a PUSH_HOSTS host, else 400)
 *   DELETE /api/push/subscriptions/{id}  204, only one's own
 */
import https from "node:https";
import { and, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { LRUCache } from "lru-cache";
import webpush from "web-push";
import type { Db } from "../../db/client";
import { appKeys, pushSubscriptions } from "../../db/schema";
import { MAX_PUSH_DEVICES, pushSubscriptionSchemaFor } from "../../src/lib/reminders";
import { deviceName } from "../../src/lib/user-agent";
import { now } from "../lib/clock";
import type { Config } from "../lib/config";
import { type AppEnv, requireUser } from "../lib/env";
import { notFound, readJson, unauthorized } from "../lib/http";
import { log } from "../lib/log";
import { drainBounded, withDeadline } from "../lib/outbound";
import type { AppContext } from "../lib/types";

export interface Vapid {
  publicKey: string;
  privateKey: string;
  subject: string;
}

const VAPID_ROW = "vapid";
const KEY = Symbol.for("stacktrack.vapid");
type Holder = { [KEY]?: Promise<Vapid> };

/** A contact for push services when VAPID_SUBJECT is unset: MAIL_FROM's address. */
function defaultSubject(config: Config): string {
  const address = config.MAIL_FROM.match(/<([^>]+)>/)?.[1] ?? config.MAIL_FROM;
  return `mailto:${address.trim()}`;
}

/**
 * The VAPID pair: from the environment, else the one stored in the database, else a new pair
 * stored there first (every instance agrees on the first one written). Never logs the private key.
 */
async function loadVapid(ctx: Pick<AppContext, "config" | "database">): Promise<Vapid> {
  const { config } = ctx;
  const subject = config.VAPID_SUBJECT ?? defaultSubject(config);
  if (config.VAPID_PUBLIC_KEY && config.VAPID_PRIVATE_KEY) {
    return { publicKey: config.VAPID_PUBLIC_KEY, privateKey: config.VAPID_PRIVATE_KEY, subject };
  }
  const db = ctx.database.db;
  const fresh = webpush.generateVAPIDKeys();
  const inserted = await db
    .insert(appKeys)
    .values({ name: VAPID_ROW, value: JSON.stringify(fresh) })
    .onConflictDoNothing()
    .returning({ name: appKeys.name });
  if (inserted.length > 0)
    log.info("VAPID key pair generated and stored in the database", { publicKey: fresh.publicKey });
  const [row] = await db.select({ value: appKeys.value }).from(appKeys).where(eq(appKeys.name, VAPID_ROW));
  if (!row) throw new Error("the VAPID key pair could not be stored");
  const stored = JSON.parse(row.value) as { publicKey: string; privateKey: string };
  return { ...stored, subject };
}

/** The instance's VAPID pair, loaded once. */
export function vapidOf(ctx: Pick<AppContext, "config" | "database">): Promise<Vapid> {
  const holder = ctx as Holder;
  holder[KEY] ??= loadVapid(ctx).catch((error) => {
    delete holder[KEY];
    throw error;
  });
  return holder[KEY];
}

export interface PushTarget {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

export type PushOutcome = "sent" | "gone" | "failed";

export interface PushOptions {
  /** Seconds the push service keeps an undelivered message. */
  ttl: number;
  /** Replaces an undelivered message with the same topic (a retry replaces its twin). */
  topic: string;
  /** The whole exchange's deadline (config OUTBOUND_TIMEOUT_MS). */
  deadlineMs: number;
}

/** A VAPID JWT lives 12 h (web-push's default); a signed one is reused for 11 h. */
const JWT_SECONDS = 12 * 3600;
const signed = new LRUCache<string, string>({ max: 100, ttl: (JWT_SECONDS - 3600) * 1000 });

/**
 * The VAPID `Authorization` header for `endpoint`'s push service. The JWT names only the
 * service's origin, the subject and an expiry, so one ES256 signature serves every message to
 * that origin for hours (signing per message was half of the sender's CPU). The expiry is
 * judged by the push service's clock: it follows the process clock, not api/clock.ts.
 */
export function vapidAuthorization(vapid: Vapid, endpoint: string): string {
  const audience = new URL(endpoint).origin;
  const key = `${vapid.publicKey} ${vapid.subject} ${audience}`;
  const cached = signed.get(key);
  if (cached) return cached;
  const exp = Math.floor(Date.now() / 1000) + JWT_SECONDS;
  const header = webpush.getVapidHeaders(audience, vapid.subject, vapid.publicKey, vapid.privateKey, "aes128gcm", exp);
  signed.set(key, header.Authorization);
  return header.Authorization;
}

/** Bytes of a push service's answer read at most (its status says everything we need). */
export const PUSH_ANSWER_BYTES = 4096;

/**
 * The TLS options for push services: the global agent's CA list when one was set (the tests'
 * local push service), else the system's. fetch keeps connections to each service open.
 */
const tlsOptions = () => {
  const ca = https.globalAgent.options.ca;
  return ca ? { tls: { ca } } : {};
};

/**
 * Sends one encrypted push (web-push encrypts it, aes128gcm, and builds the request) with our
 * own transport: the whole exchange within `options.deadlineMs` (api/lib/outbound.ts: a signal and
 * a race), at most PUSH_ANSWER_BYTES of the answer read, no redirect followed. The status
 * decides: 2xx sent; 404/410 the subscription is gone (the caller deletes it); anything else,
 * a deadline or a broken connection, failed (the caller retries).
 */
export async function sendPush(
  vapid: Vapid,
  target: PushTarget,
  payload: unknown,
  options: PushOptions,
): Promise<PushOutcome> {
  try {
    const request = webpush.generateRequestDetails(
      { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
      JSON.stringify(payload),
      {
        // The signed header instead of `vapidDetails`: web-push then signs nothing itself.
        headers: { Authorization: vapidAuthorization(vapid, target.endpoint) },
        TTL: options.ttl,
        urgency: "high",
        topic: options.topic,
      },
    );
    const status = await withDeadline(options.deadlineMs, async (signal) => {
      const answer = await fetch(request.endpoint, {
        method: request.method,
        headers: request.headers as unknown as Record<string, string>,
        body: request.body as Buffer<ArrayBuffer> | null,
        redirect: "manual",
        signal,
        ...tlsOptions(),
      });
      // The rest of a small answer is read so the connection can carry the next push; a long,
      // slow or cut-short one is dropped (and its connection with it), never waited for.
      void drainBounded(answer.body, PUSH_ANSWER_BYTES, options.deadlineMs);
      return answer.status;
    });
    if (status >= 200 && status < 300) return "sent";
    if (status === 404 || status === 410) return "gone";
    log.warn("push delivery failed", { status, error: "status" });
    return "failed";
  } catch (error) {
    // Never log the endpoint (a capability URL) or the body.
    log.warn("push delivery failed", { status: null, error: (error as Error).name });
    return "failed";
  }
}

/** After a round of pushes: used subscriptions are stamped, gone ones deleted. */
export async function recordPushOutcomes(db: Db, used: string[], gone: string[]) {
  if (used.length > 0) {
    await db.execute(
      sql`update ${pushSubscriptions} set last_used_at = ${now().toISOString()}::timestamptz
        where id in (select jsonb_array_elements_text(${JSON.stringify(used)}::jsonb))`,
    );
  }
  if (gone.length > 0) {
    await db.execute(
      sql`delete from ${pushSubscriptions} where id in (select jsonb_array_elements_text(${JSON.stringify(gone)}::jsonb))`,
    );
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const pushRoutes = new Hono<AppEnv>()
  .get("/push/key", async (c) => {
    const { publicKey } = await vapidOf(c.get("ctx"));
    return c.json({ publicKey });
  })
  .post("/push/subscriptions", async (c) => {
    const user = await requireUser(c);
    const { config, database } = c.get("ctx");
    // Only at the push services' hosts (PUSH_HOSTS, issue 45): never loopback, private or link-local.
    const input = await readJson(c, pushSubscriptionSchemaFor(config.PUSH_HOSTS));
    const db = database.db;
    const label = deviceName(c.req.header("user-agent"));
    // Tied to this browser's session (issue 45): ending it removes the subscription. Every
    // dashboard load sends the subscription again (src/lib/push-client.ts), so a new session
    // (a password change that ended the others) ties it again.
    const found = await c.get("ctx").auth.api.getSession({ headers: c.req.raw.headers });
    if (!found) throw unauthorized();
    const sessionId = found.session.id;
    // One row per endpoint: the same browser again updates its keys (and owner, if another
    // account signed in on it), never adds a second row.
    const [row] = await db
      .insert(pushSubscriptions)
      .values({
        id: crypto.randomUUID(),
        userId: user.id,
        endpoint: input.endpoint,
        p256dh: input.keys.p256dh,
        auth: input.keys.auth,
        label,
        sessionId,
        createdAt: now(),
      })
      .onConflictDoUpdate({
        target: pushSubscriptions.endpoint,
        set: {
          userId: user.id,
          p256dh: input.keys.p256dh,
          auth: input.keys.auth,
          label,
          sessionId,
        },
      })
      .returning({ id: pushSubscriptions.id });
    if (!row) throw new Error("upsert returned no row");
    // Bounded work per user: only the newest MAX_PUSH_DEVICES stay.
    await db.execute(sql`delete from ${pushSubscriptions} where user_id = ${user.id} and id not in (
      select id from ${pushSubscriptions} where user_id = ${user.id} order by created_at desc, id limit ${MAX_PUSH_DEVICES})`);
    return c.json({ id: row.id }, 201);
  })
  .delete("/push/subscriptions/:id", async (c) => {
    const user = await requireUser(c);
    const id = c.req.param("id");
    if (!UUID.test(id)) throw notFound("Device not found");
    const deleted = await c
      .get("ctx")
      .database.db.delete(pushSubscriptions)
      .where(and(eq(pushSubscriptions.id, id), eq(pushSubscriptions.userId, user.id)))
      .returning({ id: pushSubscriptions.id });
    if (deleted.length === 0) throw notFound("Device not found");
    return c.body(null, 204);
  });
