/**
 * The visitor hash as SECURITY.md defines it (issue 14), written plainly with node:crypto: the
 * reference that api/insights/visitor-hash.ts, the hashing worker and the stored rows are
 * checked against.
 *
 *   SHA-256(HMAC-SHA-256(salt, `${userAgent}\n${profileId}`) ‖ address)
 */
import { createHash, createHmac } from "node:crypto";

/** The whole 32-byte hash. */
export const visitorHash = (salt: Uint8Array, address: string, agent: string, profile: string): Buffer =>
  createHash("sha256")
    .update(createHmac("sha256", salt).update(`${agent}\n${profile}`).digest())
    .update(address)
    .digest();

/** The 16 bytes stored, in hex. */
export const storedVisitorHash = (salt: Uint8Array, address: string, agent: string, profile: string): string =>
  visitorHash(salt, address, agent, profile).subarray(0, 16).toString("hex");
