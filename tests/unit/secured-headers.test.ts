/**
 * Issue 17: answers kept in memory (the host's response cache, built files) are made with their
 * final headers worked out once. Each must carry exactly the headers the per-request path
 * gives (the answer without them, then withSecurityHeaders), for a 200, a HEAD and a 304,
 * in development and in production (HSTS).
 */
import { describe, expect, test } from "bun:test";
import { Caches, kept } from "../../api/lib/cache";
import { securityHeaders, withSecurityHeaders } from "../../api/lib/security";
import type { AppContext, HostEnv } from "../../api/lib/types";
import { responseCache } from "../../server/cache";
import { type StaticFile, serveStatic } from "../../server/static";

/** A route's answer, as the host keeps it. */
interface RouteAnswer {
  status: number;
  body: Blob;
  headers: [string, string][];
  etag: string;
}

const entries = (response: Response) => [...response.headers.entries()].sort(([a], [b]) => a.localeCompare(b));

const requests = (etag: string) => [
  { name: "GET", request: new Request("http://x/p") },
  { name: "GET with gzip", request: new Request("http://x/p", { headers: { "accept-encoding": "gzip, br" } }) },
  { name: "HEAD", request: new Request("http://x/p", { method: "HEAD" }) },
  { name: "304", request: new Request("http://x/p", { headers: { "if-none-match": etag } }) },
];

const page: RouteAnswer = {
  status: 200,
  body: new Blob(["<!doctype html><p>hi</p>"]),
  headers: [
    ["content-type", "text/html; charset=utf-8"],
    ["cache-control", "no-cache"],
    ["content-security-policy", "script-src 'self' 'sha256-abc'; style-src 'self'"],
  ],
  etag: '"page1"',
};
const json: RouteAnswer = {
  status: 404,
  body: new Blob(['{"message":"Not found"}']),
  headers: [
    ["content-type", "application/json"],
    ["cache-control", "no-cache"],
  ],
  etag: '"json1"',
};
const file: StaticFile = {
  body: new Blob([new Uint8Array(2000).fill(65)]),
  gzip: new Blob([new Uint8Array(30)]),
  type: "text/html;charset=utf-8",
  etag: '"file1"',
  cacheControl: "public, max-age=0, must-revalidate",
};
const image: RouteAnswer = {
  status: 200,
  body: new Blob([new Uint8Array(1234)]),
  headers: [
    ["content-type", "image/webp"],
    ["cache-control", "public, max-age=31536000, immutable"],
  ],
  etag: '"abcdefghijklmnopqrstuvwxyz012345"',
};

/** A host response cache per security setting, in front of a route that answers `body` and declares it keepable. */
function keptAnswer(body: RouteAnswer) {
  const env = { clientAddress: () => undefined } as unknown as HostEnv;
  const caches = new Map<Record<string, string> | undefined, ReturnType<typeof responseCache>>();
  return (request: Request, security?: Record<string, string>) => {
    let cached = caches.get(security);
    if (!cached) {
      cached = responseCache({ caches: new Caches() } as AppContext, security);
      caches.set(security, cached);
    }
    const headers: [string, string][] = [...body.headers, ["etag", body.etag]];
    const route = () => kept(new Response(body.body, { status: body.status, headers }), { tags: [] });
    return cached(request, "/p", env, route);
  };
}

for (const production of [false, true]) {
  const security = securityHeaders({ production });
  describe(production ? "production" : "development", () => {
    const kinds = [
      { name: "kept page", etag: page.etag, make: keptAnswer(page) },
      { name: "kept 404 JSON", etag: json.etag, make: keptAnswer(json) },
      {
        name: "built file",
        etag: file.etag,
        make: (r: Request, s?: Record<string, string>) => serveStatic(file, r, s),
      },
      { name: "avatar", etag: image.etag, make: keptAnswer(image) },
    ];
    for (const kind of kinds) {
      for (const { name, request } of requests(kind.etag)) {
        test(`${kind.name}, ${name}: the same status, headers and body as the per-request path`, async () => {
          const perRequest = withSecurityHeaders(await kind.make(request), security);
          // Twice: the second answer comes from the headers worked out by the first.
          for (let i = 0; i < 2; i++) {
            const precomputed = withSecurityHeaders(await kind.make(request, security), security);
            expect(precomputed.status).toBe(perRequest.status);
            expect(entries(precomputed)).toEqual(entries(perRequest));
            expect(new Uint8Array(await precomputed.arrayBuffer())).toEqual(
              new Uint8Array(await (await kind.make(request)).arrayBuffer()),
            );
          }
        });
      }
    }
  });
}
