import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { HASH_BYTES, HashSet16, OwnedHashes } from "../../api/insights/hash-set";

/** A hash as the counter holds it: 16 bytes viewed as 4 little-endian words. */
function hash(bytes: Uint8Array = randomBytes(HASH_BYTES)): Uint32Array {
  const copy = new Uint8Array(HASH_BYTES);
  copy.set(bytes.subarray(0, HASH_BYTES));
  return new Uint32Array(copy.buffer);
}

/** Hashes that differ from `base` in one byte only, at every position: no prefix or word decides alone. */
const oneByteApart = (base: Uint8Array) =>
  Array.from({ length: HASH_BYTES }, (_, i) => {
    const bytes = Uint8Array.from(base);
    bytes[i] = (bytes[i] as number) ^ 0x01;
    return hash(bytes);
  });

describe("HashSet16", () => {
  test("a hash is new once, then known", () => {
    const set = new HashSet16(10);
    const h = hash();
    expect(set.add(h)).toBe(true);
    expect(set.add(hash(new Uint8Array(h.buffer)))).toBe(false);
    expect(set.size).toBe(1);
  });

  test("hashes one byte apart are all different (every byte of the 16 counts)", () => {
    const base = randomBytes(HASH_BYTES);
    const set = new HashSet16(100);
    expect(set.add(hash(base))).toBe(true);
    for (const variant of oneByteApart(base)) expect(set.add(variant)).toBe(true);
    for (const variant of oneByteApart(base)) expect(set.add(variant)).toBe(false);
    expect(set.size).toBe(HASH_BYTES + 1);
  });

  test("hashes that pick the same slot (same first word) are told apart by probing", () => {
    const set = new HashSet16(100);
    const colliding = Array.from({ length: 50 }, (_, i) => {
      const bytes = randomBytes(HASH_BYTES);
      bytes.writeUInt32LE(0xabcdef01, 0);
      bytes[15] = i;
      return hash(bytes);
    });
    for (const h of colliding) expect(set.add(h)).toBe(true);
    for (const h of colliding) expect(set.add(h)).toBe(false);
    expect(set.size).toBe(50);
  });

  test("20,000 random hashes: each new once, none lost, a second pass finds all", () => {
    const set = new HashSet16(20_000);
    const all = Array.from({ length: 20_000 }, () => hash());
    expect(all.filter((h) => set.add(h)).length).toBe(20_000);
    expect(all.filter((h) => set.add(h)).length).toBe(0);
  });

  test("past `max` it starts again empty (Postgres still tells new from known)", () => {
    const set = new HashSet16(3);
    const [a, b, c, d] = [hash(), hash(), hash(), hash()];
    for (const h of [a, b, c]) set.add(h as Uint32Array);
    expect(set.size).toBe(3);
    expect(set.add(d as Uint32Array)).toBe(true);
    expect(set.size).toBe(1);
    expect(set.add(a as Uint32Array)).toBe(true); // forgotten
  });

  test("clear forgets everything", () => {
    const set = new HashSet16(10);
    const h = hash();
    set.add(h);
    set.clear();
    expect(set.size).toBe(0);
    expect(set.add(h)).toBe(true);
  });

  test("the all-zero hash is never remembered (it marks an empty slot)", () => {
    const set = new HashSet16(10);
    const zero = hash(new Uint8Array(HASH_BYTES));
    expect(set.add(zero)).toBe(true);
    expect(set.add(zero)).toBe(true);
    expect(set.size).toBe(0);
  });
});

describe("OwnedHashes", () => {
  test("take groups the hashes by owner, each owner's in arrival order, across growth, and empties the list", () => {
    const list = new OwnedHashes();
    const owners = 7;
    const want: Uint8Array[][] = Array.from({ length: owners }, () => []);
    for (let i = 0; i < 3000; i++) {
      const owner = (i * 5 + (i >> 3)) % owners === 3 ? 3 : (i * 13) % owners; // uneven, interleaved
      const bytes = randomBytes(HASH_BYTES);
      want[owner]?.push(bytes);
      list.push(owner, hash(bytes));
    }
    expect(list.length).toBe(3000);
    const { bytes, starts, counts } = list.take(owners);
    expect(list.length).toBe(0);
    expect(bytes.equals(Buffer.concat(want.flat()))).toBe(true);
    let start = 0;
    for (let owner = 0; owner < owners; owner++) {
      expect(starts[owner]).toBe(start);
      expect(counts[owner]).toBe(want[owner]?.length);
      const mine = bytes.subarray(start * HASH_BYTES, (start + (counts[owner] as number)) * HASH_BYTES);
      expect(mine.equals(Buffer.concat(want[owner] ?? []))).toBe(true);
      start += counts[owner] as number;
    }
  });

  test("an owner with no hashes gets a count of 0; an empty list gives zero bytes", () => {
    const list = new OwnedHashes();
    expect(list.take(3)).toEqual({ bytes: Buffer.alloc(0), starts: [0, 0, 0], counts: [0, 0, 0] });
    const [x, y] = [randomBytes(HASH_BYTES), randomBytes(HASH_BYTES)];
    list.push(2, hash(x));
    list.push(0, hash(y));
    const { bytes, starts, counts } = list.take(3);
    expect(counts).toEqual([1, 0, 1]);
    expect(starts).toEqual([0, 1, 1]);
    expect(bytes.equals(Buffer.concat([y, x]))).toBe(true);
  });

  test("push reads the hash at a word offset of its source; a list taken is reused with nothing left over", () => {
    const list = new OwnedHashes();
    const [x, y] = [randomBytes(HASH_BYTES), randomBytes(HASH_BYTES)];
    const source = new Uint32Array(Buffer.concat([x, y]).buffer.slice(0));
    list.push(0, source, 4);
    list.push(0, source, 0);
    expect(list.take(1).bytes.equals(Buffer.concat([y, x]))).toBe(true);
    list.push(0, source, 0);
    expect(list.take(1).bytes.equals(x)).toBe(true);
  });
});
