/**
 * Where the counter's visitor hashes are computed (issue 14): a worker thread
 * (./hash-worker.ts), so that the hash and the set look-up of each counted view are not on
 * the thread that answers requests; the public page's thread only logs the view
 * (./visit-log.ts). If no worker starts, or one fails or does not answer within
 * ANSWER_MS, the same code (./visit-hashing.ts) runs on the calling thread from then on, and
 * says so in the log once: counts stay right, only the work moves. Its set of hashes already
 * sent starts empty then, which costs Postgres some rows that its `distinct` drops, never a
 * visitor counted twice.
 */
import { errorFields, log } from "../log";
import type { HashedVisits, VisitBatch } from "./visit-hashing";
import { VisitHashing } from "./visit-hashing";

const WORKER_FILE = "./hash-worker.ts";
/** How long a batch may take in the worker before it is taken back (about 1 µs a view: 100,000 take 0.1 s). */
const ANSWER_MS = 10_000;

interface Waiting {
  resolve(hashed: HashedVisits): void;
  reject(error: unknown): void;
}

export class HashingThread {
  private worker: Worker | undefined;
  private inline: VisitHashing | undefined;
  private waiting: Waiting | undefined;

  /** `workerUrl`: the worker's module (tests point it elsewhere); "inline" runs on the calling thread. */
  constructor(private readonly workerUrl: string | "inline" = new URL(WORKER_FILE, import.meta.url).href) {
    if (workerUrl === "inline") this.inline = new VisitHashing();
  }

  /** Whether batches are hashed in a worker thread (false after a fall back). */
  get inWorker(): boolean {
    return this.inline === undefined;
  }

  /** The new visitors' hashes of `batch`. One batch at a time (the counter's flushes run one after another). */
  async run(batch: VisitBatch): Promise<HashedVisits> {
    if (!this.inline) {
      try {
        return await this.inWorkerThread(batch);
      } catch (error) {
        // Unless `stop` was called meanwhile, which moved the work here itself.
        if (!this.inline) {
          log.warn("insights: the hashing worker failed; visitors are hashed on the main thread", errorFields(error));
          this.inline = new VisitHashing();
          this.terminate();
        }
      }
    }
    return (this.inline as VisitHashing).run(batch);
  }

  private inWorkerThread(batch: VisitBatch): Promise<HashedVisits> {
    const worker = this.start();
    return new Promise<HashedVisits>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_MS} ms`)), ANSWER_MS);
      this.waiting = {
        resolve: (hashed) => {
          clearTimeout(timer);
          resolve(hashed);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      worker.postMessage(batch);
    }).finally(() => {
      this.waiting = undefined;
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // Bun's Worker has unref (node:worker_threads' too); the DOM type does not say so.
    const worker = new Worker(this.workerUrl) as Worker & { unref(): void };
    worker.unref();
    worker.onmessage = (event: MessageEvent<HashedVisits>) => this.waiting?.resolve(event.data);
    worker.addEventListener("error", (event) => {
      this.waiting?.reject(new Error((event as ErrorEvent).message || "the hashing worker failed"));
      this.worker = undefined;
    });
    this.worker = worker;
    return worker;
  }

  /** Ends the worker; a batch it was hashing, and any later one, is hashed on this thread. */
  stop() {
    this.inline ??= new VisitHashing();
    const waiting = this.waiting;
    this.terminate();
    waiting?.reject(new Error("the counter was stopped"));
  }

  private terminate() {
    this.worker?.terminate();
    this.worker = undefined;
  }
}
