/**
 * Issue 45: the service worker (src/service-worker/sw.js) keeps nothing for a device that has
 * been signed out elsewhere. A 401 to its user's request (Today, the notification's Take all),
 * or a dashboard navigation answered with another page (signed out), deletes every cache it
 * keeps; errors and a missing network keep them (that is what they are for).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const SOURCE = readFileSync(join(import.meta.dir, "..", "..", "src", "service-worker", "sw.js"), "utf8");
const ORIGIN = "https://stacktrack.test";
type Answer = { status: number; shell?: boolean } | "offline";

function loadWorker(answer: Answer) {
  const stores = new Map<string, Map<string, Response>>([
    ["stacktrack-offline-v1", new Map([[`${ORIGIN}/dashboard`, new Response("kept dashboard")]])],
  ]);
  const caches = {
    open: async (name: string) => {
      const store = stores.get(name) ?? new Map<string, Response>();
      stores.set(name, store);
      return {
        put: async (r: Request | string, res: Response) =>
          store.set(typeof r === "string" ? new URL(r, ORIGIN).href : r.url, res),
        match: async (r: Request | string) => store.get(typeof r === "string" ? new URL(r, ORIGIN).href : r.url),
        keys: async () => [...store.keys()].map((u) => new Request(u)),
        delete: async (r: Request) => store.delete(r.url),
      };
    },
    keys: async () => [...stores.keys()],
    delete: async (name: string) => stores.delete(name),
    match: async (r: Request | string) =>
      stores.get("stacktrack-offline-v1")?.get(typeof r === "string" ? new URL(r, ORIGIN).href : r.url),
  };
  const network = async () => {
    if (answer === "offline") throw new TypeError("Failed to fetch");
    const headers: Record<string, string> = answer.shell ? { "X-Offline-Shell": "dashboard" } : {};
    const response = new Response("network", { status: answer.status, headers });
    Object.defineProperty(response, "type", { value: "basic" });
    return response;
  };
  const handlers = new Map<string, (event: unknown) => void>();
  const self = {
    location: { origin: ORIGIN },
    addEventListener: (type: string, handler: (event: unknown) => void) => handlers.set(type, handler),
    skipWaiting: () => undefined,
    clients: {
      claim: async () => undefined,
      get: async () => null,
      matchAll: async () => [],
      openWindow: async () => null,
    },
    registration: { showNotification: async () => undefined },
  };
  new Function("self", "fetch", "caches", SOURCE)(self, network, caches);
  return {
    async fetch(path: string, mode = "cors") {
      let answered: Promise<Response> | undefined;
      const request = Object.defineProperty(new Request(`${ORIGIN}${path}`), "mode", { value: mode });
      handlers.get("fetch")?.({ request, clientId: "", respondWith: (p: Promise<Response>) => (answered = p) });
      await answered?.catch(() => undefined);
    },
    async takeAll() {
      let done: Promise<unknown> | undefined;
      handlers.get("notificationclick")?.({
        action: "take",
        notification: { data: { date: "2026-11-20", doses: [{ supplementId: 1, time: "morning" }] }, close() {} },
        waitUntil: (p: Promise<unknown>) => (done = p),
      });
      await done;
    },
    kept: () => [...stores.values()].some((store) => store.size > 0),
  };
}

describe("a signed-out device keeps nothing", () => {
  const table: [string, Answer, (w: ReturnType<typeof loadWorker>) => Promise<void>, boolean][] = [
    // [what, the server's answer, the request, kept afterwards]
    ["Today answered 401", { status: 401 }, (w) => w.fetch("/api/today?date=2026-11-20"), false],
    ["Today answered 200", { status: 200 }, (w) => w.fetch("/api/today?date=2026-11-20"), true],
    ["Today answered 500", { status: 500 }, (w) => w.fetch("/api/today?date=2026-11-20"), true],
    ["Today without a network", "offline", (w) => w.fetch("/api/today?date=2026-11-20"), true],
    ["the dashboard answered with the landing page", { status: 200 }, (w) => w.fetch("/dashboard", "navigate"), false],
    ["/ answered with the landing page", { status: 200 }, (w) => w.fetch("/", "navigate"), false],
    [
      "the dashboard answered as the dashboard",
      { status: 200, shell: true },
      (w) => w.fetch("/dashboard", "navigate"),
      true,
    ],
    ["the dashboard answered 503", { status: 503 }, (w) => w.fetch("/dashboard", "navigate"), true],
    ["the dashboard without a network", "offline", (w) => w.fetch("/dashboard", "navigate"), true],
    ["Mark all taken answered 401", { status: 401 }, (w) => w.takeAll(), false],
    ["Mark all taken answered 500", { status: 500 }, (w) => w.takeAll(), true],
  ];
  for (const [what, answer, act, kept] of table) {
    test(`${what}: ${kept ? "kept" : "all deleted"}`, async () => {
      const worker = loadWorker(answer);
      await act(worker);
      expect(worker.kept()).toBe(kept);
    });
  }
});
