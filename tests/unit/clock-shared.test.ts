/**
 * One clock per process: the built pages bundle their own copy of api/lib/clock.ts, and a moved
 * clock must move theirs too (a server-rendered list on a moved clock used the real date).
 * A second copy of the module stands in for the bundle's.
 */
import { afterEach, expect, test } from "bun:test";
import * as clock from "../../api/lib/clock";

const { freezeClock, resetClock, setClock } = clock;

// A query makes Bun load the file again, as a separate module.
const copyPath = "../../api/lib/clock.ts?bundled-copy";
const copy = (await import(copyPath)) as typeof clock;

afterEach(() => resetClock());

test.each([
  ["freezeClock", () => freezeClock("2026-12-07T09:00:00Z")],
  ["setClock", () => setClock(() => Date.parse("2026-12-07T09:00:00Z"))],
])("a clock moved with %s is the other copy's clock", (_name, move) => {
  expect(copy.now).not.toBe(clock.now);
  move();
  expect(copy.now().toISOString()).toBe("2026-12-07T09:00:00.000Z");
  expect(copy.nowMs()).toBe(Date.parse("2026-12-07T09:00:00Z"));
  resetClock();
  expect(Math.abs(copy.nowMs() - Date.now())).toBeLessThan(60_000);
});
