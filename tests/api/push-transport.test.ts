/**
 * One push (api/reminders/push.ts sendPush) under our own bounds (issue 45): whatever the push service
 * does (cuts its answer short, trickles it, never answers, answers 150 MB), the call settles by
 * the deadline with an outcome, and reads at most a few KB. The well-behaved service still gets
 * a decryptable push, and 404/410 still mean gone. A call that never settled would fail this
 * file by its test timeout (no timing is asserted).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import webpush from "web-push";
import { type PushOutcome, sendPush, type Vapid } from "../../api/reminders/push";
import { type Fault, type PushService, startPushService, type TestSubscription } from "../fakes/push-service";

let push: PushService;
const keys = webpush.generateVAPIDKeys();
const vapid: Vapid = { ...keys, subject: "mailto:test@example.com" };
const DEADLINE_MS = 600;

beforeAll(async () => {
  push = await startPushService();
  push.trustInProcess();
});
afterAll(async () => {
  await push?.close();
});

const send = (sub: TestSubscription) =>
  sendPush(
    vapid,
    { id: "t", endpoint: sub.endpoint, p256dh: sub.keys.p256dh, auth: sub.keys.auth },
    { title: "Morning: 1 supplement" },
    { ttl: 60, topic: "morning-20260601", deadlineMs: DEADLINE_MS },
  );

const CASES: [string, () => TestSubscription, PushOutcome][] = [
  ["201 from a service that behaves: sent", () => push.subscription(), "sent"],
  ["201, Content-Length 1000, two bytes, then closed: sent", () => push.faulty("cut"), "sent"],
  ["201, Content-Length 1000, then a byte every 200 ms: sent", () => push.faulty("trickle"), "sent"],
  ["no answer at all: failed at the deadline", () => push.faulty("stall"), "failed"],
  ["400 with a 150 MB body: failed, a few KB read", () => push.faulty("huge"), "failed"],
  [
    "410 Gone: gone",
    () => {
      const sub = push.subscription();
      push.gone(sub);
      return sub;
    },
    "gone",
  ],
  [
    "500: failed",
    () => {
      const sub = push.subscription();
      push.failNext(sub, 1);
      return sub;
    },
    "failed",
  ],
];

test.each(CASES)("%s", async (_, make, outcome) => {
  const sub = make();
  const before = push.received.length;
  push.faults.written = 0;
  expect(await send(sub)).toBe(outcome);
  await Bun.sleep(50);
  // What a faulty endpoint could write before the app hung up: a few socket buffers, never 150 MB.
  expect(push.faults.written).toBeLessThan(32 * 1024 * 1024);
  if (outcome === "sent" && sub.endpoint.startsWith(push.url)) {
    expect(push.received.length).toBe(before + 1);
    expect(push.received.at(-1)?.payload).toEqual({ title: "Morning: 1 supplement" });
  }
});

test("many at once to endpoints that hang: each settles, and the answer bytes read stay small", async () => {
  const faults: Fault[] = ["cut", "trickle", "stall", "huge", "stall", "huge"];
  push.faults.written = 0;
  const outcomes = await Promise.all(faults.map((f) => send(push.faulty(f))));
  expect(outcomes).toEqual(["sent", "sent", "failed", "failed", "failed", "failed"]);
  // Two 150 MB answers were offered; what reached this process before it hung up is a few socket buffers.
  await Bun.sleep(100);
  console.log(`answer bytes the faulty endpoints wrote: ${push.faults.written}`);
  expect(push.faults.written).toBeLessThan(64 * 1024 * 1024);
});
