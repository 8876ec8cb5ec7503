/**
 * The visitor hashes of a flush's views (issue 14): keyed by the salt of the view's UTC day
 * (./visitor-hash.ts: one HMAC per distinct User-Agent and profile of the batch, then one
 * SHA-256 block or two per view), then the day's set of hashes this instance has already sent
 * (./hash-set.ts), which tells a new visitor from one who came back. Pure computation on
 * the data it is given: the counter runs it in a worker thread (./hash-worker.ts), or in its
 * own thread when no worker can start (./counter.ts, `HashingThread`).
 */
import { HASH_BYTES, HashSet16 } from "./hash-set";
import { addressStart, type LoggedVisits } from "./visit-log";
import { PAIR_KEY_WORDS, VisitorHasher } from "./visitor-hash";

/**
 * Hashes one instance remembers having sent today (beyond it Postgres still tells new from
 * known): a 2 MB table. Every view probes one random slot, and the probe's cache miss grows
 * with the table: hashing a batch of 131,072 views in a row measured 434 ns a view with this
 * table, 495 ns at 4 MB and 510 ns at 8 MB (with one HMAC per view, before the pair keys).
 */
export const MAX_SEEN = 65_536;

/** What a flush asks: its views, each owner's profile and day, the salts of those days, and the room for new hashes. */
export interface VisitBatch {
  visits: LoggedVisits;
  /** Owner (the counter's entry) i's profile id and UTC day. */
  profiles: string[];
  days: string[];
  /** The salts known, by UTC day; a view of a day not among them is not hashed. */
  salts: [string, Uint8Array][];
  /** New hashes the counter can still hold: past it, a new visitor is neither kept nor remembered. */
  room: number;
}

/** The new visitors' hashes of a batch, in view order: hash i is `words[4i .. 4i + 4)`, its owner `owners[i]`. */
export interface HashedVisits {
  count: number;
  owners: Int32Array;
  words: Uint32Array;
}

const WORDS = HASH_BYTES / 4;
const encoder = new TextEncoder();

export class VisitHashing {
  private hashers = new Map<string, { salt: Uint8Array; hasher: VisitorHasher }>();
  private seen = new HashSet16(MAX_SEEN);
  private seenDay = "";
  private readonly digest = new Uint8Array(64);
  private readonly digestWords = new Uint32Array(this.digest.buffer, 0, WORDS);

  run({ visits, profiles, days, salts, room }: VisitBatch): HashedVisits {
    const known = new Map<string, { salt: Uint8Array; hasher: VisitorHasher }>();
    for (const [day, salt] of salts) {
      const held = this.hashers.get(day);
      known.set(day, held && equalBytes(held.salt, salt) ? held : { salt, hasher: new VisitorHasher(salt) });
    }
    this.hashers = known;
    // Per owner (a profile and day), its hasher and its profile id's bytes; per distinct User-Agent, its bytes.
    const hashers = days.map((day) => known.get(day)?.hasher);
    const profileBytes = profiles.map((id) => encoder.encode(id));
    const agentBytes = visits.agents.map((agent) => encoder.encode(agent));
    const pairKeys = new PairKeys(profiles.length, visits.agents.length);
    const owners = new Int32Array(visits.count);
    const words = new Uint32Array(visits.count * WORDS);
    const { digest, digestWords } = this;
    let count = 0;
    for (let i = 0; i < visits.count; i++) {
      const owner = visits.owners[i] as number;
      const hasher = hashers[owner];
      if (!hasher) continue;
      const agentId = visits.agentIds[i] as number;
      let keyAt = pairKeys.find(owner, agentId);
      if (keyAt < 0) {
        keyAt = pairKeys.add(owner, agentId);
        hasher.pairKey(agentBytes[agentId] as Uint8Array, profileBytes[owner] as Uint8Array, pairKeys.bytesAt(keyAt));
      }
      hasher.visitor(
        pairKeys.words,
        keyAt,
        visits.address,
        addressStart(visits, i),
        visits.addressEnds[i] as number,
        digest,
      );
      const day = days[owner] as string;
      if (this.seenDay !== day) {
        this.seenDay = day;
        this.seen.clear();
      }
      // No room: neither kept nor remembered, so that the visitor counts once seen again with room.
      if (count >= room || !this.seen.add(digestWords)) continue;
      owners[count] = owner;
      const at = count * WORDS;
      words[at] = digestWords[0] as number;
      words[at + 1] = digestWords[1] as number;
      words[at + 2] = digestWords[2] as number;
      words[at + 3] = digestWords[3] as number;
      count += 1;
    }
    return { count, owners: owners.slice(0, count), words: words.slice(0, count * WORDS) };
  }
}

/** (owner, User-Agent) pairs a batch indexes in a table (4 MB at most) rather than in a map. */
const MAX_PAIR_TABLE = 1 << 20;

/**
 * A batch's pair keys (./visitor-hash.ts), one per distinct (owner, User-Agent) it holds, side
 * by side in one Uint32Array, 8 words each. Found by `agentId × owners + owner`: in a table
 * when the batch's owners times its User-Agents are few enough (browsers send a handful of
 * User-Agents), else through a map.
 */
class PairKeys {
  words = new Uint32Array(PAIR_KEY_WORDS * 256);
  private count = 0;
  /** Where each pair's key starts in `words`, plus one (0: none yet). */
  private readonly table: Int32Array | undefined;
  private readonly map: Map<number, number> | undefined;

  constructor(
    private readonly owners: number,
    agents: number,
  ) {
    if (owners * agents <= MAX_PAIR_TABLE) this.table = new Int32Array(owners * agents);
    else this.map = new Map();
  }

  /** Where (owner, agentId)'s key starts in `words`, or -1. */
  find(owner: number, agentId: number): number {
    const pair = agentId * this.owners + owner;
    if (this.table) return (this.table[pair] as number) - 1;
    return this.map?.get(pair) ?? -1;
  }

  /** A place for (owner, agentId)'s key (its bytes: `bytesAt`); returns where it starts in `words`. */
  add(owner: number, agentId: number): number {
    const at = this.count * PAIR_KEY_WORDS;
    if (at + PAIR_KEY_WORDS > this.words.length) {
      const grown = new Uint32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    this.count += 1;
    const pair = agentId * this.owners + owner;
    if (this.table) this.table[pair] = at + 1;
    else this.map?.set(pair, at);
    return at;
  }

  /** The key at `at` (words) as bytes, to be written. */
  bytesAt(at: number): Uint8Array {
    return new Uint8Array(this.words.buffer, at * 4, PAIR_KEY_WORDS * 4);
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
