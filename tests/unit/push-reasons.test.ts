/**
 * Issue 51 §9 (src/lib/push-subscribe.ts): why turning push on failed, as a table of what the
 * browser throws at each step, and the 15 s limit.
 */
import { expect, test } from "bun:test";
import {
  PUSH_REASONS,
  PUSH_WAIT_MS,
  PushSetupError,
  pushFailureReason,
  withinLimit,
} from "../../src/lib/push-subscribe";

const dom = (name: string) => new DOMException("browser says no", name);

test.each<[string, unknown, "worker" | "subscribe" | "other", keyof typeof PUSH_REASONS]>([
  ["a private window refuses the worker (SecurityError)", dom("SecurityError"), "worker", "private"],
  ["a private window refuses the worker (InvalidStateError)", dom("InvalidStateError"), "worker", "private"],
  ["no push service (AbortError)", dom("AbortError"), "subscribe", "noService"],
  ["no push service (NotSupportedError)", dom("NotSupportedError"), "subscribe", "noService"],
  ["permission withdrawn at subscribe (NotAllowedError)", dom("NotAllowedError"), "subscribe", "blocked"],
  ["our own reason passes through", new PushSetupError("blocked"), "other", "blocked"],
  ["anything else at the worker", new TypeError("x"), "worker", "generic"],
  ["an AbortError outside subscribe", dom("AbortError"), "worker", "generic"],
  ["a plain string", "boom", "subscribe", "generic"],
])("%s", (_what, error, step, reason) => {
  expect(pushFailureReason(error, step)).toBe(reason);
});

test("the reasons are the issue's words", () => {
  expect(PUSH_REASONS).toEqual({
    private: "Push isn't available in private windows",
    blocked: "Your browser blocked notifications for this site",
    noService: "This browser has no push service: use e-mail instead",
    generic: "Could not turn on push notifications",
  });
  expect(PUSH_WAIT_MS).toBe(15_000);
});

test("withinLimit: an answer in time passes; none in time is the generic reason", async () => {
  expect(await withinLimit(Promise.resolve(7), 50)).toBe(7);
  const never = new Promise<number>(() => undefined);
  const error = await withinLimit(never, 5).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PushSetupError);
  expect((error as PushSetupError).message).toBe(PUSH_REASONS.generic);
});
