import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { HASH_BYTES, HashList, HashSet16 } from "../../api/insights/hash-set";

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

describe("HashList", () => {
  test("gives back exactly the bytes pushed, in order, across growth", () => {
    const list = new HashList();
    const pushed: Uint8Array[] = [];
    for (let i = 0; i < 300; i++) {
      const bytes = randomBytes(HASH_BYTES);
      pushed.push(bytes);
      list.push(hash(bytes));
    }
    expect(list.length).toBe(300);
    expect(Buffer.from(list.bytes()).equals(Buffer.concat(pushed))).toBe(true);
  });

  test("an empty list is zero bytes; append keeps both lists' order", () => {
    const a = new HashList();
    const b = new HashList();
    expect(a.bytes().length).toBe(0);
    const [x, y, z] = [randomBytes(HASH_BYTES), randomBytes(HASH_BYTES), randomBytes(HASH_BYTES)];
    a.push(hash(x));
    b.push(hash(y));
    b.push(hash(z));
    a.append(b);
    expect(a.length).toBe(3);
    expect(Buffer.from(a.bytes()).equals(Buffer.concat([x, y, z]))).toBe(true);
  });
});
