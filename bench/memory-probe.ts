/**
 * Loaded into the measured app by the bench only (`bun --preload bench/memory-probe.ts
 * server.ts`), so that the server memory target can be explained from inside the process.
 * It adds no timer and no work to a request: it only listens for SIGUSR2, and then writes
 * the file named by BENCH_MEMORY_PROBE with the process's memory as it is (RSS, the JS heap
 * with what garbage it holds) and again after a full garbage collection (what is live, and
 * what RSS is once the garbage is gone). The bench sends the signal once, after everything
 * else has been measured. Never loaded by `npm start`.
 */
import { heapStats } from "bun:jsc";
import { writeFileSync } from "node:fs";

export interface MemorySample {
  rss: number;
  /** JSC's heap: bytes in objects (live and not yet collected) and the capacity it holds. */
  heapSize: number;
  heapCapacity: number;
  /** Memory JSC knows its objects hold outside the heap (string and buffer contents). */
  extraMemorySize: number;
  /** ArrayBuffer contents (cached pages, avatars, cards, request buffers). */
  arrayBuffers: number;
  objectCount: number;
  /** The most numerous object types, by count. */
  topTypes: [string, number][];
}

export interface MemoryProbe {
  before: MemorySample;
  afterFullGc: MemorySample;
}

function sample(): MemorySample {
  const usage = process.memoryUsage();
  const heap = heapStats();
  return {
    rss: usage.rss,
    heapSize: heap.heapSize,
    heapCapacity: heap.heapCapacity,
    extraMemorySize: heap.extraMemorySize,
    arrayBuffers: usage.arrayBuffers,
    objectCount: heap.objectCount,
    topTypes: Object.entries(heap.objectTypeCounts)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8),
  };
}

const out = process.env.BENCH_MEMORY_PROBE;
if (out) {
  process.on("SIGUSR2", () => {
    const before = sample();
    Bun.gc(true);
    const probe: MemoryProbe = { before, afterFullGc: sample() };
    writeFileSync(out, JSON.stringify(probe));
  });
}
