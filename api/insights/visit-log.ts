/**
 * The views of a batch whose visitor is still to be hashed (issue 14): the counter's one
 * record per counted view (./counter.ts), taken at each flush and hashed there, off the
 * request path (./visit-hashing.ts, in a worker thread).
 *
 * A view costs a few stores: its owner (the counter's entry of a profile and day), its address
 * as bytes (addresses are ASCII: one char code each), and its User-Agent as a small number.
 * Browsers send the same User-Agent over and over, each request in a string of its own: the
 * log keeps one copy of each distinct one, found by comparing with the last one seen (most
 * requests) or through a map. Nothing here is a JavaScript object per view, so the garbage
 * collector has little to scan however long the batch.
 */
const encoder = new TextEncoder();

/**
 * `text` as UTF-8 into `target` at `at` (room for 3 bytes per UTF-16 unit is the caller's
 * to ensure); returns where it ends. ASCII (addresses always) a char code at a time, which
 * makes no typed array; other text through TextEncoder, from `at` again.
 */
function writeUtf8(target: Uint8Array, text: string, at: number): number {
  const start = at;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return start + encoder.encodeInto(text, target.subarray(start)).written;
    target[at++] = code;
  }
  return at;
}

/** A batch's views as `VisitLog.take` gives them: view i is `owners[i]`'s, from address `address[addressEnds[i - 1] .. addressEnds[i])` and User-Agent `agents[agentIds[i]]`. */
export interface LoggedVisits {
  count: number;
  owners: Int32Array;
  addressEnds: Int32Array;
  address: Uint8Array;
  agentIds: Int32Array;
  agents: string[];
}

/** Where view `i`'s address starts in `visits.address` (it ends at `visits.addressEnds[i]`). */
export const addressStart = (visits: LoggedVisits, i: number): number =>
  i === 0 ? 0 : (visits.addressEnds[i - 1] as number);

export class VisitLog {
  private owners = new Int32Array(1024);
  private addressEnds = new Int32Array(1024);
  private agentIds = new Int32Array(1024);
  private address = new Uint8Array(16 * 1024);
  private addressUsed = 0;
  private agents: string[] = [];
  private agentIndex = new Map<string, number>();
  private lastAgent: string | undefined;
  private lastAgentId = -1;
  private used = 0;
  /** UTF-16 units of the distinct User-Agents held. */
  private agentChars = 0;

  constructor(
    /** Views held at most; past it `push` refuses (the view still counts as a view). */
    readonly maxVisits: number,
    /** UTF-16 units of distinct User-Agents held at most (each request may send a new one). */
    readonly maxAgentChars: number,
  ) {}

  /** Views held. */
  get length(): number {
    return this.used;
  }

  /** UTF-16 units of the distinct User-Agents held. */
  get agentLength(): number {
    return this.agentChars;
  }

  /** Logs one view of `owner` by (address, agent); false when the log is full. */
  push(owner: number, address: string, agent: string): boolean {
    const i = this.used;
    if (i >= this.maxVisits) return false;
    let agentId: number;
    if (agent === this.lastAgent) agentId = this.lastAgentId;
    else {
      const known = this.agentIndex.get(agent);
      if (known !== undefined) agentId = known;
      else {
        if (this.agentChars + agent.length > this.maxAgentChars) return false;
        agentId = this.agents.length;
        this.agents.push(agent);
        this.agentIndex.set(agent, agentId);
        this.agentChars += agent.length;
      }
      this.lastAgent = agent;
      this.lastAgentId = agentId;
    }
    if (i === this.owners.length) this.growViews();
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const needed = this.addressUsed + address.length * 3;
    if (needed > this.address.length) this.growAddress(needed);
    const at = writeUtf8(this.address, address, this.addressUsed);
    this.addressUsed = at;
    this.owners[i] = owner;
    this.addressEnds[i] = at;
    this.agentIds[i] = agentId;
    this.used = i + 1;
    return true;
  }

  /** Logs view `i` of `visits` again, for `owner` (a view that waits for a later flush). */
  pushFrom(visits: LoggedVisits, i: number, owner: number): boolean {
    const from = addressStart(visits, i);
    const address = Buffer.from(
      visits.address.buffer,
      visits.address.byteOffset + from,
      (visits.addressEnds[i] as number) - from,
    );
    return this.push(owner, address.toString("utf8"), visits.agents[visits.agentIds[i] as number] as string);
  }

  /** Every view held (in arrays of their own, which may be sent to another thread); then empty. */
  take(): LoggedVisits {
    const count = this.used;
    const taken: LoggedVisits = {
      count,
      owners: this.owners.slice(0, count),
      addressEnds: this.addressEnds.slice(0, count),
      address: this.address.slice(0, this.addressUsed),
      agentIds: this.agentIds.slice(0, count),
      agents: this.agents,
    };
    this.used = 0;
    this.addressUsed = 0;
    this.agents = [];
    this.agentIndex = new Map();
    this.lastAgent = undefined;
    this.lastAgentId = -1;
    this.agentChars = 0;
    return taken;
  }

  private growViews() {
    const capacity = this.owners.length * 2;
    for (const name of ["owners", "addressEnds", "agentIds"] as const) {
      const next = new Int32Array(capacity);
      next.set(this[name]);
      this[name] = next;
    }
  }

  private growAddress(needed: number) {
    let capacity = this.address.length * 2;
    while (capacity < needed) capacity *= 2;
    const next = new Uint8Array(capacity);
    next.set(this.address.subarray(0, this.addressUsed));
    this.address = next;
  }
}
