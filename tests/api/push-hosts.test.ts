/**
 * Issue 45, "Push endpoints only at push services": POST /api/push/subscriptions takes an
 * endpoint only on a PUSH_HOSTS host, https on 443 (400 naming `endpoint`, nothing written,
 * otherwise); a row stored elsewhere (before the list) is never sent to; and the test reminder's
 * answer says how many devices it went to, never how each push service answered.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { reminderRound, senderDeps } from "../../api/reminders/worker";
import { pushSubscriptions } from "../../db/schema";
import { PUSH_HOST_MESSAGE } from "../../src/lib/push-hosts";
import { REMINDER_MESSAGES } from "../../src/lib/reminders";
import { type PushService, startPushService, type TestSubscription } from "../fakes/push-service";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser } from "../support/users";

let strict: TestApi; // the default PUSH_HOSTS: the local push service is not on it
let open: TestApi; // the test list: the defaults and the local push service's port
let push: PushService;

beforeAll(async () => {
  push = await startPushService();
  push.trustInProcess();
  [strict, open] = await Promise.all([startApi(), startApi(push.caEnv)]);
});
afterAll(async () => {
  await Promise.all([strict?.close(), open?.close()]);
  await push?.close();
});

const keys = () => push.subscription().keys;
const subscribe = (api: TestApi, user: ApiUser, endpoint: string) =>
  api.fetch("/api/push/subscriptions", {
    method: "POST",
    body: { endpoint, expirationTime: null, keys: keys() },
    headers: { cookie: user.cookie },
  });
const rowsOf = (api: TestApi, user: ApiUser) =>
  api.ctx.database.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, user.id));

describe("POST /api/push/subscriptions on the default list", () => {
  const local = () => new URL(push.url);
  const refused: [string, () => string][] = [
    ["the local push service (loopback, a port)", () => push.subscription().endpoint],
    ["loopback", () => "https://127.0.0.1/push/a"],
    ["loopback as 127.1", () => "https://127.1/push/a"],
    ["loopback as a number", () => "https://2130706433/push/a"],
    ["localhost", () => "https://localhost/push/a"],
    ["IPv6 loopback", () => "https://[::1]/push/a"],
    ["IPv4-mapped loopback", () => "https://[::ffff:7f00:1]/push/a"],
    ["link-local metadata", () => "https://169.254.169.254/latest/meta-data"],
    ["10/8", () => "https://10.1.2.3/push"],
    ["172.16/12", () => "https://172.20.0.1/push"],
    ["192.168/16", () => "https://192.168.0.10/push"],
    ["IPv6 unique local", () => "https://[fd12::1]/push"],
    ["user-info naming FCM", () => "https://fcm.googleapis.com@127.0.0.1/fcm/send/a"],
    ["user-info on FCM", () => "https://x:y@fcm.googleapis.com/fcm/send/a"],
    ["a trailing dot", () => "https://fcm.googleapis.com./fcm/send/a"],
    ["FCM as a suffix", () => "https://fcm.googleapis.com.evil.example/fcm/send/a"],
    ["a punycode look-alike", () => "https://fсm.googleapis.com/fcm/send/a"],
    ["two labels under the wildcard", () => "https://a.b.notify.windows.com/w/"],
    ["another port", () => "https://fcm.googleapis.com:8443/fcm/send/a"],
    ["the local service's port on FCM's name", () => `https://fcm.googleapis.com:${local().port}/fcm/send/a`],
    ["http", () => "http://fcm.googleapis.com/fcm/send/a"],
  ];
  for (const [what, endpoint] of refused) {
    test(`${what}: 400 naming endpoint, nothing written`, async () => {
      const user = await createUser(strict);
      const res = await subscribe(strict, user, endpoint());
      expect(res.status).toBe(400);
      const body = (await res.json()) as { message: string; errors: Record<string, string[]> };
      // http is refused by the schema's own https rule too (its message first).
      expect(body.message).toBe(what === "http" ? REMINDER_MESSAGES.subscription : PUSH_HOST_MESSAGE);
      expect(Object.keys(body.errors)).toEqual(["endpoint"]);
      expect(body.errors.endpoint).toContain(PUSH_HOST_MESSAGE);
      expect(await rowsOf(strict, user)).toEqual([]);
    });
  }

  const accepted = [
    "https://fcm.googleapis.com/fcm/send/dXbc:APA91bH",
    "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABl",
    "https://web.push.apple.com/QGm1aXBvc3Q",
    "https://db5p.notify.windows.com/w/?token=BQYAAAB",
    "https://FCM.googleapis.COM:443/fcm/send/upper",
  ];
  for (const endpoint of accepted) {
    test(`${endpoint}: 201`, async () => {
      const user = await createUser(strict);
      expect((await subscribe(strict, user, endpoint)).status).toBe(201);
      expect((await rowsOf(strict, user)).length).toBe(1);
    });
  }
});

describe("a stored row at a host not on the list", () => {
  test("is never sent to: not by a test reminder, not by a round", async () => {
    const user = await createUser(strict);
    const sub = push.subscription();
    await strict.ctx.database.db.insert(pushSubscriptions).values({
      id: crypto.randomUUID(),
      userId: user.id,
      endpoint: sub.endpoint,
      p256dh: sub.keys.p256dh,
      auth: sub.keys.auth,
      label: "Chrome on Linux",
    });
    const on = await strict.fetch("/api/reminders", {
      method: "PUT",
      body: { push: true },
      headers: { cookie: user.cookie },
    });
    expect(on.status).toBe(200);
    push.received.length = 0;
    const res = await strict.fetch("/api/reminders/test", { method: "POST", headers: { cookie: user.cookie } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ push: 0, email: false });
    await reminderRound(senderDeps(strict.ctx));
    expect(push.received.length).toBe(0);
    expect(push.stats.connections).toBe(0);
  });
});

describe("the test reminder's answer", () => {
  type Outcome = "delivered" | "gone" | "failing";
  const table: Outcome[][] = [
    ["delivered"],
    ["gone"],
    ["failing"],
    ["delivered", "gone"],
    ["delivered", "failing"],
    ["delivered", "gone", "failing"],
  ];
  for (const outcomes of table) {
    test(`devices ${outcomes.join(", ")}: { push: ${outcomes.length} }, whatever each answered`, async () => {
      const user = await createUser(open);
      const subs: TestSubscription[] = [];
      for (const outcome of outcomes) {
        const sub = push.subscription();
        expect(
          (
            await open.fetch("/api/push/subscriptions", {
              method: "POST",
              body: sub as never,
              headers: { cookie: user.cookie },
            })
          ).status,
        ).toBe(201);
        if (outcome === "gone") push.gone(sub);
        if (outcome === "failing") push.failNext(sub, 10);
        subs.push(sub);
      }
      const cookie = { cookie: user.cookie };
      expect(
        (await open.fetch("/api/reminders", { method: "PUT", body: { push: true }, headers: cookie })).status,
      ).toBe(200);
      const res = await open.fetch("/api/reminders/test", { method: "POST", headers: cookie });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ push: outcomes.length, email: false });
    });
  }
});
