/**
 * A counted view's visitor hash (issue 14), in two keyed steps:
 *
 *   pair key = HMAC-SHA-256(the day's salt, `${userAgent}\n${profileId}`)
 *   visitor  = SHA-256(pair key ‖ address)                      (the first 16 bytes are kept)
 *
 * The pair key is computed once per distinct (User-Agent, profile) of a flush (the hashing
 * worker keeps them for the batch, ./visit-hashing.ts): browsers send the same few User-Agents
 * over and over, so most views cost one SHA-256 of 32 + (at most 39) bytes, one block for an
 * IPv4 address. Measured on this machine's Bun: 66 ns a view, against 270 ns for one HMAC over
 * the whole (address, User-Agent, profile) message, two SHA-256 passes over five or six
 * blocks; each native call costs about 35 ns before its first block.
 *
 * Both steps are keyed by the salt: without it no one can compute a pair key, and without a
 * pair key no one can test an address against a stored hash. The second step is SHA-256 with
 * a secret 32-byte prefix, not an HMAC: length extension, the one weakness of a secret prefix,
 * only lets someone who already holds a hash forge the hash of a longer message, which nothing
 * here ever checks (a visitor hash is compared with other visitor hashes, never verified). A
 * User-Agent holds no newline (HTTP forbids one in a header value) and the pair key has a fixed
 * length, so each message reads back one way only.
 *
 * Why not `new Bun.CryptoHasher("sha256", salt)` per view: each of those is a native object
 * with memory of its own that only the garbage collector frees, and a viral profile makes tens
 * of thousands of them a second. Here the salt's two padded blocks are made once per salt, the
 * messages are copied into buffers kept for them, and each SHA-256 is Bun's one-shot
 * `Bun.SHA256.hash` into a buffer kept too: a view allocates no native memory. A message too
 * long for its buffer (a User-Agent of kilobytes) takes the hasher. A message's view for a
 * length is made once: JavaScriptCore's `subarray` builds a new typed array through a species
 * look-up, which the bench's profile showed at 5% of a counted page's CPU.
 */

const BLOCK = 64;
const DIGEST = 32;
/** Bytes of a pair key. */
const PAIR_KEY_BYTES = DIGEST;
/** 32-bit words of a pair key, as callers keep them (`visitor` reads them so). */
export const PAIR_KEY_WORDS = PAIR_KEY_BYTES / 4;
/** Bytes of a pair key's message (User-Agent, profile id) held in place. */
const MAX_MESSAGE = 4096;
/** Bytes of address held in place after a pair key (an IP address in text has at most 45). */
const MAX_ADDRESS = 256;
const NEWLINE = new Uint8Array([10]);

/** `buffer.subarray(0, length)` by length, each made when first needed. */
class Prefixes {
  private readonly views: (Uint8Array | undefined)[] = [];
  constructor(readonly buffer: Uint8Array) {}

  of(length: number): Uint8Array {
    let view = this.views[length];
    if (!view) {
      view = this.buffer.subarray(0, length);
      this.views[length] = view;
    }
    return view;
  }
}

export class VisitorHasher {
  /** The salt's inner block (salt ⊕ 0x36), then a pair key's message. */
  private readonly inner = new Prefixes(new Uint8Array(BLOCK + MAX_MESSAGE));
  /** The salt's outer block (salt ⊕ 0x5c), then the inner digest. */
  private readonly outer = new Uint8Array(BLOCK + DIGEST);
  private readonly innerDigest = this.outer.subarray(BLOCK);
  /** A pair key, then an address. */
  private readonly visitorMessage = new Prefixes(new Uint8Array(PAIR_KEY_BYTES + MAX_ADDRESS));
  private readonly visitorWords = new Uint32Array(this.visitorMessage.buffer.buffer, 0, PAIR_KEY_WORDS);
  /** The hasher's answer (Bun's `digest` into a buffer asks for at least 64 bytes). */
  private readonly scratch = new Uint8Array(64);

  constructor(private readonly salt: Uint8Array) {
    const block = salt.length > BLOCK ? new Uint8Array(Bun.SHA256.hash(salt) as Uint8Array) : salt;
    const inner = this.inner.buffer;
    for (let i = 0; i < BLOCK; i++) {
      const byte = block[i] ?? 0;
      inner[i] = byte ^ 0x36;
      this.outer[i] = byte ^ 0x5c;
    }
  }

  /** HMAC-SHA-256(salt, agent ‖ "\n" ‖ profileId) into the first 32 bytes of `out`. */
  pairKey(agent: Uint8Array, profileId: Uint8Array, out: Uint8Array): void {
    if (agent.length + profileId.length + 1 > MAX_MESSAGE) {
      new Bun.CryptoHasher("sha256", this.salt).update(agent).update(NEWLINE).update(profileId).digest(this.scratch);
      out.set(this.scratch.subarray(0, DIGEST));
      return;
    }
    const inner = this.inner.buffer;
    let at = BLOCK;
    inner.set(agent, at);
    at += agent.length;
    inner[at++] = 10;
    inner.set(profileId, at);
    Bun.SHA256.hash(this.inner.of(at + profileId.length), this.innerDigest);
    Bun.SHA256.hash(this.outer, out);
  }

  /**
   * SHA-256(pair key ‖ address) into the first 32 bytes of `out`: the pair key is
   * `keys[keyAt .. keyAt + 8)` (words, as `pairKey` wrote its bytes), the address
   * `bytes[from .. to)`.
   */
  visitor(keys: Uint32Array, keyAt: number, bytes: Uint8Array, from: number, to: number, out: Uint8Array): void {
    const words = this.visitorWords;
    for (let w = 0; w < PAIR_KEY_WORDS; w++) words[w] = keys[keyAt + w] as number;
    if (to - from > MAX_ADDRESS) {
      new Bun.CryptoHasher("sha256")
        .update(this.visitorMessage.of(PAIR_KEY_BYTES))
        .update(bytes.subarray(from, to))
        .digest(this.scratch);
      out.set(this.scratch.subarray(0, DIGEST));
      return;
    }
    const message = this.visitorMessage.buffer;
    let at = PAIR_KEY_BYTES;
    for (let i = from; i < to; i++) message[at++] = bytes[i] as number;
    Bun.SHA256.hash(this.visitorMessage.of(at), out);
  }
}
