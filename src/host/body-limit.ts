/**
 * The largest request body the server reads (an avatar is at most 5 MB). Bun's own
 * `maxRequestBodySize` answers a bare 413 with no body and none of our headers, so the
 * limit is ours: a declared larger body is refused with a JSON 413 before any of it is
 * read, and a body without Content-Length is counted as it streams in and cut off at
 * the limit (see `limitBody`). Bun's ceiling stays as a last resort far above it.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
export const BUN_BODY_CEILING = 1024 * 1024 * 1024;

const bodyTooLarge = () =>
  Response.json(
    { message: "Request body is too large" },
    { status: 413, headers: { Connection: "close", "Cache-Control": "no-store" } },
  );

/**
 * A request whose streamed body (no Content-Length) errors once it passes `max` bytes;
 * `exceeded()` then says the handler's failure was the size, to be answered with 413.
 */
function limitBody(request: Request, max: number): { request: Request; exceeded: () => boolean } {
  let exceeded = false;
  if (!request.body || request.headers.has("content-length")) return { request, exceeded: () => false };
  let seen = 0;
  const counted = request.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > max) {
          exceeded = true;
          controller.error(new Error("request body too large"));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
  const limited = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: counted,
    signal: request.signal,
    // @ts-expect-error: streaming request bodies need duplex (not yet in the DOM types)
    duplex: "half",
  });
  return { request: limited, exceeded: () => exceeded };
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
    return limited.exceeded() ? bodyTooLarge() : response;
  })();
}
