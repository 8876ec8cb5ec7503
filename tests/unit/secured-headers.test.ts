/**
 * Issue 17: answers kept in memory (cached bodies, built files, avatars) are made with their
 * final headers worked out once. Each must carry exactly the headers the per-request path
 * gives (the answer without them, then withSecurityHeaders), for a 200, a HEAD and a 304,
 * in development and in production (HSTS).
 */
import { describe, expect, test } from "bun:test";
import { type CachedBody, serveCached } from "../../api/cache";
import type { CachedImage } from "../../api/image-cache";
import { imageResponse } from "../../api/images";
import { securityHeaders, withSecurityHeaders } from "../../api/security";
import { type StaticFile, serveStatic } from "../../src/host/static";

const entries = (response: Response) => [...response.headers.entries()].sort(([a], [b]) => a.localeCompare(b));

const requests = (etag: string) => [
  { name: "GET", request: new Request("http://x/p") },
  { name: "GET with gzip", request: new Request("http://x/p", { headers: { "accept-encoding": "gzip, br" } }) },
  { name: "HEAD", request: new Request("http://x/p", { method: "HEAD" }) },
  { name: "304", request: new Request("http://x/p", { headers: { "if-none-match": etag } }) },
];

const page: CachedBody = {
  status: 200,
  body: new TextEncoder().encode("<!doctype html><p>hi</p>"),
  headers: [
    ["content-type", "text/html; charset=utf-8"],
    ["cache-control", "no-cache"],
    ["content-security-policy", "script-src 'self' 'sha256-abc'; style-src 'self'"],
  ],
  etag: '"page1"',
};
const json: CachedBody = {
  status: 404,
  body: new TextEncoder().encode('{"message":"Not found"}'),
  headers: [
    ["content-type", "application/json"],
    ["cache-control", "no-cache"],
  ],
  etag: '"json1"',
};
const file: StaticFile = {
  body: new Uint8Array(2000).fill(65),
  gzip: new Uint8Array(30),
  type: "text/html;charset=utf-8",
  etag: '"file1"',
  cacheControl: "public, max-age=0, must-revalidate",
};
const image: CachedImage = {
  id: "abcdefghijklmnopqrstuvwxyz012345",
  userId: "u1",
  body: new Uint8Array(1234),
  contentType: "image/webp",
  bytes: 1234,
};

for (const production of [false, true]) {
  const security = securityHeaders({ production });
  describe(production ? "production" : "development", () => {
    const kinds = [
      {
        name: "cached page",
        etag: page.etag,
        make: (r: Request, s?: Record<string, string>) => serveCached(page, r, s),
      },
      {
        name: "cached page, the fill's own answer (headers not kept)",
        etag: page.etag,
        make: (r: Request, s?: Record<string, string>) => serveCached({ ...page }, r, s, true),
      },
      {
        name: "cached 404 JSON",
        etag: json.etag,
        make: (r: Request, s?: Record<string, string>) => serveCached(json, r, s),
      },
      {
        name: "built file",
        etag: file.etag,
        make: (r: Request, s?: Record<string, string>) => serveStatic(file, r, s),
      },
      {
        name: "avatar",
        etag: `"${image.id}"`,
        make: (r: Request, s?: Record<string, string>) => imageResponse(image, r, s),
      },
    ];
    for (const kind of kinds) {
      for (const { name, request } of requests(kind.etag)) {
        test(`${kind.name}, ${name}: the same status, headers and body as the per-request path`, async () => {
          const perRequest = withSecurityHeaders(kind.make(request), security);
          // Twice: the second answer comes from the headers worked out by the first.
          for (let i = 0; i < 2; i++) {
            const precomputed = withSecurityHeaders(kind.make(request, security), security);
            expect(precomputed.status).toBe(perRequest.status);
            expect(entries(precomputed)).toEqual(entries(perRequest));
            expect(new Uint8Array(await precomputed.arrayBuffer())).toEqual(
              new Uint8Array(await kind.make(request).arrayBuffer()),
            );
          }
        });
      }
    }
  });
}
