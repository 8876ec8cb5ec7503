/**
 * HMAC-SHA-256 (RFC 2104) of a counted view's visitor, `${address}\n${userAgent}\n${profileId}`
 * under the day's salt, written into a buffer the caller keeps: the hashing worker's one call
 * per counted view (./visit-hashing.ts), with every part already UTF-8 (the address as the
 * visit log holds it, ./visit-log.ts; each distinct User-Agent and profile id encoded once a
 * batch).
 *
 * Why not `new Bun.CryptoHasher("sha256", salt)` per view (same bytes): each of those is a
 * native object with memory of its own that only the garbage collector frees, and a viral
 * profile makes tens of thousands of them a second. Here the key's two padded blocks are made
 * once per salt, the message is copied into a buffer kept for it, and the two SHA-256 passes
 * are Bun's one-shot `Bun.SHA256.hash` into buffers kept too: a view allocates no native
 * memory. A message too long for the buffer (a User-Agent of kilobytes) takes the hasher.
 * The message's view for a length is made once: JavaScriptCore's `subarray` builds a new typed
 * array through a species look-up, which the bench's profile showed at 5% of a counted page's CPU.
 */

const BLOCK = 64;
const DIGEST = 32;
/** Bytes of message held in place. */
const MAX_MESSAGE = 4096;
const NEWLINE = new Uint8Array([10]);

export class VisitorHasher {
  /** The key's inner block (key ⊕ 0x36), then the message. */
  private readonly inner = new Uint8Array(BLOCK + MAX_MESSAGE);
  /** The key's outer block (key ⊕ 0x5c), then the inner digest. */
  private readonly outer = new Uint8Array(BLOCK + DIGEST);
  private readonly innerDigest = this.outer.subarray(BLOCK);
  /** `inner.subarray(0, length)` by length, made when first needed. */
  private readonly views: (Uint8Array | undefined)[] = [];

  constructor(private readonly key: Uint8Array) {
    const block = key.length > BLOCK ? new Uint8Array(Bun.SHA256.hash(key) as Uint8Array) : key;
    for (let i = 0; i < BLOCK; i++) {
      const byte = block[i] ?? 0;
      this.inner[i] = byte ^ 0x36;
      this.outer[i] = byte ^ 0x5c;
    }
  }

  /**
   * Writes the 32-byte HMAC at the start of `out`, of the message made of the address in
   * `bytes[from .. to)`, the User-Agent and the profile id (each UTF-8).
   */
  hash(bytes: Uint8Array, from: number, to: number, agent: Uint8Array, profileId: Uint8Array, out: Uint8Array): void {
    if (to - from + agent.length + profileId.length + 2 > MAX_MESSAGE) {
      new Bun.CryptoHasher("sha256", this.key)
        .update(bytes.subarray(from, to))
        .update(NEWLINE)
        .update(agent)
        .update(NEWLINE)
        .update(profileId)
        .digest(out);
      return;
    }
    const inner = this.inner;
    let at = BLOCK;
    for (let i = from; i < to; i++) inner[at++] = bytes[i] as number;
    inner[at++] = 10;
    inner.set(agent, at);
    at += agent.length;
    inner[at++] = 10;
    inner.set(profileId, at);
    this.digest(at + profileId.length, out);
  }

  /** The two SHA-256 passes over the key's blocks and the message, which ends at `at` in the inner buffer. */
  private digest(at: number, out: Uint8Array): void {
    Bun.SHA256.hash(this.message(at), this.innerDigest);
    Bun.SHA256.hash(this.outer, out);
  }

  /** The inner buffer's first `length` bytes (the key's block and the message), one view per length. */
  private message(length: number): Uint8Array {
    let view = this.views[length];
    if (!view) {
      view = this.inner.subarray(0, length);
      this.views[length] = view;
    }
    return view;
  }
}
