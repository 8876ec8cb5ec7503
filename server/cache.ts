/**
 * The one response cache, in front of Hono and Astro alike. A GET or HEAD is answered from
 * memory when a route declared an earlier answer of that path keepable (the KEEP_HEADER of
 * api/lib/cache.ts: its tags, and what a GET of it counts); the change notifications drop entries
 * by tag (api/lib/cache.ts). The ETag and 304 logic of every answer, kept or not, is here, and so
 * is the counting hook (api/insights/count.ts). Details: docs/caching.md.
 */
import { type Caches, KEEP_HEADER, type Keep, type Store } from "../api/lib/cache";
import { etagOf } from "../api/lib/http";
import { countClick, countView } from "../api/insights/count";
import { countProfileRequest } from "../api/profile/routes";
import { markSecured, securedHeaders } from "../api/lib/security";
import type { AppContext, HostEnv } from "../api/lib/types";
import { IMAGES_PREFIX } from "../src/lib/constants";

/**
 * An answer as kept: its final headers worked out once (a 304 copies them without
 * Content-Length: one Headers a kept answer, about 2.5 KB, not two).
 */
interface KeptAnswer {
  status: number;
  /** A Blob: every Response made from it shares its bytes (a Uint8Array would be copied per answer). */
  body: Blob;
  etag: string | null;
  headers: Headers;
  keep: Keep;
}

/** Statuses an answer may be kept with: a page or file, a redirect, a missing name or id. */
const KEPT_STATUSES = new Set([200, 302, 404]);

const storeFor = (caches: Caches, path: string): Store<object> =>
  path.startsWith(IMAGES_PREFIX) ? caches.images : caches.responses;

/**
 * `(request, path, env, next)`: the answer from memory, or `next`'s, kept when declared so. `security`: the server's security
 * headers, worked into the kept headers once.
 */
export function responseCache(ctx: AppContext, security?: Record<string, string>) {
  const secure = (list: [string, string][]) => (security ? securedHeaders(list, security) : new Headers(list));

  function answer(kept: KeptAnswer, request: Request): Response {
    const notModified = kept.etag !== null && request.headers.get("if-none-match") === kept.etag;
    const response = notModified
      ? notModifiedWith(kept.headers)
      : new Response(request.method === "HEAD" ? null : kept.body, { status: kept.status, headers: kept.headers });
    return security ? markSecured(response) : response;
  }

  /**
   * Counts what a GET of `kept` counts, and (served from memory: `limited`) the request against
   * its per-address limit; false when the limit refuses (the route then answers and says why).
   */
  function admit(kept: KeptAnswer, request: Request, env: HostEnv, limited: boolean): boolean {
    const { keep } = kept;
    if (limited && keep.limit === "profile") {
      try {
        countProfileRequest(ctx, env.clientAddress());
      } catch {
        return false;
      }
    }
    if (keep.view && kept.status === 200) countView(ctx, request, keep.view, env.clientAddress());
    if (keep.click && kept.status === 302) countClick(ctx, request, keep.click.id, keep.click.owner);
    return true;
  }

  async function fill(
    request: Request,
    path: string,
    env: HostEnv,
    next: (request: Request) => Response | Promise<Response>,
  ): Promise<Response> {
    const store = storeFor(ctx.caches, path);
    const since = store.begin();
    const response = await next(request);
    const declared = response.headers.get(KEEP_HEADER);
    if (!declared) return conditional(response, request);
    const keep = JSON.parse(declared) as Keep;
    // A HEAD has no body to keep: answered, and kept at the first GET.
    if (request.method === "HEAD" || !KEPT_STATUSES.has(response.status) || response.headers.has("set-cookie")) {
      return conditional(withoutKeep(response), request);
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    const etag = response.status === 302 ? null : (response.headers.get("etag") ?? etagOf(bytes));
    const list: [string, string][] = [];
    response.headers.forEach((value, key) => {
      if (key !== KEEP_HEADER && key !== "content-length" && key !== "etag") list.push([key, value]);
    });
    if (etag) list.push(["etag", etag]);
    const kept: KeptAnswer = {
      status: response.status,
      body: new Blob([bytes]),
      etag,
      headers: secure([...list, ["content-length", String(bytes.byteLength)]]),
      keep,
    };
    let size = bytes.byteLength + 256;
    for (const [key, value] of list) size += (key.length + value.length) * 4;
    store.set(path, kept, { tags: keep.tags, size, since });
    admit(kept, request, env, false);
    return answer(kept, request);
  }

  return function cached(
    request: Request,
    path: string,
    env: HostEnv,
    next: (request: Request) => Response | Promise<Response>,
  ): Response | Promise<Response> {
    if (request.method !== "GET" && request.method !== "HEAD") return Promise.resolve(next(request)).then(withoutKeep);
    const kept = storeFor(ctx.caches, path).get(path) as KeptAnswer | undefined;
    if (kept && admit(kept, request, env, true)) return answer(kept, request);
    return fill(request, path, env, next);
  };
}

/** `response` without the keep declaration (a route's answer that is not kept after all). */
function withoutKeep(response: Response): Response {
  if (!response.headers.has(KEEP_HEADER)) return response;
  const copy = new Response(response.body, response);
  copy.headers.delete(KEEP_HEADER);
  return copy;
}

/** A 200 whose ETag the request names becomes a 304 with the same headers and no body. */
export function conditional(response: Response, request: Request): Response {
  const etag = response.headers.get("etag");
  if (response.status !== 200 || !etag || request.headers.get("if-none-match") !== etag) return response;
  return notModifiedWith(response.headers);
}

/** A 304 carrying `headers` (copied) without Content-Length: a kept answer's and any other's. */
function notModifiedWith(headers: Headers): Response {
  const response = new Response(null, { status: 304, headers });
  response.headers.delete("content-length");
  return response;
}
