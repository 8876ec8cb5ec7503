/**
 * The visitor hash as docs/insights.md defines it, written out with node:crypto: the
 * reference the stored rows are checked against.
 *
 *   HMAC-SHA-256(salt, `${userAgent}\n${profileId}\n${address}`), the first 16 bytes
 */
import { createHmac } from "node:crypto";

/** The 16 bytes stored, in hex. */
export const storedVisitorHash = (salt: Uint8Array, address: string, agent: string, profile: string): string =>
  createHmac("sha256", salt).update(`${agent}\n${profile}\n${address}`).digest().subarray(0, 16).toString("hex");
