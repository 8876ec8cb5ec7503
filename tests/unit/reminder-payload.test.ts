/**
 * A push payload is at most 3,000 bytes of UTF-8 JSON (issue 45; push services take 4,096):
 * the list keeps as many names as fit, in order, then `and N more`; the doses behind 'Mark all
 * taken' stay whole or go, never in part. Short lists are untouched.
 */
import { expect, test } from "bun:test";
import {
  listBody,
  MAX_PUSH_PAYLOAD_BYTES,
  type OpenDose,
  payloadBytes,
  reminderPayload,
} from "../../api/reminders/message";

const doses = (n: number, name: (i: number) => string): OpenDose[] =>
  Array.from({ length: n }, (_, i) => ({
    supplementId: 100_000 + i,
    time: "morning",
    name: name(i),
    quantityType: "Capsule(s)",
    doseAmount: 2,
  }));

const long = (i: number) => `Vitamin ${i} `.padEnd(100, "x");
const multibyte = (i: number) => `維生素${i}`.padEnd(100, "镁"); // 3 bytes a character
const emoji = (i: number) => `💊${i}`.padEnd(50, "🌿"); // 4 bytes a character, 2 UTF-16 units

const CASES: [string, OpenDose[], "whole" | "cut"][] = [
  ["three short names", doses(3, (i) => `Zinc ${i}`), "whole"],
  ["40 names of 100 characters", doses(40, long), "cut"],
  ["40 names of 100 three-byte characters", doses(40, multibyte), "cut"],
  ["40 names of emoji", doses(40, emoji), "cut"],
  ["200 names of 100 characters (the most a user has)", doses(200, long), "cut"],
  ["one name of 100 three-byte characters", doses(1, multibyte), "whole"],
];

test.each(CASES)("%s", (_, list, expected) => {
  const payload = reminderPayload("morning", "2026-06-01", list);
  expect(payloadBytes(payload)).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
  expect(Buffer.byteLength(JSON.stringify(payload))).toBe(payloadBytes(payload));
  expect(payload.title).toBe(`Morning: ${list.length} ${list.length === 1 ? "supplement" : "supplements"}`);
  const lines = list.map((d) => `${d.name} (2 capsules)`);
  const all = list.map((d) => ({ supplementId: d.supplementId, time: d.time }));
  if (expected === "whole") {
    expect(payload.body).toBe(lines.join(", "));
    expect(payload.doses).toEqual(all); // what 'Mark all taken' sends
    return;
  }
  const match = payload.body.match(/^(.*) and (\d+) more$/s);
  expect(match).not.toBeNull();
  const [, shownText, more] = match as unknown as [string, string, string];
  const shown = list.length - Number(more);
  expect(shown).toBeGreaterThan(0);
  expect(shownText).toBe(lines.slice(0, shown).join(", "));
  // One more name would not have fitted.
  const next = { ...payload, body: `${lines.slice(0, shown + 1).join(", ")} and ${Number(more) - 1} more` };
  expect(payloadBytes(next)).toBeGreaterThan(MAX_PUSH_PAYLOAD_BYTES);
  expect([[], all]).toContainEqual(payload.doses);
});

test("a dose without an amount is listed by its name alone; one with an amount, with its phrase", () => {
  const list: OpenDose[] = [
    { supplementId: 1, time: "morning", name: "Zinc", quantityType: "Capsule(s)", doseAmount: null },
    { supplementId: 2, time: "morning", name: "Magnesium", quantityType: "Capsule(s)", doseAmount: 2 },
  ];
  expect(reminderPayload("morning", "2026-06-01", list).body).toBe("Zinc, Magnesium (2 capsules)");
});

test.each([
  [3, "A, B, C"],
  [5, "A, B, C"],
  [2, "A, B and 1 more"],
  [1, "A and 2 more"],
  [0, "and 3 more"],
] as [number, string][])("listBody: %p of three shown: %p", (shown, body) => {
  expect(listBody(["A", "B", "C"], shown)).toBe(body);
});

test("a payload of exactly 3,000 bytes is sent whole; one byte more is cut", () => {
  const list = doses(15, long);
  const last = list[14] as OpenDose;
  const base = payloadBytes(reminderPayload("morning", "2026-06-01", list));
  const exact = [...list.slice(0, 14), { ...last, name: last.name + "y".repeat(MAX_PUSH_PAYLOAD_BYTES - base) }];
  const whole = reminderPayload("morning", "2026-06-01", exact);
  expect(payloadBytes(whole)).toBe(MAX_PUSH_PAYLOAD_BYTES);
  expect(whole.doses.length).toBe(15);
  expect(whole.body).not.toContain(" more");
  const over = [
    ...list.slice(0, 14),
    { ...last, name: `${last.name}${"y".repeat(MAX_PUSH_PAYLOAD_BYTES - base + 1)}` },
  ];
  expect(payloadBytes(reminderPayload("morning", "2026-06-01", over))).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
  expect(reminderPayload("morning", "2026-06-01", over).body).toEndWith(" more");
});

/** The Topic header and notification tag: one per slot and day (a newer one replaces the older), URL-safe, ≤ 32 characters. */
test.each([
  ["morning", "2026-06-01", "morning-20260601"],
  ["afternoon", "2026-12-31", "afternoon-20261231"],
  ["bedtime", "2027-01-01", "bedtime-20270101"],
] as const)("the topic of %s on %s is %s", (slot, date, topic) => {
  const payload = reminderPayload(
    slot,
    date,
    doses(1, (i) => `Zinc ${i}`),
  );
  expect(payload.tag).toBe(topic);
  expect(payload.tag).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
});
