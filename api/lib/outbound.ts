/**
 * Calls to other systems (push services, Stripe) under our own bounds (issue 45), whatever the
 * library or the other side does: a total deadline (connect, answer and body), enforced here by
 * an abort signal AND a race, and a bound on the bytes of an answer read into memory.
 * (SMTP has its own in api/mail.ts.)
 */

export class DeadlineError extends Error {
  override name = "DeadlineError";
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

export class AnswerTooLargeError extends Error {
  override name = "AnswerTooLargeError";
  constructor(limit: number) {
    super(`the answer is larger than ${limit} bytes`);
  }
}

/**
 * Runs `work` with a signal that aborts after `ms`, and settles by then whatever `work` does
 * (a library that ignores the signal is left behind, its result dropped).
 */
export async function withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new DeadlineError(ms);
      controller.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads at most `limit` bytes of `body` within `ms`, then cancels the rest: answers whether it
 * ended within both. A body that errors (cut short) counts as not ended.
 */
export async function drainBounded(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  ms: number,
): Promise<boolean> {
  if (!body) return true;
  const reader = body.getReader();
  const timer = setTimeout(() => reader.cancel().catch(() => {}), ms);
  let read = 0;
  try {
    while (read <= limit) {
      const { done, value } = await reader.read();
      if (done) return true;
      read += value.byteLength;
    }
    return false;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

/**
 * A body that errors with AnswerTooLargeError once more than `limit` bytes came through (a
 * declared Content-Length above it fails at once, before reading).
 */
export function boundedResponse(response: Response, limit: number): Response {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) {
    response.body?.cancel().catch(() => {});
    throw new AnswerTooLargeError(limit);
  }
  if (!response.body) return response;
  let seen = 0;
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(new AnswerTooLargeError(limit));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * `fetch` under a total deadline of `ms` (the caller's own signal still counts) and an answer
 * bound of `limit` bytes: for SDKs that take a fetch function (Stripe).
 */
export function boundedFetch(ms: number, limit: number, base: typeof fetch = fetch): typeof fetch {
  const bounded = (input: RequestInfo | URL, init: RequestInit = {}) =>
    withDeadline(ms, async (deadline) => {
      const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
      const response = await base(input, { ...init, signal });
      const limited = boundedResponse(response, limit);
      // The body too must arrive by the deadline: read it here, within the race.
      const bytes = await limited.arrayBuffer();
      return new Response(bytes, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    });
  return Object.assign(bounded, { preconnect: base.preconnect }) as typeof fetch;
}
