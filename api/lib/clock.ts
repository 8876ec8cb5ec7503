/**
 * The one place the server reads 'now' from. Everything that turns the current instant
 * into a rule (a user's 'today', a day's counters, a salt's age, how fresh a sign-in is)
 * asks `now()` here, never `Date.now()` or `new Date()` directly, so that tests can move
 * time across midnight or a clock-change day with `setClock` and put it back with
 * `resetClock`. Timings that only measure durations (timeouts, cache ages, rate-limit
 * windows) may keep using the process clock.
 */
import { readFileSync } from "node:fs";

/**
 * The clock lives on `globalThis`, like the context (api/lib/context.ts): the built pages carry
 * their own copy of this module, and a test's clock must move their 'today' too (a server-
 * rendered list said `Starts 1 December` on a moved clock's 7 December).
 */
const KEY = Symbol.for("stacktrack.clock");
const holder = globalThis as { [KEY]?: { source: () => number } };
holder[KEY] ??= { source: () => Date.now() };
const clock = holder[KEY];

/** The current instant, in milliseconds since the epoch. */
export const nowMs = (): number => clock.source();

/** The current instant. */
export const now = (): Date => new Date(clock.source());

/** Tests: read time from `read` (ms since the epoch) until `resetClock`. */
export function setClock(read: () => number): void {
  clock.source = read;
}

/** Tests: a clock standing still at `at` (ms since the epoch or a date), movable by the returned function. */
export function freezeClock(at: number | Date | string): (to: number | Date | string) => void {
  let current = new Date(at).getTime();
  clock.source = () => current;
  return (to) => {
    current = new Date(to).getTime();
  };
}

/** Tests: back to the real clock. */
export function resetClock(): void {
  clock.source = () => Date.now();
}

/**
 * Tests across processes (config TEST_CLOCK_FILE, NODE_ENV=test only): the instant is read
 * from `path` (ms since the epoch), at most every 5 ms, so a test moves every instance's clock.
 */
export function clockFromFile(path: string): void {
  let cached = 0;
  let readAt = -Infinity;
  clock.source = () => {
    const t = performance.now();
    if (t - readAt > 5) {
      const value = Number(readFileSync(path, "utf8").trim());
      if (Number.isFinite(value)) cached = value;
      readAt = t;
    }
    return cached;
  };
}
