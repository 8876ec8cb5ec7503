/**
 * The printed date under a profile's name (src/lib/sharing.ts printedOn): the day in the zone
 * asked for, with a formatter kept per zone, so zones asked for in turn never borrow each
 * other's formatter.
 */
import { expect, test } from "bun:test";
import { printedOn } from "../../src/lib/sharing";

const LATE = new Date("2026-11-23T23:30:00Z");

test.each([
  ["UTC", "Printed November 23, 2026"],
  ["Pacific/Kiritimati", "Printed November 24, 2026"],
  ["America/Los_Angeles", "Printed November 23, 2026"],
  ["Asia/Tokyo", "Printed November 24, 2026"],
  ["UTC", "Printed November 23, 2026"],
])("in %s: %s", (zone, line) => {
  expect(printedOn(LATE, zone)).toBe(line);
  expect(printedOn(new Date("2027-01-01T09:00:00Z"), zone)).toBe("Printed January 1, 2027");
});

test("zones asked for in turn each keep their own day", () => {
  for (let i = 0; i < 3; i++) {
    expect(printedOn(LATE, "UTC")).toBe("Printed November 23, 2026");
    expect(printedOn(LATE, "Asia/Tokyo")).toBe("Printed November 24, 2026");
  }
});

test("more zones than are kept still format, each in its own zone", () => {
  const zones = Intl.supportedValuesOf("timeZone").slice(0, 40);
  for (const zone of zones) {
    const expected = `Printed ${LATE.toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: zone })}`;
    expect(printedOn(LATE, zone)).toBe(expected);
  }
});

test("an unknown zone is refused as before (RangeError)", () => {
  expect(() => printedOn(LATE, "Mars/Olympus_Mons")).toThrow(RangeError);
});
