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

/**
 * Views hashed at a time (about 1 ms of CPU), and the pause after each slice. A batch hashed in
 * one go (50-90 ms of CPU every few seconds, measured) takes a core the rest of the machine was
 * using (on the bench, the load generator's), and the kernel then moves that work onto the
 * core of the thread that answers requests: thousands of preemptions of it per batch in a
 * scheduler trace. In short slices with pauses the batch takes a third of a core for a few
 * hundred ms instead, well within the flush's 5 s.
 */
export const SLICE_VIEWS = 2048;
export const SLICE_PAUSE_MS = 2;

const hashing = new VisitHashing();
self.onmessage = async (event) => {
  const job = hashing.start(event.data);
  while (!hashing.step(job, SLICE_VIEWS)) await Bun.sleep(SLICE_PAUSE_MS);
  const hashed = hashing.finish(job);
  self.postMessage(hashed, [hashed.owners.buffer, hashed.words.buffer]);
};
