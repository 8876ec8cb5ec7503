/**
 * Shutdown that drains: how one instance leaves a load balancer without costing anyone a
 * request (the sequence is in docs/deploy-notes.md, "Stopping an instance").
 *
 * SIGTERM: serve on for SHUTDOWN_DRAIN_SECONDS with `/api/health` answering 503 "draining"
 * and every answer `Connection: close`; then stop listening, let requests in flight finish
 * (up to 15 s), close the database and exit 0. A second SIGTERM, or SIGINT, stops at once.
 */

export type ShutdownPhase = "serving" | "draining" | "stopping";

export interface ShutdownLog {
  info(msg: string, fields?: Record<string, unknown>): void;
}

export interface ShutdownOptions {
  /** How long to keep serving after SIGTERM while the proxy notices (SHUTDOWN_DRAIN_SECONDS). */
  drainMs: number;
  /** How long requests still in flight once listening stops may take. */
  finishMs?: number;
  log: ShutdownLog;
  /** Applied to the answers this module makes itself (the draining health answer): security headers. */
  decorate?: (response: Response) => Response;
}

export interface ShutdownHooks {
  /** Stops accepting connections (Bun's `server.stop(false)`). */
  stopListening(): Promise<unknown>;
  /** Requests being answered right now. */
  inFlight(): number;
  closeDatabase(): Promise<void>;
  exit(code: number): void;
}

type FetchHandler = (request: Request, server: Bun.Server<undefined>) => Response | Promise<Response>;

export const HEALTH_PATH = "/api/health";
export const FINISH_MS = 15_000;

/** The path of a request URL, without parsing the whole URL (only asked while draining). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, start + end);
}

/** The same answer with `Connection: close` (copied when its headers cannot change). */
export function withConnectionClose(response: Response): Response {
  try {
    response.headers.set("Connection", "close");
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set("Connection", "close");
    return copy;
  }
}

export function drainingHealth(): Response {
  return Response.json(
    { status: "draining", message: "This instance is shutting down; it still serves requests for a moment." },
    { status: 503, headers: { "Cache-Control": "no-store", "Retry-After": "5", Connection: "close" } },
  );
}

export class Shutdown {
  #phase: ShutdownPhase = "serving";
  #timer: ReturnType<typeof setTimeout> | undefined;
  #hooks: ShutdownHooks | undefined;
  #stopped: Promise<void> | undefined;
  readonly #options: ShutdownOptions;

  constructor(options: ShutdownOptions) {
    this.#options = options;
  }

  get phase(): ShutdownPhase {
    return this.#phase;
  }

  /**
   * The server's fetch handler, drain-aware: while draining or stopping, the health check
   * answers 503 and every other answer carries `Connection: close`. While serving, the
   * handler's answer is passed through untouched.
   */
  handler(fetch: FetchHandler): FetchHandler {
    // Asked after the work: a request that began before the signal is answered during the drain.
    const marked = (response: Response) => (this.#phase === "serving" ? response : withConnectionClose(response));
    return (request, server) => {
      if (this.#phase !== "serving" && pathOf(request.url) === HEALTH_PATH) {
        const answer = drainingHealth();
        return this.#options.decorate ? this.#options.decorate(answer) : answer;
      }
      const response = fetch(request, server);
      return response instanceof Response ? marked(response) : response.then(marked);
    };
  }

  /** Listens for SIGTERM and SIGINT on this process. */
  listen(hooks: ShutdownHooks): void {
    this.#hooks = hooks;
    process.on("SIGTERM", () => this.signal("SIGTERM"));
    process.on("SIGINT", () => this.signal("SIGINT"));
  }

  /**
   * What a signal does: SIGTERM while serving starts the drain; SIGINT, or any signal
   * during the drain, stops at once; during the stop, signals change nothing.
   */
  signal(signal: "SIGTERM" | "SIGINT"): void {
    const hooks = this.#hooks;
    if (!hooks) throw new Error("Shutdown.signal before listen()");
    if (this.#phase === "stopping") {
      this.#options.log.info("already stopping", { signal });
      return;
    }
    if (this.#phase === "serving" && signal === "SIGTERM" && this.#options.drainMs > 0) {
      this.#phase = "draining";
      this.#options.log.info("draining", {
        signal,
        seconds: this.#options.drainMs / 1000,
        inFlight: hooks.inFlight(),
      });
      this.#timer = setTimeout(() => void this.#stop("drain over", hooks), this.#options.drainMs);
      return;
    }
    const reason = this.#phase === "draining" ? `${signal} during the drain: drain skipped` : signal;
    void this.#stop(reason, hooks);
  }

  #stop(reason: string, hooks: ShutdownHooks): Promise<void> {
    clearTimeout(this.#timer);
    this.#stopped ??= (async () => {
      this.#phase = "stopping";
      this.#options.log.info("shutting down", { reason, inFlight: hooks.inFlight() });
      const stopped = hooks.stopListening();
      const deadline = Date.now() + (this.#options.finishMs ?? FINISH_MS);
      while (hooks.inFlight() > 0 && Date.now() < deadline) await Bun.sleep(25);
      await Promise.race([stopped, Bun.sleep(1000)]);
      await hooks.closeDatabase();
      this.#options.log.info("stopped", { reason, unfinished: hooks.inFlight() });
      hooks.exit(0);
    })();
    return this.#stopped;
  }
}
