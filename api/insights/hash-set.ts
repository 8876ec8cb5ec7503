/**
 * Sets and lists of 16-byte visitor hashes held in typed arrays, not as JavaScript strings.
 *
 * Why: the counter once kept today's hashes as strings in a `Set` (up to 200,000) and each
 * batch's new ones in arrays. A container that large, changed on every counted view, is
 * scanned again by every young-generation garbage collection, and a public page makes
 * garbage on every request: the bench measured the counted page at half the uncounted
 * page's rate with the app's JavaScript doing little more. Bytes in a typed array are never
 * scanned, so the cost of a view no longer grows with the visitors already seen.
 */

/** Bytes of a visitor hash. */
export const HASH_BYTES = 16;
const WORDS = HASH_BYTES / 4;

/**
 * A set of 16-byte hashes: open addressing with linear probing over one Uint32Array (4 words a
 * slot; all-zero words mark an empty slot, so the all-zero hash, a 2^-128 chance, is never
 * remembered and only costs a row that Postgres then finds already there). Holds at most
 * `max` hashes in 2 × `max` slots or more (a power of two), allocated on first use.
 */
export class HashSet16 {
  private slots: Uint32Array | undefined;
  private mask = 0;
  private count = 0;

  constructor(readonly max: number) {}

  get size(): number {
    return this.count;
  }

  /** Adds the hash whose first 16 bytes `words` views. Returns false when it was there already. */
  add(words: Uint32Array): boolean {
    const a = words[0] as number;
    const b = words[1] as number;
    const c = words[2] as number;
    const d = words[3] as number;
    if ((a | b | c | d) === 0) return true;
    let slots = this.slots;
    if (!slots) {
      let capacity = 1024;
      while (capacity < this.max * 2) capacity *= 2;
      slots = this.slots = new Uint32Array(capacity * WORDS);
      this.mask = capacity - 1;
    }
    // The words are already uniform (a digest): the first one picks the slot.
    let slot = a & this.mask;
    for (;;) {
      const at = slot * WORDS;
      if (isEmpty(slots, at)) break;
      if (slots[at] === a && slots[at + 1] === b && slots[at + 2] === c && slots[at + 3] === d) return false;
      slot = (slot + 1) & this.mask;
    }
    if (this.count >= this.max) {
      this.clear(); // every slot is empty again: the hash goes to its own
      slot = a & this.mask;
    }
    const at = slot * WORDS;
    slots[at] = a;
    slots[at + 1] = b;
    slots[at + 2] = c;
    slots[at + 3] = d;
    this.count += 1;
    return true;
  }

  /** Forgets every hash (keeps the memory). */
  clear() {
    this.slots?.fill(0);
    this.count = 0;
  }
}

const isEmpty = (slots: Uint32Array, at: number): boolean =>
  ((slots[at] as number) | (slots[at + 1] as number) | (slots[at + 2] as number) | (slots[at + 3] as number)) === 0;

/** Hashes grouped by owner, as `OwnedHashes.take` gives them: owner i's are [starts[i], starts[i] + counts[i]). */
export interface GroupedHashes {
  /** Every hash, 16 bytes each, owner 0's first. */
  bytes: Buffer;
  starts: number[];
  counts: number[];
}

/**
 * The new hashes of a batch, each with its owner (a small index: the counter's entry of a
 * profile and day), in arrival order, in two typed arrays that are kept from batch to batch
 * and grow by doubling. `take` groups them by owner into one buffer (a counting sort) and
 * empties the list.
 *
 * Why not a list per owner: a batch has an entry per profile viewed, and a typed array per
 * entry was grown every few views and copied again into a buffer of its own at the flush: 3%
 * of a counted page's CPU in the bench's profile (7% with each list on an ArrayBuffer of its
 * own, whose allocations count towards JavaScriptCore's next collection). This allocates only
 * when the batch is larger than any before it.
 */
export class OwnedHashes {
  private words = new Uint32Array(0);
  private owners = new Int32Array(0);
  private used = 0;

  /** Hashes held. */
  get length(): number {
    return this.used;
  }

  /** Appends the hash whose 16 bytes are `source[at .. at + 4)` (words), for `owner`. */
  push(owner: number, source: Uint32Array, at = 0) {
    const i = this.used;
    if (i === this.owners.length) this.grow();
    const w = i * WORDS;
    this.words[w] = source[at] as number;
    this.words[w + 1] = source[at + 1] as number;
    this.words[w + 2] = source[at + 2] as number;
    this.words[w + 3] = source[at + 3] as number;
    this.owners[i] = owner;
    this.used = i + 1;
  }

  private grow() {
    const capacity = Math.max(1024, this.owners.length * 2);
    const words = new Uint32Array(capacity * WORDS);
    words.set(this.words);
    const owners = new Int32Array(capacity);
    owners.set(this.owners);
    this.words = words;
    this.owners = owners;
  }

  /** Every hash, grouped by owner (0 … `ownerCount` − 1; each owner's in arrival order); then empty. */
  take(ownerCount: number): GroupedHashes {
    const perOwner = new Int32Array(ownerCount);
    for (let i = 0; i < this.used; i++) {
      const owner = this.owners[i] as number;
      perOwner[owner] = (perOwner[owner] as number) + 1;
    }
    const counts = Array.from(perOwner);
    const starts = new Array<number>(ownerCount);
    const next = new Int32Array(ownerCount);
    let held = 0;
    for (let owner = 0; owner < ownerCount; owner++) {
      starts[owner] = held;
      next[owner] = held;
      held += counts[owner] as number;
    }
    const out = new Uint32Array(new ArrayBuffer(held * HASH_BYTES));
    for (let i = 0; i < this.used; i++) {
      const owner = this.owners[i] as number;
      const slot = next[owner] as number;
      next[owner] = slot + 1;
      const to = slot * WORDS;
      const from = i * WORDS;
      out[to] = this.words[from] as number;
      out[to + 1] = this.words[from + 1] as number;
      out[to + 2] = this.words[from + 2] as number;
      out[to + 3] = this.words[from + 3] as number;
    }
    this.used = 0;
    return { bytes: Buffer.from(out.buffer), starts, counts };
  }
}
