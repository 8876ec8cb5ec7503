/**
 * The service worker's notification click (issue 39, src/service-worker/sw.js), run against a
 * fake worker scope and fetch: `Mark all taken` is one Take all request (PUT
 * /api/intakes/{date}) with the user's cookie; on any failure, and on a plain click, the
 * dashboard's Today opens instead.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const SOURCE = readFileSync(join(import.meta.dir, "..", "..", "src", "service-worker", "sw.js"), "utf8");
const ORIGIN = "https://stacktrack.test";

type Handler = (event: unknown) => void;
interface Call {
  url: string;
  init: RequestInit;
}

/** Loads the worker into a fake scope; `answer` plays the network for each fetch. */
function loadWorker(answer: (call: Call) => Promise<Response>) {
  const handlers = new Map<string, Handler>();
  const fetches: Call[] = [];
  const opened: string[] = [];
  const self = {
    location: { origin: ORIGIN },
    addEventListener: (type: string, handler: Handler) => handlers.set(type, handler),
    skipWaiting: () => undefined,
    registration: { showNotification: async () => undefined },
    clients: {
      claim: async () => undefined,
      matchAll: async () => [],
      openWindow: async (url: string) => {
        opened.push(url);
        return null;
      },
    },
  };
  const fakeFetch = (url: string, init: RequestInit) => {
    fetches.push({ url, init });
    return answer({ url, init });
  };
  new Function("self", "fetch", SOURCE)(self, fakeFetch);
  /** Clicks a notification carrying `data` (on `action`, "" for the body) and waits for what it started. */
  async function click(action: string, data: unknown) {
    const pending: Promise<unknown>[] = [];
    let closed = false;
    handlers.get("notificationclick")?.({
      action,
      notification: { data, close: () => (closed = true) },
      waitUntil: (p: Promise<unknown>) => pending.push(p),
    });
    await Promise.all(pending);
    return { closed, fetches, opened };
  }
  return { click };
}

const DATA = {
  url: "/dashboard#today",
  date: "2026-06-01",
  doses: [
    { supplementId: 7, time: "morning" },
    { supplementId: 9, time: "anytime" },
  ],
};
const TAKE_ALL = {
  url: "/api/intakes/2026-06-01",
  method: "PUT",
  credentials: "include",
  body: { status: "taken", doses: DATA.doses },
};

describe("notificationclick", () => {
  test.each([
    ["Mark all taken, 200", "take", async () => Response.json({}), [TAKE_ALL], []],
    [
      "Mark all taken, 401 (signed out)",
      "take",
      async () => new Response("{}", { status: 401 }),
      [TAKE_ALL],
      [`${ORIGIN}/dashboard#today`],
    ],
    [
      "Mark all taken, 400 (a dose refused)",
      "take",
      async () => new Response("{}", { status: 400 }),
      [TAKE_ALL],
      [`${ORIGIN}/dashboard#today`],
    ],
    [
      "Mark all taken, offline",
      "take",
      () => Promise.reject(new TypeError("Failed to fetch")),
      [TAKE_ALL],
      [`${ORIGIN}/dashboard#today`],
    ],
    ["the notification itself", "", async () => Response.json({}), [], [`${ORIGIN}/dashboard#today`]],
  ] as const)("%s", async (_name, action, answer, requests, opened) => {
    const worker = loadWorker(answer);
    const seen = await worker.click(action, DATA);
    expect(seen.closed).toBe(true);
    expect(
      seen.fetches.map(({ url, init }) => ({
        url,
        method: init.method,
        credentials: init.credentials as string | undefined,
        body: JSON.parse(String(init.body)),
      })),
    ).toEqual([...requests]);
    expect(seen.opened).toEqual([...opened]);
  });
});
