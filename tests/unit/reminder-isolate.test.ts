/**
 * api/reminders/isolate.ts: a set-based step over everyone that throws runs again over halves,
 * down to single users; each failing user is logged with their id and skipped, everyone else
 * is served, and a clean run is one call.
 */
import { expect, spyOn, test } from "bun:test";
import { log } from "../../api/log";
import { everyoneOrEach } from "../../api/reminders/isolate";

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
