/**
 * The counter's hashing thread (issue 14): each message is a flush's views (a VisitBatch,
 * ./visit-hashing.ts); each answer their new visitors' hashes, in buffers handed over, not
 * copied. Its state (the salts' keys, the day's set of hashes already sent) lives here.
 */
import { type VisitBatch, VisitHashing } from "./visit-hashing";

declare const self: {
  onmessage: ((event: MessageEvent<VisitBatch>) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
};

const hashing = new VisitHashing();
self.onmessage = (event) => {
  const hashed = hashing.run(event.data);
  self.postMessage(hashed, [hashed.owners.buffer, hashed.words.buffer]);
};
