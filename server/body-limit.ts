/**
 * The largest request body the server reads (an avatar is at most 5 MB). Bun's own
 * `maxRequestBodySize` answers a bare 413 with no body and none of our headers, so the
 * limit is ours: a declared larger body is refused with a JSON 413 before any of it is
 * read, and a body without Content-Length is counted as it streams in and cut off at
 * the limit (see `limitBody`), its rest read and dropped (within LINGER_BYTES and LINGER_MS)
 * before the 413 goes out. Bun's ceiling stays as a last resort far above it.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
export const BUN_BODY_CEILING = 1024 * 1024 * 1024;

const bodyTooLarge = () =>
  Response.json(
    { message: "Request body is too large" },
    { status: 413, headers: { Connection: "close", "Cache-Control": "no-store" } },
  );

/**
 * How much of a streamed body past the limit is still read, and thrown away, before the 413
 * goes out (a "lingering close", as nginx and Apache do). A proxy in front (deploy/Caddyfile)
 * is still writing the body when the app has decided: were the socket closed under it, the
 * proxy would get a broken pipe, answer 502 instead of the app's 413, and count the instance
 * as failed (out of rotation for its fail_duration). Past either bound the rest is not read
 * and the connection closes, so a client cannot make the app read without end.
 */
export const LINGER_BYTES = 16 * 1024 * 1024;
export const LINGER_MS = 2000;

/** Reads and drops what is left of `reader`, up to `bytes` more or `ms`; then cancels it. */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, bytes: number, ms: number) {
  let left = bytes;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
  });
  try {
    while (left > 0) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "late" || next.done) break;
      left -= next.value.byteLength;
    }
  } catch {
    // The client went away: nothing left to read.
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

/**
 * A request whose streamed body (no Content-Length) errors once it passes `max` bytes;
 * `exceeded()` then says the handler's failure was the size, to be answered with 413 once
 * `settled()` (the rest of the body read and dropped, within LINGER_BYTES and LINGER_MS).
 */
function limitBody(
  request: Request,
  max: number,
): { request: Request; exceeded: () => boolean; settled: () => Promise<void> } {
  let exceeded = false;
  let settled: Promise<void> = Promise.resolve();
  if (!request.body || request.headers.has("content-length")) {
    return { request, exceeded: () => false, settled: () => settled };
  }
  const reader = request.body.getReader();
  let seen = 0;
  const counted = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await reader.read();
      if (next.done) return controller.close();
      seen += next.value.byteLength;
      if (seen > max) {
        exceeded = true;
        controller.error(new Error("request body too large"));
        settled = discardRest(reader, LINGER_BYTES, LINGER_MS);
        return;
      }
      controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  const limited = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: counted,
    signal: request.signal,
    // @ts-expect-error: streaming request bodies need duplex (not yet in the DOM types)
    duplex: "half",
  });
  return { request: limited, exceeded: () => exceeded, settled: () => settled };
}

/**
 * `handle(request)` with the body limit applied: a declared body over MAX_BODY_BYTES is a 413
 * before anything is read; a streamed one is handed over counted, and answered 413 once it
 * passes the limit, whatever the handler made of the cut-off body. A request without a body
 * goes straight to `handle` (its answer as it comes: a Response, or a promise of one).
 */
export function withBodyLimit(
  request: Request,
  handle: (request: Request) => Response | Promise<Response>,
): Response | Promise<Response> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return bodyTooLarge();
  const limited = limitBody(request, MAX_BODY_BYTES);
  if (limited.request === request) return handle(request);
  // A copy the socket does not know: the client address was decided from the original
  // request (HostEnv.clientAddress), which is what the app uses.
  return (async () => {
    const response = await handle(limited.request);
    if (!limited.exceeded()) return response;
    await limited.settled();
    return bodyTooLarge();
  })();
}
