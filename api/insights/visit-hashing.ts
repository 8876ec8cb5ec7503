/**
 * The visitor hashes of a flush's views (issue 14): HMAC-SHA-256 under the salt of the view's
 * UTC day (./visitor-hash.ts), then the day's set of hashes this instance has already sent
 * (./hash-set.ts), which tells a new visitor from one who came back. Pure computation on
 * the data it is given: the counter runs it in a worker thread (./hash-worker.ts), or in its
 * own thread when no worker can start (./counter.ts, `HashingThread`).
 */
import { HASH_BYTES, HashSet16 } from "./hash-set";
import { addressStart, type LoggedVisits } from "./visit-log";
import { VisitorHasher } from "./visitor-hash";

/**
 * Hashes one instance remembers having sent today (beyond it Postgres still tells new from
 * known): a 2 MB table. Every view probes one random slot, and the probe's cache miss grows
 * with the table: hashing a batch of 131,072 views in a row measured 434 ns a view with this
 * table, 495 ns at 4 MB and 510 ns at 8 MB.
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
    const owners = new Int32Array(visits.count);
    const words = new Uint32Array(visits.count * WORDS);
    const { digest, digestWords } = this;
    let count = 0;
    for (let i = 0; i < visits.count; i++) {
      const owner = visits.owners[i] as number;
      const hasher = hashers[owner];
      if (!hasher) continue;
      hasher.hash(
        visits.address,
        addressStart(visits, i),
        visits.addressEnds[i] as number,
        agentBytes[visits.agentIds[i] as number] as Uint8Array,
        profileBytes[owner] as Uint8Array,
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

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
