/**
 * Issue 48's as-needed rules (src/lib/as-needed.ts) as tables: what a day's log says at a moment
 * (next allowed, warnings), Today's count line, and when one more asks first. Berlin, winter.
 */
import { describe, expect, test } from "bun:test";
import {
  type AsNeededLimits,
  type AsNeededLog,
  asNeededState,
  countLine,
  oneMoreBreaksLimit,
} from "../../src/lib/as-needed";

const ZONE = "Europe/Berlin";
/** `HH:MM` in Berlin on 1 December 2026 (or `day`), as ISO. */
const at = (time: string, day = "2026-12-01") => new Date(Date.parse(`${day}T${time}:00Z`) - 3_600_000).toISOString();
const ms = (time: string, day?: string) => Date.parse(at(time, day));
const MIDNIGHT = at("00:00", "2026-12-02");

const log = (count: number, last: string | null, previous: string | null = null): AsNeededLog => ({
  count,
  lastTakenAt: last && at(last),
  previousTakenAt: previous && (previous.includes("T") ? previous : at(previous)),
});
const both: AsNeededLimits = { maxPerDay: 3, minHoursBetween: 4 };

describe("asNeededState at a moment", () => {
  const cases: [string, AsNeededLog, AsNeededLimits | null, string, string | null | undefined, string | undefined][] = [
    ["none taken, limits", log(0, null), both, "09:00", null, undefined],
    ["none taken, no limits: no next at all", log(0, null), null, "09:00", undefined, undefined],
    ["one at 09:00, at 10:00", log(1, "09:00"), both, "10:00", at("13:00"), undefined],
    ["one at 09:00, at 13:00: free", log(1, "09:00"), both, "13:00", null, undefined],
    [
      "two, the second too soon",
      log(2, "11:00", "09:00"),
      both,
      "11:00",
      at("15:00"),
      "Your next dose was due after 13:00",
    ],
    ["two, 4 hours apart exactly", log(2, "13:00", "09:00"), both, "13:00", at("17:00"), undefined],
    ["the day's limit reached: the next midnight", log(3, "17:00", "13:00"), both, "17:30", MIDNIGHT, undefined],
    ["over the limit", log(4, "20:00", "17:00"), both, "20:00", MIDNIGHT, "That is more than your limit of 3 a day"],
    [
      "over and too soon: the limit is said",
      log(4, "17:30", "17:00"),
      both,
      "17:30",
      MIDNIGHT,
      "That is more than your limit of 3 a day",
    ],
    [
      "none today, yesterday's last at 23:00 (8 h)",
      log(0, null, at("23:00", "2026-11-30")),
      { maxPerDay: null, minHoursBetween: 8 },
      "02:00",
      at("07:00"),
      undefined,
    ],
    [
      "the first today too soon after yesterday's",
      log(1, "02:00", at("23:00", "2026-11-30")),
      { maxPerDay: null, minHoursBetween: 8 },
      "02:00",
      at("10:00"),
      "Your next dose was due after 07:00",
    ],
    ["a daily limit only", log(1, "09:00"), { maxPerDay: 1, minHoursBetween: null }, "09:00", MIDNIGHT, undefined],
  ];
  test.each(cases)("%s", (_name, day, limits, now, next, warning) => {
    const state = asNeededState(day, limits, ms(now), ZONE);
    expect(state.nextAllowedAt).toBe(next as string | null);
    expect(state.warning).toBe(warning as string);
  });
});

describe("countLine and oneMoreBreaksLimit", () => {
  const cases: [string, AsNeededLog, AsNeededLimits | null, string, string, boolean][] = [
    [
      "two of three, next later today",
      log(2, "10:30", "06:00"),
      both,
      "11:00",
      "2 of 3 today · next after 14:30",
      true,
    ],
    ["two of three, free now", log(2, "10:30", "06:00"), both, "15:00", "2 of 3 today", false],
    ["three of three: no 'next' (it is tomorrow)", log(3, "10:30", "06:00"), both, "15:00", "3 of 3 today", true],
    ["none of three", log(0, null), both, "09:00", "0 of 3 today", false],
    [
      "no daily limit, spacing only",
      log(1, "09:00"),
      { maxPerDay: null, minHoursBetween: 2 },
      "10:00",
      "1 today · next after 11:00",
      true,
    ],
    [
      "no daily limit, none taken, yesterday's too close",
      log(0, null, at("23:00", "2026-11-30")),
      { maxPerDay: null, minHoursBetween: 2 },
      "00:30",
      "next after 01:00",
      true,
    ],
    ["no limits", log(2, "09:00"), null, "10:00", "2 today", false],
    ["no limits, none", log(0, null), null, "10:00", "", false],
  ];
  test.each(cases)("%s", (_name, day, limits, now, line, asks) => {
    const state = asNeededState(day, limits, ms(now), ZONE);
    expect(countLine(state, limits, ZONE, ms(now))).toBe(line);
    expect(oneMoreBreaksLimit(state, ms(now))).toBe(asks);
  });
});
