/**
 * The bench's profiling helpers (BENCH_PERF): the JIT dump read into perf's map
 * (bench/perf-map.ts) and perf's report read into CPU per request (bench/perf-diff.ts).
 */
import { describe, expect, test } from "bun:test";
import { parseReport, perRequest } from "../../bench/perf-diff";
import { type CodeLoad, liveCode, perfMapText, readJitDump } from "../../bench/perf-map";

/** A jitdump as JavaScriptCore writes it: a 40-byte header, then records. */
function jitDump(
  pid: number,
  records: { id: number; timeNs: number; address?: number; size?: number; name?: string }[],
) {
  const parts: Uint8Array[] = [];
  const header = new DataView(new ArrayBuffer(40));
  header.setUint32(0, 0x4a695444, true);
  header.setUint32(4, 1, true);
  header.setUint32(8, 40, true);
  header.setUint32(20, pid, true);
  parts.push(new Uint8Array(header.buffer));
  for (const r of records) {
    const name = new TextEncoder().encode(`${r.name ?? ""}\0`);
    const body = r.id === 0 ? 40 + name.length + 4 : 8; // a load: its fields, name and (here 4 bytes of) code
    const record = new DataView(new ArrayBuffer(16 + body));
    record.setUint32(0, r.id, true);
    record.setUint32(4, 16 + body, true);
    record.setBigUint64(8, BigInt(r.timeNs), true);
    if (r.id === 0) {
      record.setBigUint64(16 + 8, BigInt(r.address ?? 0), true); // vma
      record.setBigUint64(16 + 16, BigInt(r.address ?? 0), true);
      record.setBigUint64(16 + 24, BigInt(r.size ?? 0), true);
      new Uint8Array(record.buffer).set(name, 16 + 40);
    }
    parts.push(new Uint8Array(record.buffer));
  }
  return Buffer.concat(parts);
}

const load = (timeNs: number, address: number, size: number, name: string): CodeLoad => ({
  timeNs: BigInt(timeNs),
  address: BigInt(address),
  size: BigInt(size),
  name,
});

describe("perf-map: JavaScriptCore's JIT dump as perf's map", () => {
  test("reads the pid and each code load with its name; skips other records and a record cut short", () => {
    const bytes = jitDump(4242, [
      { id: 0, timeNs: 10, address: 0x1000, size: 0x40, name: "JSC-FTL: viewOf#Ab12Cd" },
      { id: 3, timeNs: 11 }, // a debug-info record
      { id: 0, timeNs: 12, address: 0x2000, size: 0x10, name: "JSC-Baseline: flushOnce" },
    ]);
    const { pid, loads } = readJitDump(Buffer.concat([bytes, bytes.subarray(40, 60)]));
    expect(pid).toBe(4242);
    expect(loads).toEqual([
      load(10, 0x1000, 0x40, "JSC-FTL: viewOf#Ab12Cd"),
      load(12, 0x2000, 0x10, "JSC-Baseline: flushOnce"),
    ]);
  });

  test("refuses a file that is not a jitdump", () => {
    expect(() => readJitDump(new Uint8Array(64))).toThrow("not a jitdump file");
  });

  test.each([
    [
      "later code in the same place replaces the earlier",
      [load(1, 0x100, 0x20, "a"), load(2, 0x100, 0x20, "b")],
      undefined,
      ["100 20 b"],
    ],
    [
      "a partial overlap replaces the whole earlier range",
      [load(1, 0x100, 0x20, "a"), load(2, 0x110, 0x20, "b")],
      undefined,
      ["110 20 b"],
    ],
    [
      "ranges side by side both stay, by address",
      [load(2, 0x120, 0x10, "b"), load(1, 0x100, 0x20, "a")],
      undefined,
      ["100 20 a", "120 10 b"],
    ],
    ["code loaded after `until` is left out", [load(1, 0x100, 0x20, "a"), load(9, 0x100, 0x20, "b")], 5n, ["100 20 a"]],
    [
      "file order does not matter, the time does",
      [load(2, 0x100, 0x20, "b"), load(1, 0x100, 0x20, "a")],
      undefined,
      ["100 20 b"],
    ],
  ] as [string, CodeLoad[], bigint | undefined, string[]][])("%s", (_, loads, until, lines) => {
    expect(perfMapText(liveCode(loads, until)).trimEnd().split("\n")).toEqual(lines);
  });
});

describe("perf-diff: perf's report as CPU per request", () => {
  const text = [
    "# Samples: 6K of event 'cpu-clock:ppp'",
    "    10.00%   600  bun.exe   bun.exe            [.] 0x0000000001a44ff1",
    "     5.00%   300  bun.exe   bun.exe            [.] 0x0000000001adf49e",
    "     2.00%   120  bun.exe   [JIT] tid 15499    [.] JSC-FTL: viewOf#Ab12Cd",
    "     1.00%    60  bun.exe   [kernel.kallsyms]  [k] clear_page_erms",
    "     0.50%    30  Worker    [JIT] tid 15499    [.] JSC-FTL: run#Zz9",
    "",
  ].join("\n");

  test("sums samples per thread, object and symbol: JIT tids as one object, unnamed addresses as one symbol", () => {
    expect(Object.fromEntries(parseReport(text))).toEqual({
      "bun.exe\tbun.exe\t(unnamed)": 900,
      "bun.exe\t[JIT]\tJSC-FTL: viewOf": 120,
      "bun.exe\t[kernel.kallsyms]\tclear_page_erms": 60,
      "Worker\t[JIT]\tJSC-FTL: run": 30,
    });
  });

  test("µs per request: samples × (1 s / rate) ÷ the run's requests, averaged over the runs", () => {
    const run = { pair: 1, scenario: "profile-counted", file: "x", seconds: 6, hz: 1000 };
    const out = perRequest([
      { run: { ...run, rps: 50_000 }, samples: new Map([["k", 600]]) }, // 600 ms over 300,000 requests: 2 µs
      { run: { ...run, rps: 25_000 }, samples: new Map([["k", 600]]) }, // over 150,000: 4 µs
    ]);
    expect(out.get("k")).toBeCloseTo(3, 9);
  });
});
