/**
 * The service worker's offline copies (issue 40, src/service-worker/sw.js), run against a fake
 * worker scope, Cache Storage and network: which requests it answers, what it keeps, and what
 * it answers without a network. Nothing of the landing page or any other page is kept.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KEPT_PAGE_MARK, RENDERED_PAGE_MARK } from "../../src/lib/today-source";

const SOURCE = readFileSync(join(import.meta.dir, "..", "..", "src", "service-worker", "sw.js"), "utf8");
const ORIGIN = "https://stacktrack.test";

/** A Cache keyed by URL (what the worker uses of it). */
class FakeCache {
  readonly entries = new Map<string, Response>();
  async put(request: Request | string, response: Response) {
    this.entries.set(typeof request === "string" ? new URL(request, ORIGIN).href : request.url, response);
  }
  async match(request: Request | string) {
    return this.entries.get(typeof request === "string" ? new URL(request, ORIGIN).href : request.url)?.clone();
  }
  async keys() {
    return [...this.entries.keys()].map((url) => new Request(url));
  }
  async delete(request: Request) {
    return this.entries.delete(request.url);
  }
}

function loadWorker() {
  let online = true;
  const handlers = new Map<string, (event: unknown) => void>();
  const cache = new FakeCache();
  const caches = {
    open: async () => cache,
    keys: async () => ["stacktrack-offline-v2"],
    delete: async () => true,
    match: (request: Request | string) => cache.match(request),
  };
  const clientsById = new Map<string, { url: string }>([
    ["dash", { url: `${ORIGIN}/dashboard` }],
    ["profile", { url: `${ORIGIN}/someone` }],
  ]);
  const self = {
    location: { origin: ORIGIN },
    addEventListener: (type: string, handler: (event: unknown) => void) => handlers.set(type, handler),
    skipWaiting: () => undefined,
    clients: { claim: async () => undefined, get: async (id: string) => clientsById.get(id) },
  };
  const network = async (input: Request | string) => {
    if (!online) throw new TypeError("Failed to fetch");
    const url = new URL(typeof input === "string" ? input : input.url, ORIGIN);
    const headers: Record<string, string> = { "Content-Type": "text/html" };
    if (url.pathname === "/dashboard" || url.searchParams.has("signedIn")) headers["X-Offline-Shell"] = "dashboard";
    const response = new Response(`network ${url.pathname}${url.search}`, { headers });
    Object.defineProperty(response, "type", { value: "basic" });
    return response;
  };
  new Function("self", "fetch", "caches", SOURCE)(self, network, caches);
  /** Dispatches a GET to the API; answers the worker's response. */
  async function respond(path: string): Promise<Response | null> {
    let answered: Promise<Response> | null = null;
    handlers.get("fetch")?.({
      request: Object.defineProperty(new Request(`${ORIGIN}${path}`), "mode", { value: "cors" }),
      clientId: "",
      respondWith: (p: Promise<Response>) => {
        answered = p;
      },
    });
    return answered;
  }
  /** Dispatches a fetch; answers the worker's response text, or null when it let the request pass. */
  async function request(path: string, init: { mode?: string; method?: string; clientId?: string } = {}) {
    let answered: Promise<Response> | null = null;
    const req = new Request(`${ORIGIN}${path}`, { method: init.method ?? "GET" });
    handlers.get("fetch")?.({
      request: Object.defineProperty(req, "mode", { value: init.mode ?? "cors" }),
      clientId: init.clientId ?? "",
      respondWith: (p: Promise<Response>) => {
        answered = p;
      },
    });
    if (!answered) return null;
    try {
      const response = (await answered) as Response;
      return response.type === "error" ? "error" : await response.text();
    } catch {
      return "error";
    }
  }
  return {
    request,
    respond,
    kept: () => [...cache.entries.keys()].map((u) => u.slice(ORIGIN.length)).sort(),
    setOnline: (value: boolean) => {
      online = value;
    },
  };
}

describe("what the worker answers and keeps", () => {
  // [what, path, how, answered (null: passed by), kept afterwards]
  const cases: [string, string, { mode?: string; method?: string; clientId?: string }, string | null, string[]][] = [
    ["the dashboard page", "/dashboard", { mode: "navigate" }, "network /dashboard", ["/dashboard"]],
    ["the landing page (no dashboard header)", "/", { mode: "navigate" }, "network /", []],
    ["/ signed in (the dashboard)", "/?signedIn=1", { mode: "navigate" }, "network /", ["/dashboard"]],
    ["a public profile page", "/someone", { mode: "navigate" }, null, []],
    [
      "Today's answer",
      "/api/today?date=2026-11-20",
      {},
      "network /api/today?date=2026-11-20",
      ["/api/today?date=2026-11-20"],
    ],
    ["another API read", "/api/supplements", {}, null, []],
    ["a write", "/api/intakes/2026-11-20/1/morning", { method: "PUT" }, null, []],
    ["an asset of the dashboard", "/_astro/a.js", { clientId: "dash" }, "network /_astro/a.js", ["/_astro/a.js"]],
    ["an asset of another page", "/_astro/b.js", { clientId: "profile" }, "network /_astro/b.js", []],
  ];
  test.each(cases)("%s", async (_what, path, how, answered, kept) => {
    const worker = loadWorker();
    const answer = await worker.request(path, how);
    expect(answer === null ? null : answer.replace("?signedIn=1", "")).toEqual(answered);
    expect(worker.kept()).toEqual(kept);
  });

  test("without a network: the kept copies answer, anything else fails", async () => {
    const worker = loadWorker();
    await worker.request("/dashboard", { mode: "navigate" });
    await worker.request("/api/today?date=2026-11-20");
    worker.setOnline(false);
    expect(await worker.request("/dashboard", { mode: "navigate" })).toBe("network /dashboard");
    expect(await worker.request("/", { mode: "navigate" })).toBe("network /dashboard");
    expect(await worker.request("/api/today?date=2026-11-20")).toBe("network /api/today?date=2026-11-20");
    expect(await worker.request("/api/today?date=2026-11-21")).toBe("error");
  });

  test("a kept Today answer is marked X-Offline-Copy (the time it was kept); the network's is not", async () => {
    const worker = loadWorker();
    const before = Date.now();
    const fresh = await worker.respond("/api/today?date=2026-11-20");
    expect(fresh?.headers.get("X-Offline-Copy")).toBeNull();
    worker.setOnline(false);
    const kept = await worker.respond("/api/today?date=2026-11-20");
    expect(await kept?.text()).toBe("network /api/today?date=2026-11-20");
    const keptAt = Date.parse(kept?.headers.get("X-Offline-Copy") ?? "");
    expect(keptAt).toBeGreaterThanOrEqual(before - 1000);
    expect(keptAt).toBeLessThanOrEqual(Date.now());
  });

  // Issue 51: the kept dashboard's server-rendered Today rows are as old as the copy; its mark
  // tells the card so (src/lib/today-source.ts), and the network's page keeps the server's mark.
  test.each([
    ["the network's page keeps the server's mark", true, RENDERED_PAGE_MARK],
    ["the kept page, without a network, carries the worker's mark", false, KEPT_PAGE_MARK],
  ])("%s", async (_what, online, mark) => {
    const worker = loadWorker();
    await worker.request(`/dashboard?${RENDERED_PAGE_MARK}`, { mode: "navigate" });
    worker.setOnline(online);
    expect(await worker.request(`/dashboard?${RENDERED_PAGE_MARK}`, { mode: "navigate" })).toBe(
      `network /dashboard?${mark}`,
    );
  });

  test("Today's answers: the 8 latest dates are kept", async () => {
    const worker = loadWorker();
    for (let day = 10; day <= 20; day++) await worker.request(`/api/today?date=2026-11-${day}`);
    await worker.request("/api/today");
    expect(worker.kept()).toEqual([
      "/api/today",
      ...Array.from({ length: 8 }, (_, i) => `/api/today?date=2026-11-${13 + i}`),
    ]);
  });
});
