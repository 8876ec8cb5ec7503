/**
 * api/reminders/isolate.ts: a set-based step over everyone that throws runs again over halves,
 * down to single users; each failing user is logged with their id and skipped, everyone else
 * is served, and a clean run is one call.
 */
import { expect, spyOn, test } from "bun:test";
import { log } from "../../api/lib/log";
import { everyoneOrEach, reasonOf, todaysIn } from "../../api/reminders/isolate";

const USERS = Array.from({ length: 13 }, (_, i) => `u${i}`);

test.each([
  ["nobody bad", []],
  ["the first", ["u0"]],
  ["one in the middle", ["u6"]],
  ["two side by side", ["u7", "u8"]],
  ["the last", ["u12"]],
  ["everyone", USERS],
] as [string, string[]][])("bad users: %s", async (_, bad) => {
  const warn = spyOn(log, "warn").mockImplementation(() => {});
  try {
    let calls = 0;
    const served = await everyoneOrEach(
      async (ids) => {
        calls++;
        const batch = ids ?? USERS;
        if (batch.some((id) => bad.includes(id))) throw new Error("bad row");
        return batch;
      },
      async () => USERS,
      "a step",
    );
    expect(served.sort()).toEqual(USERS.filter((id) => !bad.includes(id)).sort());
    const skipped = warn.mock.calls.flatMap(([, fields]) => (fields as { userId?: string })?.userId ?? []);
    expect(skipped.sort()).toEqual([...bad].sort());
    if (bad.length === 0) expect(calls).toBe(1);
    else expect(calls).toBeLessThanOrEqual(1 + 2 * bad.length * Math.ceil(Math.log2(USERS.length)) + 1);
  } finally {
    warn.mockRestore();
  }
});

/** A failed query's log line names the database's reason (drizzle wraps it as the cause), at most 300 characters. */
test.each([
  [
    "a failed query: its cause",
    new Error("Failed query: select …", { cause: new Error('time zone "US/Pacific-New" not recognized') }),
    { error: 'time zone "US/Pacific-New" not recognized', name: "Error" },
  ],
  [
    "an error without a cause: its message",
    new RangeError("Invalid time value"),
    { error: "Invalid time value", name: "RangeError" },
  ],
  ["a cause that is no Error: the message", new Error("outer", { cause: "inner" }), { error: "outer", name: "Error" }],
  ["a thrown string", "boom", { error: "boom", name: "Error" }],
  ["a long reason: cut to 300", new Error("x".repeat(1000)), { error: "x".repeat(300), name: "Error" }],
] as [string, unknown, { error: string; name: string }][])("reasonOf: %s", (_, error, expected) => {
  expect(reasonOf(error)).toEqual(expected);
});

test("todaysIn: each zone's date by Intl at that instant; zones Intl rejects are left out", () => {
  const at = new Date("2026-06-01T22:30:00Z");
  expect(
    todaysIn(["Europe/Berlin", "UTC", "Mars/Olympus_Mons", "America/Los_Angeles", "Pacific/Kiritimati"], at),
  ).toEqual([
    { zone: "Europe/Berlin", today: "2026-06-02" },
    { zone: "UTC", today: "2026-06-01" },
    { zone: "America/Los_Angeles", today: "2026-06-01" },
    { zone: "Pacific/Kiritimati", today: "2026-06-02" },
  ]);
});

test("the batch fails and nobody is listed: nothing is served and no empty step runs", async () => {
  const warn = spyOn(log, "warn").mockImplementation(() => {});
  try {
    const calls: (string[] | null)[] = [];
    const served = await everyoneOrEach(
      async (ids) => {
        calls.push(ids);
        if (ids === null) throw new Error("bad row");
        return ids;
      },
      async () => [],
      "a step",
    );
    expect(served).toEqual([]);
    expect(calls).toEqual([null]);
  } finally {
    warn.mockRestore();
  }
});
