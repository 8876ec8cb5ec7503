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

/** A growing list of 16-byte hashes, in one buffer (4 words each, as `HashSet16.add` reads them). */
export class HashList {
  private words: Uint32Array = EMPTY;
  private used = 0;

  get length(): number {
    return this.used / WORDS;
  }

  /** Room for `words` more words. */
  private room(words: number) {
    if (this.used + words <= this.words.length) return;
    let length = Math.max(WORDS * 4, this.words.length * 2);
    while (length < this.used + words) length *= 2;
    const grown = new Uint32Array(length);
    grown.set(this.words.subarray(0, this.used));
    this.words = grown;
  }

  /** Appends the hash whose first 16 bytes `words` views. */
  push(words: Uint32Array) {
    this.room(WORDS);
    const at = this.used;
    this.words[at] = words[0] as number;
    this.words[at + 1] = words[1] as number;
    this.words[at + 2] = words[2] as number;
    this.words[at + 3] = words[3] as number;
    this.used = at + WORDS;
  }

  /** Appends every hash of `other`, in its order. */
  append(other: HashList) {
    this.room(other.used);
    this.words.set(other.words.subarray(0, other.used), this.used);
    this.used += other.used;
  }

  /** The hashes, 16 bytes each as they were written, in the order pushed (a view, not a copy). */
  bytes(): Uint8Array {
    return new Uint8Array(this.words.buffer, this.words.byteOffset, this.used * 4);
  }
}

const EMPTY = new Uint32Array(0);
