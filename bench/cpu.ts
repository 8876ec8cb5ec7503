/**
 * Where the CPU went during a run: the app, Postgres (the postmaster and all its
 * backends), the ceiling, wrk, and whatever else ran on the machine. From /proc.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

const TICKS = 100; // USER_HZ; `getconf CLK_TCK` is 100 on Linux

/** utime + stime of `pid` in seconds, and its parent pid; undefined when it is gone. */
function procStat(pid: number): { cpu: number; ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may contain spaces.
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(rest[1]);
    const utime = Number(rest[11]);
    const stime = Number(rest[12]);
    return { cpu: (utime + stime) / TICKS, ppid };
  } catch {
    return undefined;
  }
}

/** Busy and total CPU seconds of the whole machine (all cores). */
function machine(): { busy: number; irq: number; total: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy / TICKS, irq: (irq + softirq) / TICKS, total: (busy + idle + iowait) / TICKS };
}

/** Cumulative CPU seconds of the postmaster and every process it forked. */
function postgresCpu(postmaster: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const stat = procStat(pid);
    if (stat && (pid === postmaster || stat.ppid === postmaster)) out.set(pid, stat.cpu);
  }
  return out;
}

/** Cumulative µs during which some task waited on I/O (pressure stall information); NaN without PSI. */
function ioStall(): number {
  try {
    const line = readFileSync("/proc/pressure/io", "utf8").split("\n")[0] ?? "";
    return Number(line.match(/total=(\d+)/)?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

export interface CpuSnapshot {
  at: number;
  ioStallUs: number;
  app: number;
  ceiling: number;
  pg: Map<number, number>;
  machine: { busy: number; irq: number; total: number };
}

export interface CpuUse {
  /** Each as a share of one core over the run (1.0 = one core busy). */
  app: number;
  postgres: number;
  ceiling: number;
  wrk: number;
  /** Interrupt and softirq time (loopback networking mostly), billed to no process. */
  irq: number;
  /** Everything else: other processes on the machine. */
  other: number;
  machineBusy: number;
  /** Share of the time some task on the machine was stalled on I/O (0–1). */
  ioStall: number;
}

export class CpuMeter {
  constructor(
    private readonly pids: { app: () => number | undefined; ceiling: () => number | undefined; postmaster?: number },
  ) {}

  snapshot(): CpuSnapshot {
    const app = this.pids.app();
    const ceiling = this.pids.ceiling();
    return {
      at: performance.now(),
      ioStallUs: ioStall(),
      app: app ? (procStat(app)?.cpu ?? 0) : 0,
      ceiling: ceiling ? (procStat(ceiling)?.cpu ?? 0) : 0,
      pg: this.pids.postmaster ? postgresCpu(this.pids.postmaster) : new Map(),
      machine: machine(),
    };
  }

  /** CPU use between two snapshots; `wrkSeconds` is what wrk reported using itself. */
  between(a: CpuSnapshot, b: CpuSnapshot, wrkSeconds: number): CpuUse {
    const wall = (b.at - a.at) / 1000;
    let pg = 0;
    for (const [pid, cpu] of b.pg) pg += cpu - (a.pg.get(pid) ?? 0);
    const app = b.app - a.app;
    const ceiling = b.ceiling - a.ceiling;
    const busy = b.machine.busy - a.machine.busy;
    const irq = b.machine.irq - a.machine.irq;
    const other = Math.max(0, busy - irq - app - ceiling - pg - wrkSeconds);
    return {
      app: app / wall,
      postgres: pg / wall,
      ceiling: ceiling / wall,
      wrk: wrkSeconds / wall,
      irq: irq / wall,
      other: other / wall,
      machineBusy: busy / wall,
      ioStall: (b.ioStallUs - a.ioStallUs) / 1e6 / wall,
    };
  }
}

/** VmHWM (peak resident set) and VmRSS of `pid`, in bytes. */
export function memory(pid: number): { peak: number; rss: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) =>
      Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, "m"))?.[1] ?? Number.NaN) * 1024;
    return { peak: kb("VmHWM"), rss: kb("VmRSS") };
  } catch {
    return undefined;
  }
}

/**
 * Resets the kernel's peak-RSS mark (VmHWM) of `pid` to its current RSS (`clear_refs` 5),
 * so the next reading is the peak of what ran since. False when not permitted.
 */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}
