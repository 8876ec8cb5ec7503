/**
 * Turning push on for this device (issue 39; issue 51's waiting limit and reasons): the
 * permission, the subscription with the server's VAPID key, and why it failed. Only the
 * settings' Reminders card loads it; the dashboard needs only push-client.ts's refresh.
 */
import { api } from "./api";
import { registerWorker } from "./push-client";

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url
    .replace(/-/g, "+")
    .replace(/_/g, "/")
    .padEnd(Math.ceil(base64url.length / 4) * 4, "=");
  const raw = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** The longest turning push on may wait for the browser (its prompt, the worker, the push service). */
export const PUSH_WAIT_MS = 15_000;

/** Why push could not be turned on, in the user's words (the Reminders card shows it under the switch). */
export const PUSH_REASONS = {
  private: "Push isn't available in private windows",
  blocked: "Your browser blocked notifications for this site",
  noService: "This browser has no push service: use e-mail instead",
  generic: "Could not turn on push notifications",
} as const;

export class PushSetupError extends Error {
  constructor(readonly reason: keyof typeof PUSH_REASONS) {
    super(PUSH_REASONS[reason]);
    this.name = "PushSetupError";
  }
}

/**
 * The reason for a failure of the browser's push machinery. Private windows: Firefox has no
 * service workers there, and registering one fails with a SecurityError or InvalidStateError;
 * a browser without a push service (Chromium without Google's keys, Brave with push off)
 * rejects the subscription with AbortError or NotSupportedError.
 */
export function pushFailureReason(error: unknown, step: "worker" | "subscribe" | "other"): keyof typeof PUSH_REASONS {
  if (error instanceof PushSetupError) return error.reason;
  const name = error instanceof Error || error instanceof DOMException ? error.name : "";
  if (step === "worker" && (name === "SecurityError" || name === "InvalidStateError")) return "private";
  if (step === "subscribe" && (name === "AbortError" || name === "NotSupportedError")) return "noService";
  if (step === "subscribe" && name === "NotAllowedError") return "blocked";
  return "generic";
}

/** `work`, or a PushSetupError('generic') once `ms` have passed without an answer. */
export function withinLimit<T>(work: Promise<T>, ms = PUSH_WAIT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PushSetupError("generic")), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/** Why this browser cannot turn push on at all, known before trying; null when it may. */
export function pushUnavailable(): keyof typeof PUSH_REASONS | null {
  if (typeof window === "undefined") return null;
  // Firefox's private windows have notifications but no service workers (and so no push).
  if (!("serviceWorker" in navigator)) return "Notification" in window ? "private" : "noService";
  if (!("PushManager" in window) || !("Notification" in window)) return "noService";
  return null;
}

async function subscribeSteps(): Promise<{ id: string }> {
  const unavailable = pushUnavailable();
  if (unavailable) throw new PushSetupError(unavailable);
  const permission = await Notification.requestPermission();
  if (permission === "denied") throw new PushSetupError("blocked");
  if (permission !== "granted") throw new PushSetupError("generic");
  let registration: ServiceWorkerRegistration;
  try {
    registration = await registerWorker();
    await navigator.serviceWorker.ready;
  } catch (error) {
    throw new PushSetupError(pushFailureReason(error, "worker"));
  }
  const { publicKey } = await api.get<{ publicKey: string }>("/api/push/key");
  let subscription: PushSubscription;
  try {
    subscription =
      (await registration.pushManager.getSubscription()) ??
      (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }));
  } catch (error) {
    throw new PushSetupError(pushFailureReason(error, "subscribe"));
  }
  return api.post<{ id: string }>("/api/push/subscriptions", subscription.toJSON());
}

/**
 * Asks the browser's permission (only when the user clicked), subscribes with the server's
 * VAPID key, and stores the subscription, within PUSH_WAIT_MS. Throws a PushSetupError whose
 * message is one of PUSH_REASONS (or the server's ApiError).
 */
export function subscribeThisDevice(): Promise<{ id: string }> {
  return withinLimit(subscribeSteps());
}
