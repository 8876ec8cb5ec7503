/**
 * A toast carried to the next page (src/lib/toast.ts) is taken by the page loaded after it
 * was written, never by the page that wrote it: islands hydrate in any order, so the page
 * that flashes and navigates away may mount its toaster only afterwards.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { flashToast, takeFlash } from "../../src/lib/toast";

const store = new Map<string, string>();
Object.assign(globalThis, {
  sessionStorage: {
    getItem: (key: string) => store.get(key) ?? null,
    setItem: (key: string, value: string) => void store.set(key, value),
    removeItem: (key: string) => void store.delete(key),
  },
});

const KEY = "stacktrack.flash";
const message = { kind: "success" as const, title: "Already Premium", description: "You already have it." };

/** In a browser, performance.timeOrigin is when the page began to load: say it was just now. */
function pageLoadedNow() {
  Object.defineProperty(performance, "timeOrigin", { value: Date.now(), configurable: true });
}

describe("flash toasts", () => {
  beforeEach(() => {
    store.clear();
    pageLoadedNow();
  });

  test("a flash written by this page (after it began loading) is left for the next page", async () => {
    await Bun.sleep(2);
    flashToast(message);
    expect(takeFlash()).toBeNull();
    expect(store.has(KEY)).toBe(true);
  });

  test("a flash written before this page began loading is taken, once", () => {
    store.set(KEY, JSON.stringify({ ...message, at: performance.timeOrigin - 500 }));
    expect(takeFlash()).toEqual(message);
    expect(takeFlash()).toBeNull();
  });

  test("a flash whose navigation never came (over a minute old) is dropped unseen", () => {
    // Written before this page began loading, and more than a minute ago.
    store.set(KEY, JSON.stringify({ ...message, at: performance.timeOrigin - 61_000 }));
    expect(takeFlash()).toBeNull();
    expect(store.has(KEY)).toBe(false);
  });
});
