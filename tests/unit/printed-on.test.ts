/**
 * The printed date under a profile's name (src/lib/sharing.ts printedOn, issue 38's long style): the day in the zone
 * asked for, with a formatter kept per zone, so zones asked for in turn never borrow each
 * other's formatter.
 */
import { expect, test } from "bun:test";
import { printedOn } from "../../src/lib/sharing";

const LATE = new Date("2026-11-23T23:30:00Z");

test.each([
  ["UTC", "Printed 23 November 2026"],
  ["Pacific/Kiritimati", "Printed 24 November 2026"],
  ["America/Los_Angeles", "Printed 23 November 2026"],
  ["Asia/Tokyo", "Printed 24 November 2026"],
  ["UTC", "Printed 23 November 2026"],
])("in %s: %s", (zone, line) => {
  expect(printedOn(LATE, zone)).toBe(line);
  expect(printedOn(new Date("2027-01-01T09:00:00Z"), zone)).toBe("Printed 1 January 2027");
});

test("zones asked for in turn each keep their own day", () => {
  for (let i = 0; i < 3; i++) {
    expect(printedOn(LATE, "UTC")).toBe("Printed 23 November 2026");
    expect(printedOn(LATE, "Asia/Tokyo")).toBe("Printed 24 November 2026");
  }
});

test("more zones than are kept still format, each in its own zone", () => {
  const zones = Intl.supportedValuesOf("timeZone").slice(0, 40);
  for (const zone of zones) {
    const day = LATE.toLocaleDateString("en-GB", { year: "numeric", month: "long", day: "numeric", timeZone: zone });
    const expected = `Printed ${day}`;
    expect(printedOn(LATE, zone)).toBe(expected);
  }
});

test("an unknown zone is refused as before (RangeError)", () => {
  expect(() => printedOn(LATE, "Mars/Olympus_Mons")).toThrow(RangeError);
});
