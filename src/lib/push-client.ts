/**
 * The browser's side of reminders by push (issue 39): the service worker (/sw.js), the
 * permission, and this device's subscription sent to the server. Used by the dashboard
 * (re-sends the subscription on each load: endpoints rotate) and the settings' Reminders card
 * (which turns push on through push-subscribe.ts).
 */
import { api } from "./api";

export const SERVICE_WORKER_URL = "/sw.js";
/** How long after its load a first dashboard visit names what it fetched to the worker. */
const KEEP_DELAY_MS = 1500;

export function pushSupported(): boolean {
  return (
    typeof window !== "undefined" && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window
  );
}

/** iPhone and iPad (iPadOS says Macintosh, with touch): push needs the app on the Home Screen. */
export function isAppleMobile(): boolean {
  if (typeof navigator === "undefined") return false;
  return (
    /iPhone|iPad|iPod/.test(navigator.userAgent) ||
    (/Macintosh/.test(navigator.userAgent) && navigator.maxTouchPoints > 1)
  );
}

export function registerWorker(): Promise<ServiceWorkerRegistration> {
  return navigator.serviceWorker.register(SERVICE_WORKER_URL, { updateViaCache: "none" });
}

/**
 * A dashboard loaded before the worker controlled it: the worker is told what the page fetched
 * (build assets, Today's answers) to keep them for use without a network (docs/offline.md).
 */
async function keepForOffline(): Promise<void> {
  const ready = await navigator.serviceWorker.ready;
  // After the page's load and its islands' first reads (Today's answer among them).
  if (document.readyState !== "complete") await new Promise((done) => addEventListener("load", done, { once: true }));
  await new Promise((done) => setTimeout(done, KEEP_DELAY_MS));
  const urls = performance
    .getEntriesByType("resource")
    .map((entry) => entry.name)
    .filter((name) => {
      const path = new URL(name, location.href).pathname;
      return path.startsWith("/_astro/") || path === "/api/today";
    });
  ready.active?.postMessage({ type: "keep-dashboard", urls });
}

/**
 * On each dashboard or settings load: the worker registered (push, and the dashboard offline:
 * docs/offline.md), and an existing subscription re-sent.
 */
export async function refreshThisDevice(): Promise<void> {
  if (typeof navigator === "undefined" || !("serviceWorker" in navigator)) return;
  const controlled = Boolean(navigator.serviceWorker.controller);
  const registration = await registerWorker();
  const dashboard = location.pathname === "/dashboard" || location.pathname === "/";
  if (!controlled && dashboard) void keepForOffline().catch(() => undefined);
  if (!pushSupported() || Notification.permission !== "granted") return;
  const subscription = await registration.pushManager.getSubscription();
  if (subscription) await api.post("/api/push/subscriptions", subscription.toJSON());
}
