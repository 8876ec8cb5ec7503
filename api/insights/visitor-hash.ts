/**
 * HMAC-SHA-256 (RFC 2104) of a counted view's visitor, `${address}\n${userAgent}\n${profileId}`
 * under the day's salt, written into a buffer the caller keeps: the counter's one call per
 * counted view (./counter.ts).
 *
 * Why not `new Bun.CryptoHasher("sha256", salt)` per view (same bytes): each of those is a
 * native object with memory of its own that only the garbage collector frees, and a viral
 * profile makes tens of thousands of them a second. Here the key's two padded blocks are made
 * once per salt, the message is encoded into a buffer kept for it, and the two SHA-256 passes
 * are Bun's one-shot `Bun.SHA256.hash` into buffers kept too: a view allocates no native
 * memory. A message too long for the buffer (a User-Agent of kilobytes) takes the hasher.
 *
 * ASCII (addresses and profile ids always, User-Agents nearly always) is copied a char code at
 * a time, and the message's view for a length is made once: JavaScriptCore's `subarray` (and
 * so `encodeInto` at an offset) builds a new typed array through a species look-up, which the
 * bench's profile showed at 5% of a counted page's CPU. Other text goes through TextEncoder.
 */

const BLOCK = 64;
const DIGEST = 32;
/** Bytes of message encoded in place; UTF-8 takes at most 3 bytes per UTF-16 unit. */
const MAX_MESSAGE = 4096;
const encoder = new TextEncoder();
const NEWLINE = new Uint8Array([10]);

/**
 * `text` as UTF-8 into `target` at `at` (room for 3 bytes per UTF-16 unit is the caller's
 * to ensure); returns where it ends. ASCII a char code at a time; other text through
 * TextEncoder, from `at` again. Also the visit log's (./visit-log.ts).
 */
export function writeUtf8(target: Uint8Array, text: string, at: number): number {
  const start = at;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return start + encoder.encodeInto(text, target.subarray(start)).written;
    target[at++] = code;
  }
  return at;
}

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

  /** Writes the 32-byte HMAC of the visitor's message at the start of `out`. */
  hash(address: string, agent: string, profileId: string, out: Uint8Array): void {
    if ((address.length + agent.length + profileId.length + 2) * 3 > MAX_MESSAGE) {
      new Bun.CryptoHasher("sha256", this.key).update(`${address}\n${agent}\n${profileId}`).digest(out);
      return;
    }
    this.finish(writeUtf8(this.inner, address, BLOCK), agent, profileId, out);
  }

  /**
   * `hash`, with every part already UTF-8: the address in `bytes[from .. to)`, the User-Agent
   * and the profile id whole. The hashing worker's call (./visit-hashing.ts): it is sent each
   * view's address as bytes (./visit-log.ts) and encodes each distinct User-Agent and profile
   * id once a batch, so that a view copies them as bytes rather than a char code at a time.
   */
  hashEncoded(
    bytes: Uint8Array,
    from: number,
    to: number,
    agent: Uint8Array,
    profileId: Uint8Array,
    out: Uint8Array,
  ): void {
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

  /** The message's rest after the address (which ends at `at`), and the two SHA-256 passes. */
  private finish(at: number, agent: string, profileId: string, out: Uint8Array): void {
    this.inner[at++] = 10;
    at = writeUtf8(this.inner, agent, at);
    this.inner[at++] = 10;
    this.digest(writeUtf8(this.inner, profileId, at), out);
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
