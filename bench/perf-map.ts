/**
 * Names for the app's JavaScript in `perf report` (a diagnostic, for BENCH_PERF: bench/run.ts).
 *
 * JavaScriptCore writes the code it compiles to a jitdump file when started with
 * BUN_JSC_useJITDump=1 and BUN_JSC_jitDumpDirectory=DIR, but names it `jit-<tid>-<pid>.dump`,
 * which `perf inject --jit` does not recognise. `perf report` also reads /tmp/perf-<pid>.map
 * ("start size name" per line, hex), which this file writes from the dump. Code memory is
 * reused: a function compiled at an address where other code lived before replaces it, so the
 * map holds, for each address, the latest code loaded there up to a moment (the end of the
 * profiled runs); the newest load wins where ranges overlap.
 *
 *   bun bench/perf-map.ts DIR/jit-<tid>-<pid>.dump [until: seconds of CLOCK_MONOTONIC]
 */
import { readFileSync, writeFileSync } from "node:fs";

/** One JIT_CODE_LOAD record of a jitdump (the format `perf inject --jit` reads). */
export interface CodeLoad {
  /** CLOCK_MONOTONIC nanoseconds, as perf's sample times. */
  timeNs: bigint;
  address: bigint;
  size: bigint;
  name: string;
}

const MAGIC = 0x4a695444; // "JiTD", little-endian
const CODE_LOAD = 0;
const RECORD_HEADER = 16; // id u32, total size u32, timestamp u64
const CODE_LOAD_FIELDS = 40; // pid, tid u32; vma, code address, code size, code index u64

/** The dump's process id and its code loads, in file order. */
export function readJitDump(bytes: Uint8Array): { pid: number; loads: CodeLoad[] } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 40 || view.getUint32(0, true) !== MAGIC) throw new Error("not a jitdump file");
  const headerSize = view.getUint32(8, true);
  const pid = view.getUint32(20, true);
  const loads: CodeLoad[] = [];
  const decoder = new TextDecoder();
  for (let at = headerSize; at + RECORD_HEADER <= bytes.byteLength; ) {
    const id = view.getUint32(at, true);
    const size = view.getUint32(at + 4, true);
    // A record cut short: the process was still writing when the file was read.
    if (size < RECORD_HEADER || at + size > bytes.byteLength) break;
    if (id === CODE_LOAD) {
      const fields = at + RECORD_HEADER;
      const nameStart = fields + CODE_LOAD_FIELDS;
      const nameEnd = bytes.indexOf(0, nameStart);
      loads.push({
        timeNs: view.getBigUint64(at + 8, true),
        address: view.getBigUint64(fields + 16, true),
        size: view.getBigUint64(fields + 24, true),
        name: decoder.decode(bytes.subarray(nameStart, nameEnd < 0 ? at + size : nameEnd)),
      });
    }
    at += size;
  }
  return { pid, loads };
}

/** The code that lives at each address at `untilNs` (or at the end): non-overlapping ranges, by address. */
export function liveCode(loads: CodeLoad[], untilNs?: bigint): CodeLoad[] {
  const inTime = loads.filter((load) => untilNs === undefined || load.timeNs <= untilNs);
  inTime.sort((a, b) => (a.timeNs < b.timeNs ? -1 : a.timeNs > b.timeNs ? 1 : 0));
  let live: CodeLoad[] = [];
  for (const load of inTime) {
    const end = load.address + load.size;
    // Later code replaces whatever it overlaps (a function freed and its memory reused).
    live = live.filter((old) => old.address + old.size <= load.address || old.address >= end);
    live.push(load);
  }
  return live.sort((a, b) => (a.address < b.address ? -1 : 1));
}

/** /tmp/perf-<pid>.map's lines for `code`. */
export const perfMapText = (code: CodeLoad[]): string =>
  code.map((c) => `${c.address.toString(16)} ${c.size.toString(16)} ${c.name}\n`).join("");

/** Writes /tmp/perf-<pid>.map from the jitdump at `path` (code live at `untilNs`); returns the map's path. */
export function writePerfMap(path: string, untilNs?: bigint): string {
  const { pid, loads } = readJitDump(readFileSync(path));
  const out = `/tmp/perf-${pid}.map`;
  writeFileSync(out, perfMapText(liveCode(loads, untilNs)));
  return out;
}

if (import.meta.main) {
  const [path, until] = process.argv.slice(2);
  if (!path) {
    console.error("usage: bun bench/perf-map.ts DIR/jit-<tid>-<pid>.dump [until: CLOCK_MONOTONIC seconds]");
    process.exit(2);
  }
  const untilNs = until ? BigInt(Math.round(Number(until) * 1e9)) : undefined;
  console.log(`wrote ${writePerfMap(path, untilNs)}`);
}
